// The live view of a session (`browser_live_view_url`): its screen as JPEG frames over a WebSocket and,
// on an interactive link, the viewer's mouse and keyboard sent back into it. One frame stream per session
// whatever the number of viewers (a CDP screencast for a headless page, ffmpeg's x11grab for a headful
// display), started by the first viewer and stopped after the last. Input goes through the session's
// input controller, under the same lock as the computer API, so the two never interleave mid-action.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LiveServerMessage } from '../../../api/types.js';
import type { Computer, Computers, FrameStream, InputTarget } from '../input/index.js';
import { apiKeyAdmits, rejectUpgrade, type CdpTokens, type LiveSession, type LiveViewMode } from '../session/index.js';
import { LiveInput, parseLiveMessage } from './live-input.js';

export interface LiveViewEvents {
  connected(sessionId: string, info: { mode: LiveViewMode }): void;
  disconnected(sessionId: string, info: { mode: LiveViewMode; reason: string; duration_ms: number; input_count: number }): void;
}

export interface LiveViewDeps {
  computers: Pick<Computers, 'forSession'>;
  sessions: { get(id: string): LiveSession | undefined; touch(id: string): void };
  tokens: Pick<CdpTokens, 'verifyLive'>;
  /** The page size a headless session's controller draws and clicks in (from its record). */
  viewportOf(sessionId: string): Promise<{ width: number; height: number }>;
  events?: LiveViewEvents;
  log?: { warn(obj: object, msg: string): void };
}

const FRAMES = { quality: 70, maxFps: 15 };
/** A viewer this far behind gets no new frames until it catches up: the newest frame is what matters. */
const MAX_BUFFERED_BYTES = 2 * 1024 * 1024;
/** Input messages queued for one viewer beyond which mouse moves are dropped (the next move supersedes them). */
const MAX_QUEUED_INPUT = 64;
const RESTART_DELAYS_MS = [100, 300, 1000, 2000, 5000];
/** Someone watching is activity (as the hosted service counts it): the session's idle clock restarts this often. */
const KEEP_ALIVE_MS = 2000;

interface Viewer {
  ws: WebSocket;
  mode: LiveViewMode;
  since: number;
  inputs: number;
  queued: number;
  chain: Promise<void>;
  input: LiveInput;
}

interface Broadcast {
  session: InputTarget;
  viewers: Set<Viewer>;
  stream?: FrameStream;
  /** Sent to a viewer that joins: a screencast only sends a frame when the page repaints. */
  last?: Buffer;
  starting?: Promise<void>;
  keepAlive?: NodeJS.Timeout;
  closed: boolean;
}

export class LiveViews {
  private readonly bySession = new Map<string, Broadcast>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false });
  /** Each session's viewport, read once: the controller is asked for at every input. */
  private readonly viewports = new WeakMap<InputTarget, Promise<{ width: number; height: number }>>();

  constructor(private readonly deps: LiveViewDeps) {}

  /**
   * Opens the live view a WebSocket upgrade asks for. A link's token grants what it was made for; an API key
   * of the session's project (`isValidApiKey` checks that), everything.
   */
  async admit(live: { sessionId: string; token: string | null }, req: IncomingMessage, socket: Duplex, head: Buffer, auth: { bearer?: string; isValidApiKey: (key: string) => Promise<boolean> }): Promise<void> {
    const { bearer, isValidApiKey } = auth;
    let mode: LiveViewMode | undefined;
    if (live.token) mode = this.deps.tokens.verifyLive(live.sessionId, live.token);
    else if (bearer) {
      const admitted = await apiKeyAdmits(socket, bearer, isValidApiKey);
      if (admitted === undefined) return; // gone, or already refused
      if (admitted) mode = 'interactive';
    }
    if (!mode) return rejectUpgrade(socket, 401, 'unauthorized', 'missing or invalid live view token');
    const session = this.deps.sessions.get(live.sessionId);
    if (!session || session.ending || session.parked) return rejectUpgrade(socket, 404, 'not_found', `browser '${live.sessionId}' is not active`);
    this.wss.handleUpgrade(req, socket, head, (ws) => void this.attach(session, mode, ws));
  }

  /** Pool release: the next holder's links are new ones; whoever watched the last lease stops watching. */
  readonly release = (session: { id: string }): void => this.end(session.id, 'released');

  private async attach(session: InputTarget, mode: LiveViewMode, ws: WebSocket): Promise<void> {
    const broadcast = this.broadcastFor(session);
    const controller = () => this.controller(session);
    const viewer: Viewer = { ws, mode, since: Date.now(), inputs: 0, queued: 0, chain: Promise.resolve(), input: new LiveInput(controller) };
    let computer: Computer;
    try {
      computer = await controller();
    } catch (err) {
      this.deps.log?.warn({ session_id: session.id, err: (err as Error).message }, 'live view: no input controller');
      send(ws, { type: 'error', code: 'unavailable', message: 'the session cannot be viewed just now' });
      ws.close(1011, 'unavailable');
      return;
    }
    if (broadcast.closed || ws.readyState !== ws.OPEN) return void ws.close(1000, 'ended');
    const { width, height } = computer.device.screenSize();
    send(ws, { type: 'hello', mode, headless: !session.screen, width, height });
    broadcast.viewers.add(viewer);
    this.deps.sessions.touch(session.id);
    broadcast.keepAlive ??= setInterval(() => this.deps.sessions.touch(session.id), KEEP_ALIVE_MS).unref();
    this.deps.events?.connected(session.id, { mode });
    if (broadcast.last) ws.send(broadcast.last);
    ws.on('message', (data, isBinary) => this.onMessage(viewer, isBinary ? undefined : String(data)));
    ws.once('close', () => {
      const watching = broadcast.viewers.delete(viewer);
      this.deps.events?.disconnected(session.id, { mode, reason: broadcast.closed ? 'session_ended' : 'client_close', duration_ms: Date.now() - viewer.since, input_count: viewer.inputs });
      if (watching && !broadcast.viewers.size) void this.stopStream(broadcast);
    });
    void this.ensureStream(broadcast);
  }

  private onMessage(viewer: Viewer, raw: string | undefined): void {
    const msg = raw === undefined ? { error: 'messages are JSON text' } : parseLiveMessage(raw);
    if ('error' in msg) return send(viewer.ws, { type: 'error', code: 'invalid_message', message: msg.error });
    if (msg.type === 'ping') return send(viewer.ws, { type: 'pong', t: msg.t });
    if (viewer.mode === 'view') return send(viewer.ws, { type: 'error', code: 'view_only', message: 'this live view link is view-only: input is not sent' });
    if (msg.type === 'mouse' && msg.action === 'move' && viewer.queued >= MAX_QUEUED_INPUT) return;
    viewer.inputs += 1;
    viewer.queued += 1;
    const receivedAt = Date.now();
    viewer.chain = viewer.chain
      .then(() => viewer.input.apply(msg, receivedAt))
      .catch((err: Error) => send(viewer.ws, { type: 'error', code: 'input_failed', message: `the input could not be sent: ${err.message}` }))
      .finally(() => (viewer.queued -= 1));
  }

  private broadcastFor(session: InputTarget): Broadcast {
    let broadcast = this.bySession.get(session.id);
    if (broadcast && broadcast.session !== session) broadcast = undefined; // an earlier session of the same id
    if (!broadcast) {
      broadcast = { session, viewers: new Set(), closed: false };
      this.bySession.set(session.id, broadcast);
      const mine = broadcast;
      session.cleanups.push(() => {
        if (this.bySession.get(session.id) === mine) this.end(session.id, 'ended');
      });
    }
    return broadcast;
  }

  private async controller(session: InputTarget): Promise<Computer> {
    let viewport = this.viewports.get(session);
    if (!viewport) {
      viewport = this.deps.viewportOf(session.id);
      this.viewports.set(session, viewport);
      // A failed read is not kept: the next input asks again.
      viewport.catch(() => this.viewports.delete(session));
    }
    return this.deps.computers.forSession(session, await viewport);
  }

  private ensureStream(broadcast: Broadcast, attempt = 0): Promise<void> {
    if (broadcast.stream || broadcast.starting || broadcast.closed || !broadcast.viewers.size) return broadcast.starting ?? Promise.resolve();
    broadcast.starting = (async () => {
      try {
        const computer = await this.controller(broadcast.session);
        const stream = await computer.device.streamFrames((frame) => this.onFrame(broadcast, frame), FRAMES);
        broadcast.stream = stream;
        attempt = 0;
        void stream.ended.then(() => {
          if (broadcast.stream !== stream) return; // stopped on purpose
          broadcast.stream = undefined;
          // The browser restarted in place, or the capture died: start again while someone watches.
          this.retry(broadcast, attempt);
        });
      } catch (err) {
        this.deps.log?.warn({ session_id: broadcast.session.id, err: (err as Error).message }, 'live view: the screen stream did not start');
        this.retry(broadcast, attempt);
      } finally {
        broadcast.starting = undefined;
      }
    })();
    return broadcast.starting;
  }

  private retry(broadcast: Broadcast, attempt: number): void {
    if (broadcast.closed || broadcast.session.ending || !broadcast.viewers.size) return;
    const delay = RESTART_DELAYS_MS[attempt];
    if (delay === undefined) {
      for (const v of broadcast.viewers) send(v.ws, { type: 'error', code: 'stream_failed', message: "the session's screen cannot be streamed" });
      return this.end(broadcast.session.id, 'stream_failed');
    }
    setTimeout(() => void this.ensureStream(broadcast, attempt + 1), delay).unref();
  }

  private onFrame(broadcast: Broadcast, frame: Buffer): void {
    // x11grab sends the same picture over and over while nothing moves.
    if (broadcast.last?.equals(frame)) return;
    broadcast.last = frame;
    for (const v of broadcast.viewers) if (v.ws.bufferedAmount < MAX_BUFFERED_BYTES) v.ws.send(frame);
  }

  private async stopStream(broadcast: Broadcast): Promise<void> {
    await broadcast.starting;
    if (broadcast.viewers.size) return; // someone joined meanwhile
    clearInterval(broadcast.keepAlive);
    broadcast.keepAlive = undefined;
    const stream = broadcast.stream;
    broadcast.stream = undefined;
    broadcast.last = undefined;
    await stream?.stop().catch(() => {});
  }

  private end(sessionId: string, reason: 'ended' | 'released' | 'stream_failed'): void {
    const broadcast = this.bySession.get(sessionId);
    if (!broadcast) return;
    this.bySession.delete(sessionId);
    broadcast.closed = true;
    const viewers = [...broadcast.viewers];
    broadcast.viewers.clear();
    for (const v of viewers) {
      send(v.ws, { type: 'ended', reason });
      v.ws.close(1000, reason);
    }
    void this.stopStream(broadcast);
  }
}

function send(ws: WebSocket, msg: LiveServerMessage): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
}

const LIVE_PATH = /^\/browsers\/([^/?]+)\/live\/?$/;

/** The page that opens a session's live view with a link's token: `origin` is the service's http(s) origin. */
export function liveViewPageUrl(tokens: Pick<CdpTokens, 'liveTokenFor'>, origin: string, sessionId: string, mode: LiveViewMode): string {
  return `${origin}/live/${sessionId}?token=${tokens.liveTokenFor(sessionId, mode)}`;
}

/** The session a live view WebSocket URL names, or undefined for any other path. */
export function liveViewPath(rawUrl: string | undefined): { sessionId: string; token: string | null } | undefined {
  try {
    const url = new URL(rawUrl ?? '/', 'http://localhost');
    const match = LIVE_PATH.exec(url.pathname);
    return match ? { sessionId: decodeURIComponent(match[1]!), token: url.searchParams.get('token') } : undefined;
  } catch {
    return undefined; // an unparsable URL or a malformed escape names no session
  }
}
