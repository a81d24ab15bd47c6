// What a scenario needs from its browser, read off its plan before it runs, so the run can have that
// browser ready when the scenario starts (runner/suite/browser-supply.ts). Two answers besides "nothing to
// prepare" (a pool lease, a body only known at run time, a profile an earlier scenario may still change):
//  - `own`: a session of its own, created and connected ahead of time;
//  - `shared`: the scenario only drives pages, so a fresh browser context in a run-scoped session is as
//    isolated as a fresh session for everything it can observe (Playwright Test's own isolation unit).
import type { ContextOptions, Operation, Plan, PlanStep } from '../../src/scenario/plan.js';

export interface BrowserNeed {
  /** Scenarios with equal keys can take each other's prepared browsers. */
  key: string;
  mode: 'own' | 'shared';
  /** The scenario's `acquire_browser` body (a POST /browsers body). */
  body: Record<string, unknown>;
  /** The plan's `context:`; absent, the session's own window settings apply. */
  context?: ContextOptions;
}

/**
 * Create-body fields that configure the browser process as a whole, the same for every context in it.
 * Anything else (a name or tags to find the session by, telemetry, a start page, a profile, extensions)
 * belongs to one scenario, which then gets a session of its own.
 */
const SHAREABLE_FIELDS = new Set(['headless', 'stealth', 'timeout_seconds', 'viewport', 'kiosk_mode', 'chrome_policy', 'proxy', 'proxy_id', 'disable_default_proxy']);

/** Loaded by the session when it starts, and changed by scenarios that run before: never created early. */
const STATEFUL_FIELDS = ['profile', 'extensions'];

/** With `share: false` (`--isolation session`) every scenario gets a session of its own. */
export function browserNeed(plan: Plan, opts: { share: boolean } = { share: true }): BrowserNeed | undefined {
  const setup = plan.steps.filter((s) => s.phase === 'setup');
  const createStep = setup.find((s) => s.operations.some((op) => op.op === 'acquire_browser'));
  // The create and the connect to what it made, nothing else: a prepared browser stands in for exactly that.
  const [create, connect, ...rest] = createStep?.operations ?? [];
  if (create?.op !== 'acquire_browser' || 'pool' in create || connect?.op !== 'connect' || rest.length) return undefined;
  const body = create.body;
  // Known only at run time (a secret, a saved value), or read from a file a scenario may write first.
  if (hasTemplate(body) || hasTemplate(connect.context) || connect.context?.storage_state) return undefined;
  // A HAR goes to the scenario's own artifact folder, and is written when its context closes.
  if (connect.context?.record_har) return undefined;
  if (STATEFUL_FIELDS.some((f) => body[f] !== undefined)) return undefined;
  const shared = opts.share && Object.keys(body).every((f) => SHAREABLE_FIELDS.has(f)) && drivesPagesOnly(plan.steps, createStep!);
  const mode = shared ? 'shared' : 'own';
  return { key: JSON.stringify([mode, sorted(body), sorted(connect.context ?? null)]), mode, body, ...(connect.context ? { context: connect.context } : {}) };
}

/**
 * Whether everything else the scenario does stays inside its pages: no API call about its session (host
 * files and processes, input, replays, telemetry), no code handed the browser itself, no reference to the
 * session. Only then can its session be shared.
 */
function drivesPagesOnly(steps: PlanStep[], createStep: PlanStep): boolean {
  for (const step of flatten(steps)) {
    if (step === createStep) continue;
    for (const op of step.operations) {
      // Its own delete (not a pool's release) and the disconnect before it: a shared browser does those as the supply's.
      if (op.op === 'disconnect' || (op.op === 'release_browser' && !('pool' in op))) continue;
      if (!PAGE_ONLY_OPS.has(op.op)) return false;
      // Downloads are read back from the session's own folder, which earlier scenarios wrote into.
      if (op.op === 'page' && op.action === 'wait_for_download') return false;
      if (JSON.stringify(op).includes('{{ session.')) return false;
    }
  }
  return true;
}

const PAGE_ONLY_OPS = new Set<Operation['op']>(['page', 'serve', 'serve_stop', 'web_server', 'web_server_stop', 'secrets', 'expect_value']);

function flatten(steps: PlanStep[]): PlanStep[] {
  return steps.flatMap((step) => {
    const block = step.block;
    const inner = !block ? [] : block.type === 'if' ? [...block.then, ...block.else] : block.steps;
    return [step, ...flatten(inner)];
  });
}

function hasTemplate(value: unknown): boolean {
  return value !== undefined && JSON.stringify(value).includes('{{');
}

/** JSON with object keys in order, so equal bodies written in another order share a key. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sorted(v)]));
  return value;
}
