// A running session's live event stream: the ring of its last events, the subscribers new events go to,
// and where a subscription starts (new events only, the whole ring, or after a seq, from the store when the
// ring no longer holds it).
import type { TelemetryEnvelope } from '../../../api/types.js';
import type { TelemetryRepo } from '../../store/telemetry-repo.js';
import type { State, Subscriber } from './session-state.js';

export const RING_SIZE = 1024;
/** A resume older than the ring reads the gap from the store, up to this many events. */
const MAX_BACKFILL = 20_000;

export interface Subscription {
  backlog: TelemetryEnvelope[];
  stop: () => void;
}

/** Puts a running session's new event into its ring and sends it to its subscribers. */
export function publish(state: State, env: TelemetryEnvelope): void {
  state.ring.push(env);
  if (state.ring.length > RING_SIZE) state.ring.shift();
  for (const sub of state.subscribers) {
    try {
      sub.event(env);
    } catch {
      state.subscribers.delete(sub); // a broken stream must not stop capture for the others
    }
  }
}

/** Subscribes to the session of `state` (TelemetryHub.subscribe). */
export async function subscribe(
  state: State | undefined,
  from: { afterSeq?: number; replayAll?: boolean },
  sub: Subscriber,
  repo: Pick<TelemetryRepo, 'between'>,
): Promise<Subscription> {
  if (!state?.session) {
    queueMicrotask(() => sub.end());
    return { backlog: [], stop: () => {} };
  }
  let backlog: TelemetryEnvelope[] = [];
  if (from.afterSeq !== undefined) {
    const after = from.afterSeq;
    const oldest = state.ring[0]?.seq ?? state.nextSeq;
    if (after + 1 < oldest) return resume(state, after, oldest, sub, repo);
    backlog = state.ring.filter((e) => e.seq > after);
  } else if (from.replayAll) {
    backlog = [...state.ring];
  }
  state.subscribers.add(sub);
  return { backlog, stop: () => state.subscribers.delete(sub) };
}

/**
 * A resume from before the ring: the gap is read from the store while events that arrive meanwhile are
 * held, then the stored part, the ring as it was and the held events follow each other without a gap or
 * a repeat.
 */
async function resume(state: State, after: number, oldest: number, sub: Subscriber, repo: Pick<TelemetryRepo, 'between'>): Promise<Subscription> {
  const ring = state.ring.filter((e) => e.seq > after);
  const held: TelemetryEnvelope[] = [];
  let ended = false;
  const holder: Subscriber = { event: (env) => held.push(env), end: () => (ended = true) };
  state.subscribers.add(holder);
  let stored: TelemetryEnvelope[];
  try {
    stored = await repo.between(state.id, after, oldest, MAX_BACKFILL);
  } finally {
    state.subscribers.delete(holder);
  }
  const backlog = [...stored, ...ring, ...held];
  if (ended || !state.session) {
    // After the caller has sent the backlog (it continues in a microtask; this runs after those).
    setImmediate(() => sub.end());
    return { backlog, stop: () => {} };
  }
  state.subscribers.add(sub);
  return { backlog, stop: () => state.subscribers.delete(sub) };
}

/** The session ended: its stream closes for every subscriber. */
export function endStream(state: State): void {
  state.ring = [];
  for (const sub of state.subscribers) sub.end();
  state.subscribers.clear();
}
