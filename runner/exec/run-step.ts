// One step that is not a block: its operations under its deadline, again on failure while it has
// `retries`, then what its options make of the outcome (`expect_soft`, `continue_on_error`) and, for a
// failed main step, a screenshot of the page as it was.
import { join } from 'node:path';
import type { Operation, PlanStep } from '../../src/scenario/plan.js';
import { resolveRuntime } from '../../src/scenario/template.js';
import { StepFailure, classify } from './failures.js';
import { runOperation, type StepWork } from './operations.js';
import { screenshotPage, sleep } from './page-actions.js';
import { loadAxe } from './page-accessibility.js';
import { keepErrorContext, soughtTarget } from './error-context.js';
import { loadExpect } from './page-expect.js';
import { locationOf, type StepResult } from '../reporters/results.js';
import { inTraceGroup } from './trace.js';
import { slug, type Frame, type RunContext } from './run-context.js';

export const NEVER_ABORTED = new AbortController().signal;

const FAILURE_SCREENSHOT_TIMEOUT_MS = 5_000;

export async function runLeaf(ctx: RunContext, step: PlanStep, frame: Frame): Promise<StepResult> {
  // Teardown of something never acquired (no session, no server) has nothing to do.
  if (step.phase === 'teardown' && !canResolve(step.operations, ctx)) {
    return report(ctx, skippedResult(ctx, step, frame, 'skipped: nothing to release'));
  }
  const name = ctx.displayName(step);
  if (step.phase === 'main' && ctx.deps.pause && !frame.signal.aborted) {
    await ctx.deps.pause.before(ctx.plan.scenario.name, ctx.mask(name), `${step.source.file}:${step.source.line}:${step.source.col}`);
  }
  ctx.started(step, name);
  const attempts = 1 + (step.retries ?? 0);
  let result: StepResult;
  let attempt = 0;
  for (;;) {
    attempt++;
    result = await inTraceGroup(ctx, step, name, () => attemptStep(ctx, step, frame, name));
    if (result.status !== 'failed' || attempt >= attempts || frame.signal.aborted) break;
    if (step.retry_delay_ms) await sleep(step.retry_delay_ms, frame.signal).catch(() => {});
    if (frame.signal.aborted) break;
  }
  if (attempt > 1) {
    result.attempts = attempt;
    if (result.error) result.error.message += ` (after ${attempt} attempts)`;
  }
  if (result.status === 'failed') {
    const kind = result.error?.kind;
    const stopped = kind === 'interrupted' || frame.signal.aborted;
    if (step.continue_on_error && !stopped) result.continued = 'ignored';
    else if (kind === 'assertion' && (step.soft || result.continued === 'soft')) result.continued = 'soft';
    // Also when a deadline cut the step short (that is when the page is most worth seeing), not on Ctrl-C.
    if (step.phase === 'main' && kind !== 'interrupted') {
      await failureScreenshot(ctx, step, frame, result);
      await errorContext(ctx, step, frame, result);
    }
  }
  return report(ctx, result);
}

async function attemptStep(ctx: RunContext, step: PlanStep, frame: Frame, name: string): Promise<StepResult> {
  const started = new Date();
  const work: StepWork = { requestIds: [], artifacts: [], soft: [] };
  const result = stepResult(step, frame, name, started, { request_ids: work.requestIds, artifacts: work.artifacts });
  try {
    await librariesFor(step);
    const grace = step.operations.some((op) => op.op === 'page') ? BACKSTOP_GRACE_MS.page : BACKSTOP_GRACE_MS.other;
    await withDeadline(step.timeout_ms + grace, step.timeout_ms, frame.signal, async (signal) => {
      for (const raw of step.operations) {
        const op: Operation = resolveRuntime(raw, ctx.state.scope);
        await runOperation(op, ctx, step, frame, work, signal);
      }
    });
    if (work.soft.length) {
      result.status = 'failed';
      result.continued = 'soft';
      result.error = { kind: 'assertion', message: work.soft.join('; '), location: locationOf(step.source) };
    }
  } catch (err) {
    const failure = frame.signal.aborted ? abortFailure(ctx, frame.signal) : classify(err, step.phase === 'main' ? 'step' : 'infrastructure');
    result.status = 'failed';
    result.error = { kind: failure.kind, message: failure.message, location: locationOf(step.source) };
  }
  if (work.replayOffsetMs !== undefined) result.replay_offset_ms = work.replayOffsetMs;
  if (work.output !== undefined) result.output = work.output;
  result.duration_ms = Date.now() - started.getTime();
  return result;
}

/** Why a step stopped when its signal was aborted: an enclosing block's time, the scenario's, or Ctrl-C. */
export function abortFailure(ctx: RunContext, signal: AbortSignal): StepFailure {
  if (signal.reason instanceof StepFailure) return signal.reason;
  return ctx.deps.signal.reason instanceof DOMException && ctx.deps.signal.reason.name === 'TimeoutError'
    ? new StepFailure('timeout', 'the scenario ran out of its time (--timeout)')
    : new StepFailure('interrupted', 'interrupted');
}

/** The page as the failure left it, next to the step's other artifacts. */
async function failureScreenshot(ctx: RunContext, step: PlanStep, frame: Frame, result: StepResult): Promise<void> {
  const page = ctx.state.page;
  if (!page || ctx.plan.screenshot_on_failure === false || page.isClosed()) return;
  // Named after the masked name, so no secret reaches a file name.
  const file = join(ctx.artifactDir, `failure-${failureName(ctx, step, frame, result)}.png`);
  const artifact = await screenshotPage(page, file, ctx.deps.outputDir, FAILURE_SCREENSHOT_TIMEOUT_MS).catch(() => undefined);
  if (artifact) result.artifacts.push(artifact);
}

/** The page's accessibility tree when a step that looked for an element failed (missing, several, other). */
async function errorContext(ctx: RunContext, step: PlanStep, frame: Frame, result: StepResult): Promise<void> {
  const page = ctx.state.page;
  const target = soughtTarget(step);
  if (!page || page.isClosed() || !result.error || !target) return;
  const file = join(ctx.artifactDir, `error-context-${failureName(ctx, step, frame, result)}.md`);
  const artifact = await keepErrorContext(page, target, file, ctx.deps.outputDir, result.error.message, (text) => ctx.mask(text)).catch(() => undefined);
  if (artifact) result.artifacts.push(artifact);
}

/** `4-click-save`, `4-2-click-save` in a loop's second pass: numbered as `bcs plan` numbers steps, named after the masked name. */
function failureName(ctx: RunContext, step: PlanStep, frame: Frame, result: StepResult): string {
  const pass = frame.iteration !== undefined ? `-${frame.iteration}` : '';
  return `${step.index + 1}${pass}-${slug(ctx.mask(result.name))}`;
}

/**
 * The libraries a step's page operations load on first use, loaded before its deadline starts: loading one
 * takes half a second or more on a busy machine, which is not the step's time to fail in.
 */
function librariesFor(step: PlanStep): Promise<unknown> {
  const actions = new Set(step.operations.map((op) => (op.op === 'page' ? op.action : undefined)));
  return Promise.all([actions.has('expect') && loadExpect(), actions.has('expect_accessible') && loadAxe()]);
}

/**
 * How long past its own timeout a step may take before the backstop cuts it. A page step's Playwright call
 * gets the step's timeout and reports with a better message (an expectation's "expected … received …"), but
 * on a busy machine that report comes late: a second was seen to be too short for a 200 ms expectation.
 */
const BACKSTOP_GRACE_MS = { page: 3000, other: 1000 };

/**
 * Runs `work` with the step's deadline. Playwright gets the same timeout and usually reports first with a
 * better message; this timer is the backstop for everything else (API calls, hung connections).
 */
async function withDeadline(cutAtMs: number, timeoutMs: number, outer: AbortSignal, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  if (outer.aborted) onAbort();
  else outer.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new StepFailure('timeout', `step timed out after ${timeoutMs} ms`);
      controller.abort(err);
      reject(err);
    }, cutAtMs);
  });
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  try {
    await Promise.race([work(controller.signal), deadline, aborted]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onAbort);
  }
}

function canResolve(ops: Operation[], ctx: RunContext): boolean {
  if (ops.some((op) => op.op === 'serve_stop') && !ctx.state.server) return false;
  if (ops.some((op) => op.op === 'web_server_stop') && !ctx.state.webServer) return false;
  if (ops.some((op) => op.op === 'release_browser') && !ctx.state.scope.session) return false;
  try {
    resolveRuntime(ops, ctx.state.scope);
    return true;
  } catch {
    return false;
  }
}

/** `depth` and `iteration` of a result, left out at the top so plain runs keep their shape. */
export function placement(frame: Frame): Pick<StepResult, 'depth' | 'iteration'> {
  return { ...(frame.depth > 0 ? { depth: frame.depth } : {}), ...(frame.iteration !== undefined ? { iteration: frame.iteration } : {}) };
}

/** A step's result as it starts (passed until something fails), or skipped with a note. */
export function stepResult(step: PlanStep, frame: Frame, name: string, started?: Date, lists?: Pick<StepResult, 'request_ids' | 'artifacts'>): StepResult {
  return {
    index: step.index,
    phase: step.phase,
    kind: step.kind,
    name,
    source: step.source,
    status: started ? 'passed' : 'skipped',
    ...(started ? { started_at: started.toISOString() } : {}),
    duration_ms: 0,
    request_ids: lists?.request_ids ?? [],
    artifacts: lists?.artifacts ?? [],
    ...placement(frame),
  };
}

export function skippedResult(ctx: RunContext, step: PlanStep, frame: Frame, note: string): StepResult {
  return { ...stepResult(step, frame, ctx.displayName(step)), note };
}

/** Records a finished result and tells the reporters. */
export function report(ctx: RunContext, result: StepResult): StepResult {
  ctx.state.results.push(result);
  ctx.finished(result);
  return result;
}
