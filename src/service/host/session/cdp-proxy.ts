// The only way to a session's DevTools: an authenticated WebSocket endpoint on the service's own port,
// `/browsers/{id}/cdp?jwt=<token>` for the browser, and below it Chromium's own target paths
// (`/devtools/page/{targetId}`, as the discovery documents list them), the token in the query or the path
// (cdp-paths.ts). After the handshake is checked, frames pass both ways as they came; only the client's
// download commands are rewritten (cdp-downloads.ts), on a page's connection as on the browser's.
// Chromium's own port stays on loopback and never appears in any response.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CommandFilter, FrameForwarder } from './cdp-command-filter.js';
import { devtoolsTargetPath, parseCdpPath } from './cdp-paths.js';
import type { LiveSession } from './types.js';
import type { SessionManager } from './sessions.js';
import { WsMessageCounter } from './ws-message-counter.js';

/** Session tokens are an HMAC of the session id under a secret that lives only in this process. */
export class CdpTokens {
  private readonly secret = randomBytes(32);
  /** Bumped when a pool browser changes hands, so an earlier holder's URL stops working. */
  private readonly generations = new Map<string, number>();

  tokenFor(sessionId: string): string {
    const generation = this.generations.get(sessionId) ?? 0;
    return createHmac('sha256', this.secret).update(`${sessionId}.${generation}`).digest('base64url');
  }

  /** Invalidates every token issued for the session so far. */
  revoke(sessionId: string): void {
    this.generations.set(sessionId, (this.generations.get(sessionId) ?? 0) + 1);
  }

  verify(sessionId: string, token: string): boolean {
    const expected = Buffer.from(this.tokenFor(sessionId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

export interface CdpProxyDeps {
  sessions: SessionManager;
  tokens: CdpTokens;
  /** Lets clients that can set headers use their API key instead of the token. */
  isValidApiKey(key: string): boolean;
  /** Told of each client connection that reached Chromium, and of its end (telemetry's connection category). */
  connections?: CdpConnectionEvents;
}

export type CdpDisconnectReason = 'client_close' | 'upstream_error' | 'context_cancelled';

export interface CdpConnectionEvents {
  connected(sessionId: string): void;
  disconnected(sessionId: string, info: { reason: CdpDisconnectReason; duration_ms: number; message_count: number }): void;
}

/** Handles an HTTP upgrade; answers plain HTTP errors for anything that is not an authorised CDP request. */
export function handleCdpUpgrade(deps: CdpProxyDeps, req: IncomingMessage, client: Duplex, head: Buffer): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const parts = parseCdpPath(url.pathname);
  const target = parts && devtoolsTargetPath(parts.rest);
  if (!parts || target === undefined) {
    return reject(client, 404, 'not_found', `no WebSocket route ${url.pathname.replace(/\/jwt\/[^/]*/, '/jwt/REDACTED')}`);
  }
  const { sessionId } = parts;
  const token = parts.pathToken || url.searchParams.get('jwt') || url.searchParams.get('token');
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const authorised = token ? deps.tokens.verify(sessionId, token) : bearer ? deps.isValidApiKey(bearer) : false;
  if (!authorised) return reject(client, 401, 'unauthorized', 'missing or invalid session token');
  const session = deps.sessions.get(sessionId);
  if (!session || session.ending) return reject(client, 404, 'not_found', `browser '${sessionId}' is not active`);
  if (session.parked) return reject(client, 404, 'not_found', `browser '${sessionId}' is idle in its pool; acquire it first`);

  const socket = client as Socket;
  const release = deps.sessions.attach(sessionId, socket);
  void session.ready.then(() => {
    // The browser's path is the launch's; a target's is Chromium's own, on the same DevTools server.
    const upstream = new URL(session.chromium.wsEndpoint);
    if (target) upstream.pathname = target;
    pipeToBrowser(deps, req, socket, head, upstream, sessionId, release, session);
  });
}

function pipeToBrowser(
  deps: CdpProxyDeps,
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  upstreamUrl: URL,
  sessionId: string,
  release: () => void,
  session: LiveSession,
): void {
  if (socket.destroyed) return release();
  const upstream = connect(Number(upstreamUrl.port), upstreamUrl.hostname);
  // Who closed first says why the connection ended; only frame headers are read to count messages.
  const fromClient = new WsMessageCounter();
  const fromBrowser = new WsMessageCounter(true);
  let connectedAt = 0;
  let closed = false;
  const closeBoth = (reason: CdpDisconnectReason) => {
    if (!closed && connectedAt) {
      const ending = !!deps.sessions.get(sessionId)?.ending;
      deps.connections?.disconnected(sessionId, {
        reason: ending ? 'context_cancelled' : fromClient.closeSeen ? 'client_close' : reason,
        duration_ms: Date.now() - connectedAt,
        message_count: fromClient.count + fromBrowser.count,
      });
    }
    const first = !closed;
    closed = true;
    release();
    if (first && session.connections.size === 0 && !session.ending) void session.restoreDownloads();
    upstream.destroy();
    socket.destroy();
  };
  upstream.setNoDelay(true);
  socket.setNoDelay?.(true);
  // Commands are read whole to keep downloads in the session (cdp-downloads.ts); the browser's frames are
  // forwarded whole, so a refusal the proxy answers itself falls between two of them.
  const toClient = new FrameForwarder(socket);
  const commands = new CommandFilter(session.browserPath, (bytes) => upstream.write(bytes), (reply) => toClient.inject(reply));
  const fromClientData = (chunk: Buffer) => {
    try {
      commands.push(chunk);
    } catch {
      closeBoth('client_close');
    }
  };
  upstream.once('connect', () => {
    upstream.write(handshake(req, upstreamUrl));
    upstream.on('data', (chunk: Buffer) => {
      try {
        toClient.push(chunk);
      } catch {
        closeBoth('upstream_error');
      }
    });
    socket.on('data', fromClientData);
    if (head.length) fromClientData(head);
    connectedAt = Date.now();
    deps.connections?.connected(sessionId);
    if (head.length) fromClient.push(head);
  });
  const touch = () => deps.sessions.touch(sessionId);
  socket.on('data', (chunk: Buffer) => {
    touch();
    if (deps.connections) fromClient.push(chunk);
  });
  upstream.on('data', (chunk: Buffer) => {
    touch();
    if (deps.connections) fromBrowser.push(chunk);
  });
  upstream.once('error', () => closeBoth('upstream_error'));
  upstream.once('close', () => closeBoth('upstream_error'));
  socket.once('error', () => closeBoth('client_close'));
  socket.once('close', () => closeBoth('client_close'));
}

/** Rewrites the client's handshake for Chromium: its real path, a loopback Host, no Origin, no credentials. */
function handshake(req: IncomingMessage, upstream: URL): string {
  const lines = [`GET ${upstream.pathname} HTTP/1.1`, `Host: ${upstream.host}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const lower = name.toLowerCase();
    // No extensions either: a compressed (permessage-deflate) command could not be read and checked.
    if (lower === 'host' || lower === 'origin' || lower === 'authorization' || lower === 'cookie' || lower === 'sec-websocket-extensions') continue;
    lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function reject(client: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ code, message });
  const reason = status === 401 ? 'Unauthorized' : 'Not Found';
  client.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
