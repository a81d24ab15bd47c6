// The BiDi mapper's own CDP connection to the session's browser: one WebSocket with flattened sessions,
// presented as the mapper expects it (a client per CDP session that emits that session's events). The
// mapper's commands are the service's, not the BiDi client's, yet a client can steer them
// (`browser.setDownloadBehavior`, or any CDP command through `goog:cdp.sendCommand`), so the CDP proxy's
// download rule (cdp-downloads.ts) is applied here, to every command, whichever session it is for.
import type { BidiMapper } from 'chromium-bidi';
import WebSocket from 'ws';
import { DOWNLOADS_DIR } from '../fs/index.js';
import { unavailable } from '../errors.js';
import { rewriteDownloadCommand } from './cdp-downloads.js';

type CdpClient = BidiMapper.CdpClient;
type CdpEvents = CdpClient extends BidiMapper.EventEmitter<infer E> ? E : never;
export type EmitterClass = typeof BidiMapper.EventEmitter;

/** Chromium's error answer, with its code and message unchanged: the mapper tells errors apart by them. */
export class CdpCommandError extends Error {
  override name = 'CdpCommandError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The command's CDP session, or the whole connection, went away before an answer came. */
class CdpClosedError extends Error {
  override name = 'CdpClosedError';
}

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
  sessionId: string | undefined;
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code?: number; message?: string };
  sessionId?: string;
}

export class MapperCdpLink implements BidiMapper.CdpConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly clients = new Map<string | undefined, CdpClient>();
  private closed = false;
  /** The browser-wide client (no CDP session), the mapper's `browserCdpClient`. */
  readonly browser: CdpClient;

  private constructor(
    private readonly ws: WebSocket,
    private readonly Emitter: EmitterClass,
    private readonly browserPath: (viewPath: string) => string,
    private readonly onClose: () => void,
  ) {
    this.browser = this.addClient(undefined);
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(String(data));
    });
    ws.once('close', () => this.close());
    ws.on('error', () => this.close());
  }

  /** Connects to `wsEndpoint`; `onClose` is told once when the connection ends, whoever ended it. */
  static open(
    wsEndpoint: string,
    opts: { Emitter: EmitterClass; browserPath: (viewPath: string) => string; onClose: () => void; timeoutMs?: number },
  ): Promise<MapperCdpLink> {
    return new Promise((resolve, reject) => {
      const timeoutMs = opts.timeoutMs ?? 30_000;
      const ws = new WebSocket(wsEndpoint, { perMessageDeflate: false, handshakeTimeout: timeoutMs, maxPayload: 512 * 1024 * 1024 });
      const failed = (err: Error) => reject(unavailable('browser_unreachable', `cannot connect to the session's browser: ${err.message}`));
      ws.once('error', failed);
      ws.once('open', () => {
        ws.off('error', failed);
        resolve(new MapperCdpLink(ws, opts.Emitter, opts.browserPath, opts.onClose));
      });
    });
  }

  getCdpClient(sessionId: string): CdpClient {
    const client = this.clients.get(sessionId);
    if (!client) throw new Error(`no CDP session ${sessionId} on the mapper's connection`);
    return client;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const gone = new CdpClosedError('the connection to the browser closed');
    for (const p of this.pending.values()) p.reject(gone);
    this.pending.clear();
    for (const client of this.clients.values()) client.removeAllListeners();
    this.clients.clear();
    this.ws.removeAllListeners('message');
    this.ws.on('error', () => undefined); // a late socket error after close has nobody left to tell
    this.ws.close();
    this.onClose();
  }

  private addClient(sessionId: string | undefined): CdpClient {
    const client = Object.assign(new this.Emitter<CdpEvents>(), {
      sessionId,
      sendCommand: (method: string, params?: object) => this.send(method, params, sessionId),
      isCloseError: (err: unknown) => err instanceof CdpClosedError,
    }) as unknown as CdpClient;
    this.clients.set(sessionId, client);
    return client;
  }

  private send(method: string, params: object | undefined, sessionId: string | undefined): Promise<any> {
    if (this.closed) return Promise.reject(new CdpClosedError(`${method}: the connection to the browser closed`));
    const decided = this.downloadRule(method, params ?? {});
    if ('refuse' in decided) return Promise.reject(new CdpCommandError(-32602, decided.refuse));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, sessionId });
      this.ws.send(JSON.stringify({ id, method, params: decided.params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  /**
   * The mapper asks for Chromium's `default` behaviour when it starts and when a client resets it, which
   * in the headless shell denies downloads; here `default` is what a session does without clients.
   */
  private downloadRule(method: string, params: object): { params: object } | { refuse: string } {
    const p = params as Record<string, unknown>;
    // GUID-named files would reach no one here (the mapper asks for none; a BiDi client's raw CDP command
    // would get them without the proxy's naming), so downloads land in Downloads under their names.
    if (method === 'Browser.setDownloadBehavior' && (p.behavior === 'default' || p.behavior === 'allowAndName')) {
      return { params: { ...p, behavior: 'allow', downloadPath: this.browserPath(DOWNLOADS_DIR) } };
    }
    const rewrite = rewriteDownloadCommand({ method, params }, this.browserPath);
    if (!rewrite) return { params };
    return 'refuse' in rewrite ? rewrite : { params: rewrite.forward.params as object };
  }

  private onMessage(text: string): void {
    let msg: Message;
    try {
      msg = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new CdpCommandError(msg.error.code ?? -32000, msg.error.message ?? 'unknown CDP error'));
      else p.resolve(msg.result ?? {});
      return;
    }
    if (!msg.method) return;
    const params = msg.params ?? {};
    // The client for a new session exists before anyone hears of it, so a listener can send to it at once.
    if (msg.method === 'Target.attachedToTarget') this.addClient(params.sessionId as string);
    (this.clients.get(msg.sessionId) as unknown as { emit(type: string, data: unknown): void } | undefined)?.emit(msg.method, params);
    if (msg.method === 'Target.detachedFromTarget') this.detached(params.sessionId as string);
  }

  private detached(sessionId: string): void {
    this.clients.get(sessionId)?.removeAllListeners();
    this.clients.delete(sessionId);
    const gone = new CdpClosedError(`CDP session ${sessionId} detached`);
    for (const [id, p] of this.pending) {
      if (p.sessionId !== sessionId) continue;
      this.pending.delete(id);
      p.reject(gone);
    }
  }
}
