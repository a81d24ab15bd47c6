// `computer` steps: a list of OS-level input actions (or one action) sent as ONE `POST /computer/batch`,
// which holds the session's input lock for the whole list and stops at the first failing action.
// Scenarios write each action as a one-key object (`- click_mouse: { x, y }`); the wire wants
// `{ type: 'click_mouse', click_mouse: { x, y } }`, and the shorthands become their full payloads here.

import { durationAt } from './duration.js';
import type { CompiledKind, KindContext } from './host-steps.js';
import { SESSION_PATH } from './host-steps.js';
import type { DataPath } from './path.js';

type Obj = Record<string, unknown>;

/** The service's limit for one `sleep` action; longer pauses belong in a `sleep` step. */
const MAX_BATCH_SLEEP_MS = 30_000;
const HEADROOM_MS = 2_000;
/** Names in the step's default name before it says "+N more". */
const NAMED_ACTIONS = 4;

export function compileComputer(v: Obj | Obj[], ctx: KindContext): CompiledKind {
  const items = Array.isArray(v) ? v : [v];
  let busyMs = 0;
  const actions = items.map((item, i) => {
    const at: DataPath = Array.isArray(v) ? [...ctx.at, i] : ctx.at;
    const type = Object.keys(item)[0]!;
    const payload = toPayload(type, item[type], [...at, type], ctx);
    busyMs += timeTaken(type, payload);
    return { type, [type]: payload };
  });
  const kinds = actions.map((a) => a.type);
  const more = kinds.length > NAMED_ACTIONS ? ` +${kinds.length - NAMED_ACTIONS} more` : '';
  return {
    name: `computer ${kinds.slice(0, NAMED_ACTIONS).join(', ')}${more}`,
    operations: [{ op: 'api', method: 'POST', path: `${SESSION_PATH}/computer/batch`, body: { actions } }],
    // Pauses and timed moves inside the batch count against the step, so give them room.
    minTimeoutMs: busyMs > 0 ? busyMs + HEADROOM_MS : undefined,
  };
}

function toPayload(type: string, value: unknown, at: DataPath, ctx: KindContext): Obj {
  switch (type) {
    case 'type_text':
      return typeof value === 'string' ? { text: value } : (value as Obj);
    case 'press_key':
      if (typeof value === 'string') return { keys: [value] };
      if (Array.isArray(value)) return { keys: value };
      return value as Obj;
    case 'sleep': {
      const ms = durationAt(value, at, ctx.report);
      if (ms > MAX_BATCH_SLEEP_MS) ctx.report(at, 'a sleep inside a computer batch is at most 30s; use a sleep step for longer pauses');
      return { duration_ms: ms };
    }
    default:
      return value as Obj;
  }
}

/** Roughly how long an action keeps the batch busy on purpose (pauses, timed moves, typing delays). */
function timeTaken(type: string, p: Obj): number {
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  if (type === 'sleep') return n(p.duration_ms);
  if (type === 'type_text') return n(p.delay) * String(p.text ?? '').length;
  if (type === 'press_key') return n(p.duration) * (Array.isArray(p.keys) ? p.keys.length : 1);
  return n(p.duration_ms) + n(p.delay);
}
