// What keeps a session alive: API and CDP traffic, and CDP clients connected to it. One with neither for
// its inactivity timeout ends, unless it is parked in its pool, kept (its keep's end ends it instead), or its
// Chromium is being restarted.
import type { Socket } from 'node:net';
import type { LiveSession } from './types.js';

/** Counts a CDP client connection of `session`; returns the release. */
export function attachClient(session: LiveSession, socket: Socket): () => void {
  session.connections.add(socket);
  session.lastActivity = Date.now();
  return () => {
    session.connections.delete(socket);
    session.lastActivity = Date.now();
  };
}

/** Whether `session` has been inactive for its timeout at `nowMs`. */
export function timedOut(session: LiveSession, nowMs: number): boolean {
  if (session.ending || session.parked || session.keptUntil !== undefined || session.restarting || session.connections.size > 0) return false;
  return nowMs - session.lastActivity >= session.timeoutMs;
}
