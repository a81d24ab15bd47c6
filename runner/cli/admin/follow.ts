// Following a deployment's or an invocation's event stream (`GET …/{id}/events`) to its end. The stream is
// not retried by the client: when it breaks (or ends before the resource settled) it is followed again
// from the time of the last frame, and the frames seen already are skipped, so each is handled once.
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiConnectionError, ApiTimeoutError } from '../../../src/api/index.js';
import { AdminError, type Admin } from './output.js';

/** One frame of an app event stream (`log`, `deployment_state`, `invocation_state`, `error`, ...). */
export interface EventFrame {
  event: string;
  timestamp?: string;
  [field: string]: unknown;
}

/** Broken or short streams in a row (no frame in between) before giving up. */
const MAX_RESUMES = 5;

/**
 * Hands each frame of `path`'s stream (heartbeats aside) to `onFrame` once, until `onFrame` returns true
 * (a final state) or the stream ends and `settled()` says the resource is done.
 */
export async function followEvents(
  admin: Admin,
  path: string,
  onFrame: (frame: EventFrame) => boolean | void,
  settled: () => Promise<boolean>,
): Promise<void> {
  // Every frame handled, counted: a resumed stream repeats those from `since` on.
  const seen = new Map<string, number>();
  let since: string | undefined;
  let misses = 0;
  for (;;) {
    const skip = new Map(seen);
    try {
      for await (const frame of admin.events<EventFrame>(path, since ? { since } : undefined)) {
        if (frame.event === 'sse_heartbeat') continue;
        misses = 0;
        const key = JSON.stringify(frame);
        const repeats = skip.get(key) ?? 0;
        if (repeats > 0) {
          skip.set(key, repeats - 1);
          continue;
        }
        seen.set(key, (seen.get(key) ?? 0) + 1);
        if (typeof frame.timestamp === 'string') since = frame.timestamp;
        // Leaving the loop closes the connection.
        if (onFrame(frame)) return;
      }
    } catch (err) {
      if (!(err instanceof ApiConnectionError || err instanceof ApiTimeoutError) || ++misses >= MAX_RESUMES) throw err;
      await sleep(250 * misses);
      continue;
    }
    if (await settled()) return;
    if (++misses >= MAX_RESUMES) throw new AdminError(`the event stream ${path} keeps ending before its final state`);
    await sleep(250 * misses);
  }
}
