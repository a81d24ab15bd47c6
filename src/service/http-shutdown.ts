// Stopping the HTTP side within a bound. Node's server.close() refuses new connections and closes idle
// keep-alive ones, but waits for every other socket: one a client opened and never wrote on (a browser's
// speculative preconnect), a request whose headers never finished, an upgraded socket nobody ends. Such a
// socket held a service's shutdown until Node's own 60 s header timeout. Requests under way get a grace
// period to finish; what is still open then is cut, and the log says what it was.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { cdpTokenToQuery } from './host/session/index.js';

export interface OpenSockets {
  /** What each socket still open last asked for ("GET /browsers", "upgrade /browsers/x/live"; no query). */
  describe(): string[];
  /** Destroys every socket still open; returns how many there were. */
  cutAll(): number;
}

/** Tracks the server's sockets from now on: call before it listens. */
export function trackSockets(server: Server): OpenSockets {
  // What each socket last asked for, kept as it came: it is only put in words (and its token taken out)
  // if the socket is still open at shutdown, not on every request.
  const open = new Map<Socket, { method: string; url: string | undefined } | undefined>();
  server.on('connection', (socket: Socket) => {
    open.set(socket, undefined);
    socket.once('close', () => open.delete(socket));
  });
  const label = (socket: Socket, method: string, url: string | undefined) => {
    if (open.has(socket)) open.set(socket, { method, url });
  };
  server.on('request', (req) => label(req.socket, req.method ?? 'GET', req.url));
  server.on('upgrade', (req) => label(req.socket, 'upgrade', req.url));
  return {
    describe: () => [...open.values()].map((last) => (last ? `${last.method} ${pathOf(last.url)}` : 'no request')),
    cutAll: () => {
      const n = open.size;
      for (const socket of open.keys()) socket.destroy();
      return n;
    },
  };
}

/**
 * Runs `close` (the app's, which waits for the server) and, if it has not finished after `graceMs`, cuts
 * the sockets still open so that it can. `onCut` hears what was cut.
 */
export async function closeWithin(close: () => Promise<void>, sockets: OpenSockets, graceMs: number, onCut: (open: string[]) => void): Promise<void> {
  const timer = setTimeout(() => {
    const open = sockets.describe();
    if (sockets.cutAll()) onCut(open);
  }, graceMs);
  try {
    await close();
  } finally {
    clearTimeout(timer);
  }
}

/** The path alone, as the request log shows it: tokens ride in query strings and in CDP paths. */
function pathOf(url: string | undefined): string {
  return cdpTokenToQuery(url ?? '/').split('?')[0]!.slice(0, 200);
}
