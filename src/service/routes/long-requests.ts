// Helpers for requests that run a while (exec, streams, Playwright code).
import type { FastifyReply } from 'fastify';
import type { SessionManager } from '../host/session/index.js';

/**
 * Counts a long-running request as session activity for as long as it runs, so a session is not ended
 * for inactivity in the middle of an exec or a stream. Returns the stop function.
 */
export function keepActive(sessions: SessionManager, id: string, everyMs = 1000): () => void {
  const timer = setInterval(() => sessions.touch(id), everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    sessions.touch(id);
  };
}

/** Aborted if the client disconnects before the response was sent (its reason says so). */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  void clientGone(reply).then(() => controller.abort(new Error('the client went away before the answer')));
  return controller.signal;
}

/** Resolves if the client disconnects before the response was sent. */
export function clientGone(reply: FastifyReply): Promise<void> {
  return new Promise((resolve) => {
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) resolve();
    });
  });
}
