// WebDriver BiDi for a session, `/browsers/{id}/bidi?jwt=<token>` (`webdriver_ws_url`): each client gets
// its own mapper (bidi-mapper.ts), started before the handshake is answered so that a browser that cannot
// be reached is a plain HTTP refusal, as on the CDP endpoint. An open BiDi connection is a client of the
// session like a CDP one: it keeps the session alive, counts as activity, is dropped when the session
// ends or its pool lease does, and appears in telemetry's connection events.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { DomainError, unavailable } from '../errors.js';
import { startBidiMapper, type BidiMapperSession } from './bidi-mapper.js';
import { rejectUpgradeWith, type BrowserClientDeps, type DisconnectReason } from './client-admission.js';
import type { LiveSession } from './types.js';

let server: WebSocketServer | undefined;

/** Only completes handshakes: connections are tracked by their sessions, not here. */
function handshakes(): WebSocketServer {
  server ??= new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  return server;
}

/** Serves an admitted client (client-admission.ts) once the session is ready. */
export function serveBidi(deps: BrowserClientDeps, req: IncomingMessage, socket: Socket, head: Buffer, session: LiveSession): void {
  new BidiClient(deps, session, socket).start(req, head);
}

class BidiClient {
  private mapper: BidiMapperSession | undefined;
  private ws: WebSocket | undefined;
  /** Messages the mapper sent before the handshake was answered. */
  private readonly early: string[] = [];
  private messages = 0;
  private connectedAt = 0;
  private finished = false;
  private readonly release: () => void;

  constructor(
    private readonly deps: BrowserClientDeps,
    private readonly session: LiveSession,
    private readonly socket: Socket,
  ) {
    this.release = deps.sessions.attach(session.id, socket);
    // Until the handshake, nobody else listens: an error here must not become an uncaught one.
    socket.on('error', () => socket.destroy());
    socket.once('close', () => this.finish('client_close'));
  }

  start(req: IncomingMessage, head: Buffer): void {
    void this.open(req, head).catch((err: unknown) => {
      if (this.finished) return;
      this.finish('upstream_error', err instanceof DomainError ? err : unavailable('browser_unreachable', `WebDriver BiDi could not start: ${(err as Error).message}`));
    });
  }

  private async open(req: IncomingMessage, head: Buffer): Promise<void> {
    await this.session.ready;
    if (this.finished) return;
    const mapper = await startBidiMapper({
      wsEndpoint: this.session.chromium.wsEndpoint,
      browserPath: this.session.browserPath,
      send: (text) => this.toClient(text),
      onBrowserGone: () => this.finish('upstream_error'),
    });
    if (this.finished) return mapper.close();
    this.mapper = mapper;
    handshakes().handleUpgrade(req, this.socket, head, (ws) => this.connected(ws));
  }

  private connected(ws: WebSocket): void {
    if (this.finished) return void ws.terminate();
    this.ws = ws;
    this.connectedAt = Date.now();
    this.deps.connections?.connected(this.session.id, 'bidi');
    for (const text of this.early.splice(0)) this.toClient(text);
    ws.on('message', (data, isBinary) => {
      this.activity();
      if (isBinary) this.mapper?.receiveBinary();
      else this.mapper?.receive(String(data));
    });
    ws.once('close', () => this.finish('client_close'));
    ws.on('error', () => this.finish('client_close'));
  }

  private toClient(text: string): void {
    if (this.finished) return;
    if (!this.ws) return void this.early.push(text);
    this.activity();
    this.ws.send(text);
  }

  private activity(): void {
    this.messages++;
    this.deps.sessions.touch(this.session.id);
  }

  /**
   * Ends the client once, whichever side went first: mapper and browser connection, socket, accounting.
   * Before the handshake, a failure on the browser's side is answered as an HTTP refusal.
   */
  private finish(reason: DisconnectReason, refusal?: DomainError): void {
    if (this.finished) return;
    this.finished = true;
    const ending = !!this.session.ending;
    this.mapper?.close();
    if (this.connectedAt) {
      this.deps.connections?.disconnected(
        this.session.id,
        { reason: ending ? 'context_cancelled' : reason, duration_ms: Date.now() - this.connectedAt, message_count: this.messages },
        'bidi',
      );
    }
    this.release();
    // The mapper set the browser's download behaviour, which Chromium resets when its connection goes.
    if (this.mapper && this.session.connections.size === 0 && !ending) void this.session.restoreDownloads();
    if (this.ws && reason === 'upstream_error') this.ws.close(1011, 'the connection to the browser ended');
    else if (this.ws) this.ws.terminate();
    else if (reason === 'upstream_error' && !this.socket.destroyed) {
      rejectUpgradeWith(this.socket, refusal ?? unavailable('browser_unreachable', "the connection to the session's browser ended"));
    } else this.socket.destroy();
  }
}
