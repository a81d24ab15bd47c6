// A small CDP client over Chromium's browser WebSocket, for the service's own use (input, screenshots).
// Flattened sessions: commands for a page carry its sessionId on the one browser connection.
import WebSocket from 'ws';

type Pending = { resolve: (v: any) => void; reject: (e: Error) => void; method: string };

export class CdpError extends Error {
  override name = 'CdpError';
}

export class CdpConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(params: any, sessionId?: string) => void>>();
  private closedError: Error | undefined;
  /** Settles when the browser connection closes, whichever side closed it. */
  readonly closed: Promise<void>;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.onMessage(String(data)));
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    ws.on('close', () => this.failAll(new CdpError('the browser connection closed')));
    ws.on('error', (err) => this.failAll(new CdpError(`browser connection error: ${err.message}`)));
  }

  static connect(wsEndpoint: string, timeoutMs = 10_000): Promise<CdpConnection> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(wsEndpoint, { perMessageDeflate: false, handshakeTimeout: timeoutMs, maxPayload: 512 * 1024 * 1024 });
      ws.once('open', () => resolve(new CdpConnection(ws)));
      ws.once('error', (err) => reject(new CdpError(`cannot connect to the browser: ${err.message}`)));
    });
  }

  send<T = any>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  on(event: string, listener: (params: any, sessionId?: string) => void): void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
  }

  off(event: string, listener: (params: any, sessionId?: string) => void): void {
    this.listeners.get(event)?.delete(listener);
  }

  close(): void {
    this.failAll(new CdpError('the connection was closed'));
    this.ws.close();
  }

  private onMessage(text: string): void {
    const msg = JSON.parse(text) as { id?: number; method?: string; params?: unknown; result?: unknown; error?: { message: string }; sessionId?: string };
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new CdpError(`${p.method}: ${msg.error.message}`));
      else p.resolve(msg.result);
      return;
    }
    if (msg.method) for (const l of this.listeners.get(msg.method) ?? []) l(msg.params, msg.sessionId);
  }

  private failAll(err: Error): void {
    this.closedError ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
