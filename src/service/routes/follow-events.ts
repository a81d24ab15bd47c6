// The event streams of deployments, invocations and auth connections (`GET …/{id}/events`): what was stored since `since`,
// then live events, with `sse_heartbeat` frames in between, ending once the resource settles.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventLog, StoredEvent } from '../host/event-log.js';
import { openSse } from '../sse.js';
import { parseInstant } from './instants.js';

export interface FollowOptions {
  events: EventLog;
  ownerId: string;
  /** `since` from the query (RFC 3339 or a duration back from now); absent: from the beginning. */
  since?: string;
  now: () => Date;
  heartbeatMs: number;
  /** Whether `event` is the one that ends the stream (a terminal state). */
  isEnd: (event: StoredEvent) => boolean;
  /** The current state as an event, when the resource has already settled; null while it is in flight. */
  settledState: () => StoredEvent | null | Promise<StoredEvent | null>;
}

export async function followEvents(req: FastifyRequest, reply: FastifyReply, opts: FollowOptions): Promise<void> {
  const sinceMs = opts.since === undefined ? 0 : Math.floor(parseInstant(opts.since, 'querystring.since', opts.now().getTime()) / 1000);
  const sse = openSse(req, reply, opts.heartbeatMs * 4);
  let ended = false;
  const unfollow = opts.events.follow(opts.ownerId, sinceMs, (event) => {
    if (ended) return;
    sse.send(event);
    if (opts.isEnd(event)) {
      ended = true;
      // Outside the publisher's loop: closing unsubscribes.
      setImmediate(() => sse.close());
    }
  });
  if (!ended) {
    // `since` may have left out the state that settled it.
    const settled = await opts.settledState();
    // The live stream may have ended it while the state was read.
    if (settled && !ended) {
      sse.send(settled);
      ended = true;
      sse.close();
    }
  }
  const heartbeat = setInterval(() => sse.send({ event: 'sse_heartbeat', timestamp: opts.now().toISOString() }), opts.heartbeatMs);
  heartbeat.unref();
  await sse.closed;
  clearInterval(heartbeat);
  unfollow();
}
