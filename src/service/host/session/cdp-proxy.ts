// A session's DevTools for clients: an authenticated WebSocket endpoint on the service's own port,
// `/browsers/{id}/cdp?jwt=<token>` for the browser, and below it Chromium's own target paths
// (`/devtools/page/{targetId}`, as the discovery documents list them), the token in the query or the path
// (cdp-paths.ts). After the handshake is checked, frames pass both ways as they came; only the client's
// download commands are rewritten (cdp-downloads.ts), on a page's connection as on the browser's. A client
// that leaves a kept session leaves its browser connection held (cdp-hold.ts).
// Chromium's own port stays on loopback and never appears in any response.
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { BrowserClientDeps, DisconnectReason } from './client-admission.js';
import { CommandFilter, FrameForwarder } from './cdp-command-filter.js';
import { downloadNamer } from './cdp-downloads.js';
import { holdBrowserConnection } from './cdp-hold.js';
import type { LiveSession } from './types.js';
import { WsMessageCounter } from './ws-message-counter.js';

/**
 * Pipes an admitted client (client-admission.ts) to the session's browser once the session is ready;
 * `targetPath` (a page's DevTools path) instead of the browser's when the client asked for a target.
 */
export function proxyCdp(deps: BrowserClientDeps, req: IncomingMessage, socket: Socket, head: Buffer, session: LiveSession, targetPath: string | null = null): void {
  const release = deps.sessions.attach(session.id, socket);
  void session.ready.then(() => {
    // The browser's path is the launch's; a target's is Chromium's own, on the same DevTools server.
    const upstream = new URL(session.chromium.wsEndpoint);
    if (targetPath) upstream.pathname = targetPath;
    pipeToBrowser(deps, req, socket, head, upstream, session.id, release, session, targetPath === null);
  });
}

function pipeToBrowser(
  deps: BrowserClientDeps,
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  upstreamUrl: URL,
  sessionId: string,
  release: () => void,
  session: LiveSession,
  browserLevel: boolean,
): void {
  if (socket.destroyed) return release();
  const devtools = session.chromium.devtoolsSocket;
  const upstream = devtools ? connect(devtools) : connect(Number(upstreamUrl.port), upstreamUrl.hostname);
  // Who closed first says why the connection ended; only frame headers are read to count messages.
  const fromClient = new WsMessageCounter();
  const fromBrowser = new WsMessageCounter(true);
  let connectedAt = 0;
  let closed = false;
  let held = false;
  // Only the browser's connection makes contexts; it is held once its handshake is done and no message of
  // the client's is half passed on.
  const holds = () => browserLevel && session.keptUntil !== undefined && !session.ending && connectedAt > 0 && commands.atMessageBoundary;
  const closeBoth = (reason: DisconnectReason) => {
    if (!closed && connectedAt) {
      const ending = !!deps.sessions.get(sessionId)?.ending;
      deps.connections?.disconnected(
        sessionId,
        {
          reason: ending ? 'context_cancelled' : fromClient.closeSeen ? 'client_close' : reason,
          duration_ms: Date.now() - connectedAt,
          message_count: fromClient.count + fromBrowser.count,
        },
        'cdp',
      );
    }
    const first = !closed;
    closed = true;
    release();
    if (first && session.connections.size === 0 && !session.ending) void session.restoreDownloads();
    if (first && reason === 'client_close' && holds()) {
      held = true;
      holdBrowserConnection(session, upstream, toClient);
    }
    if (!held) upstream.destroy();
    socket.destroy();
  };
  upstream.setNoDelay(true);
  socket.setNoDelay?.(true);
  // Commands are read whole to keep downloads in the session (cdp-downloads.ts); the browser's frames are
  // forwarded whole, so a refusal the proxy answers itself falls between two of them.
  const downloads = { namer: downloadNamer(session), hidden: new Set<string>() };
  const toClient = new FrameForwarder(socket, downloads);
  // The client's close frame would have Chromium close the connection: a kept session's is held instead.
  const clientClosing = () => holds() && (closeBoth('client_close'), true);
  const commands = new CommandFilter(session.browserPath, (bytes) => upstream.write(bytes), (reply) => toClient.inject(reply), downloads, clientClosing);
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
    deps.connections?.connected(sessionId, 'cdp');
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
