// `invoke`: runs an action of a deployed app (`POST /invocations`) and checks how it ended — its status, the
// reason it failed, its output and values inside the output — locally, as host steps check what they get
// back. One call that waits for the end, or with `async: true` one call that starts it and a poll of
// `GET /invocations/{id}` until it has ended. It acts on no session: a scenario made only of invoke steps
// gets no browser (compile.ts).

import { durationAt } from './duration.js';
import { api, jsonAssertions, matchAssertion, saveOf, type CompiledKind, type KindContext } from './host-steps.js';
import type { ApiCall, Assertion, Operation } from './plan.js';

type Obj = Record<string, unknown>;

/** The version label a deployment gets when it names none, as on the hosted service. */
const DEFAULT_VERSION = 'latest';
/**
 * An invocation starts a worker process and, for most automations, a browser: the usual 10 s step default
 * is too tight for that on a busy machine. The step's own `timeout` (or the invoke's) still wins.
 */
const INVOKE_MIN_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 250;
/** The service's bounds for `async_timeout_seconds`. */
const MIN_ASYNC_TIMEOUT_S = 10;
const MAX_ASYNC_TIMEOUT_S = 3_600;
const ENDED = ['succeeded', 'failed'];

export function compileInvokeStep(_kind: string, v: unknown, ctx: KindContext): CompiledKind {
  const o = v as Obj;
  const app = String(o.app);
  const action = String(o.action);
  const version = typeof o.version === 'string' ? o.version : DEFAULT_VERSION;
  const name = `invoke ${app}/${action}${version === DEFAULT_VERSION ? '' : `@${version}`}`;
  const body: Obj = { app_name: app, version, action_name: action };
  // Kept as data in the plan; the runner sends it as the JSON text the API takes, templates resolved.
  if (o.payload !== undefined) body.payload = o.payload;
  const json_text = o.payload !== undefined ? ['payload'] : undefined;
  const waitMs = o.timeout === undefined ? undefined : durationAt(o.timeout, [...ctx.at, 'timeout'], ctx.report);

  const expect = isObj(o.expect) ? o.expect : {};
  const soft = isObj(o.expect_soft) ? o.expect_soft : {};
  const checks = (e: Obj, key: string, defaultSucceeded: boolean): Assertion[] => {
    const at = [...ctx.at, key];
    const list: Assertion[] = [];
    // The status first: when the action failed, that (and its reason) is what the message leads with.
    if (typeof e.status === 'string') list.push({ subject: 'status', equals: e.status });
    else if (defaultSucceeded) list.push({ subject: 'status', equals: 'succeeded' });
    if (e.status_reason !== undefined) list.push(matchAssertion('status_reason', e.status_reason as string | Obj, [...at, 'status_reason'], ctx));
    if (Object.hasOwn(e, 'output')) list.push({ subject: 'output', equals: e.output });
    if (e.json !== undefined) list.push(...jsonAssertions('output', e.json, [...at, 'json'], ctx));
    return list;
  };
  const outcome: Pick<ApiCall, 'decode' | 'expect' | 'expect_soft' | 'save'> = {
    decode: 'invocation',
    // Succeeded is required unless either list says which status to expect.
    expect: checks(expect, 'expect', soft.status === undefined),
    expect_soft: checks(soft, 'expect_soft', false),
    save: saveOf(o),
  };

  if (o.async !== true) {
    return {
      name,
      operations: [api({ method: 'POST', path: '/invocations', body, json_text, ...outcome })],
      waitMs,
      minTimeoutMs: INVOKE_MIN_TIMEOUT_MS,
    };
  }
  body.async = true;
  if (waitMs !== undefined) {
    // The service stops the action when the step stops waiting for it, rather than letting it run on.
    const seconds = Math.ceil(waitMs / 1000);
    if (seconds > MAX_ASYNC_TIMEOUT_S) {
      ctx.report([...ctx.at, 'timeout'], "with async: true an action may run at most 1h (the service's async_timeout_seconds)");
    }
    body.async_timeout_seconds = Math.min(MAX_ASYNC_TIMEOUT_S, Math.max(MIN_ASYNC_TIMEOUT_S, seconds));
  }
  // The queued invocation, under a name no scenario variable can have (names are letters, digits and _).
  const started = `invocation-${ctx.mainIndex}`;
  const poll: Operation = {
    op: 'poll',
    method: 'GET',
    path: `/invocations/{{ ${started}.id }}`,
    until: [{ subject: 'status', one_of: ENDED }],
    interval_ms: POLL_INTERVAL_MS,
    waiting_for: `the invocation of ${app}/${action} to end`,
    ...withoutEmpty(outcome),
  };
  return {
    name,
    operations: [api({ method: 'POST', path: '/invocations', body, json_text, save: started }), poll],
    waitMs,
    minTimeoutMs: INVOKE_MIN_TIMEOUT_MS,
  };
}

/** Empty lists and absent options left out, as `api` leaves them out of calls. */
function withoutEmpty(o: Obj): Obj {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)));
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
