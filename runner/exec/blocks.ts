// Lists of steps and the blocks in them. A block reports its own result first, then its steps' results
// (depth + 1, the pass in `iteration`), all in one flat list in execution order; the block's result is
// completed (status, duration) when its last step is done. Steps that do not run are still reported, as
// skipped with the reason, so every step of the plan appears in the results.
import type { Block, PlanStep } from '../../src/scenario/plan.js';
import { evaluate, resolveItems, resolveTimes } from './conditions.js';
import { StepFailure, classify } from './failures.js';
import { sleep } from './page-actions.js';
import { RETRIED_AWAY, locationOf, type StepResult } from '../reporters/results.js';
import type { Frame, RunContext } from './run-context.js';
import { abortFailure, report, runLeaf, skippedResult, stepResult } from './run-step.js';

/** Runs steps in order until one fails (and is not let go on); returns that one. The rest are skipped. */
export async function runSequence(ctx: RunContext, steps: PlanStep[], frame: Frame): Promise<StepResult | undefined> {
  let failure: StepResult | undefined;
  for (const step of steps) {
    if (failure || frame.signal.aborted) {
      skipTree(ctx, step, frame, failure ? `skipped: step '${failure.name}' failed` : abortNote(ctx, frame.signal));
      continue;
    }
    const result = step.block ? await runBlock(ctx, step, step.block, frame) : await runLeaf(ctx, step, frame);
    if (result.status !== 'failed') continue;
    ctx.state.failed = true;
    if (!result.continued) failure = result;
  }
  return failure;
}

/** Reports a step that does not run, and everything inside it. */
export function skipTree(ctx: RunContext, step: PlanStep, frame: Frame, note: string): void {
  report(ctx, skippedResult(ctx, step, frame, note));
  const inner: Frame = { ...frame, depth: frame.depth + 1 };
  const b = step.block;
  if (!b) return;
  const children = b.type === 'if' ? [...b.then, ...b.else] : b.steps;
  // A loop that never ran has no pass to name.
  if (b.type !== 'if' && b.type !== 'include') delete inner.iteration;
  for (const child of children) skipTree(ctx, child, inner, note);
}

export function abortNote(ctx: RunContext, signal: AbortSignal): string {
  const why = abortFailure(ctx, signal);
  if (why.kind === 'interrupted') return 'skipped: interrupted';
  return why.message === 'the scenario ran out of its time (--timeout)' ? 'skipped: the scenario timed out' : `skipped: ${why.message}`;
}

async function runBlock(ctx: RunContext, step: PlanStep, block: Block, frame: Frame): Promise<StepResult> {
  const started = new Date();
  const name = ctx.displayName(step);
  const result = stepResult(step, frame, name, started);
  // In the list before its steps, though it is only complete (and reported) after them.
  ctx.state.results.push(result);
  ctx.running.add(result);
  ctx.started(step, name);
  const budget = blockBudget(step, frame.signal);
  const inner: Frame = { ...frame, depth: frame.depth + 1, signal: budget.signal };
  let failure: StepResult | undefined;
  try {
    failure = await runBody(ctx, block, result, inner);
  } catch (err) {
    // The block could not start (a condition on a value that is not there, items that are not a list).
    const why = frame.signal.aborted ? abortFailure(ctx, frame.signal) : classify(err, 'step');
    result.status = 'failed';
    result.error = { kind: why.kind, message: why.message, location: locationOf(step.source) };
    for (const child of childrenOf(block)) skipTree(ctx, child, inner, `skipped: ${step.kind} failed`);
  } finally {
    budget.dispose();
  }
  if (failure) {
    result.status = 'failed';
    const message = failure.error ? `step '${failure.name}' failed: ${failure.error.message}` : `step '${failure.name}' failed`;
    result.error = { kind: failure.error?.kind ?? 'step', message, location: locationOf(step.source) };
  }
  if (result.status === 'failed' && step.continue_on_error && result.error?.kind !== 'interrupted' && !frame.signal.aborted) {
    result.continued = 'ignored';
  }
  result.duration_ms = Date.now() - started.getTime();
  ctx.running.delete(result);
  ctx.finished(result);
  return result;
}

async function runBody(ctx: RunContext, block: Block, result: StepResult, inner: Frame): Promise<StepResult | undefined> {
  const scope = ctx.state.scope;
  switch (block.type) {
    case 'if': {
      const holds = evaluate(block.condition, { scope, lastStatus: (n) => ctx.lastStatus(n) });
      result.note = holds ? 'the condition held: ran then' : `the condition did not hold${block.else.length ? ': ran else' : ''}`;
      const note = `skipped: the if condition was ${holds ? 'true' : 'false'}`;
      // Reported in plan order: then before else, whichever ran.
      if (!holds) block.then.forEach((s) => skipTree(ctx, s, inner, note));
      const failure = await runSequence(ctx, holds ? block.then : block.else, inner);
      if (holds) block.else.forEach((s) => skipTree(ctx, s, inner, note));
      return failure;
    }
    case 'repeat': {
      const times = resolveTimes(block.times, scope);
      return loop(ctx, block.steps, inner, Array.from({ length: times }, (_, i) => i + 1), block.as, 'skipped: repeat 0 times');
    }
    case 'for_each':
      return loop(ctx, block.steps, inner, resolveItems(block.items, scope), block.as, 'skipped: no items');
    case 'retry':
      return retry(ctx, block, result, inner);
    case 'include':
      return runSequence(ctx, block.steps, inner);
  }
}

/**
 * Attempts until the steps pass, `attempts` run out or (toPass) the next one would begin after `timeout_ms`
 * from the first; the failures of attempts run again are superseded, not the scenario's.
 */
async function retry(ctx: RunContext, block: Extract<Block, { type: 'retry' }>, result: StepResult, inner: Frame): Promise<StepResult | undefined> {
  const deadline = block.timeout_ms !== undefined ? Date.now() + block.timeout_ms : undefined;
  const limit = block.attempts ?? Infinity;
  const of = block.attempts !== undefined ? ` of ${block.attempts}` : '';
  let failure: StepResult | undefined;
  let attempt = 0;
  while (attempt < limit) {
    attempt++;
    const first = ctx.state.results.length;
    failure = await runSequence(ctx, block.steps, { ...inner, iteration: attempt });
    const attemptResults = ctx.state.results.slice(first);
    // A soft failure is a failure too: the point of the block is steps that all pass.
    const failed = failure ?? attemptResults.find((r) => r.status === 'failed' && r.continued === 'soft');
    if (!failed || inner.signal.aborted || attempt >= limit) break;
    const pause = pauseAfter(block, attempt);
    if (deadline !== undefined && Date.now() + pause >= deadline) {
      result.note = `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}: its timeout of ${block.timeout_ms} ms passed`;
      break;
    }
    for (const r of attemptResults) {
      ctx.superseded.add(r);
      if (r.status === 'failed') r.note = `attempt ${attempt}${of} failed; ${RETRIED_AWAY}`;
    }
    if (pause) await sleep(pause, inner.signal).catch(() => {});
    if (inner.signal.aborted) break;
  }
  if (attempt > 1) result.attempts = attempt;
  return failure;
}

/** The pause after the n-th attempt: `intervals_ms[n - 1]`, the last repeating, else `delay_ms`. */
function pauseAfter(block: Extract<Block, { type: 'retry' }>, attempt: number): number {
  const intervals = block.intervals_ms;
  return intervals?.length ? intervals[Math.min(attempt, intervals.length) - 1]! : block.delay_ms;
}

/** One pass per value, with the loop variable set for the pass and put back as it was afterwards. */
async function loop(ctx: RunContext, steps: PlanStep[], inner: Frame, values: unknown[], as: string | undefined, none: string): Promise<StepResult | undefined> {
  if (values.length === 0) {
    steps.forEach((s) => skipTree(ctx, s, inner, none));
    return undefined;
  }
  const scope = ctx.state.scope;
  const had = as !== undefined && Object.hasOwn(scope, as);
  const before = as !== undefined ? scope[as] : undefined;
  try {
    for (const [i, value] of values.entries()) {
      if (as !== undefined) scope[as] = value;
      const failure = await runSequence(ctx, steps, { ...inner, iteration: i + 1 });
      if (failure || inner.signal.aborted) return failure;
    }
    return undefined;
  } finally {
    if (as !== undefined) {
      if (had) scope[as] = before;
      else delete scope[as];
    }
  }
}

/** A block's own `timeout` bounds all of its steps together; it stops the running one with that reason. */
function blockBudget(step: PlanStep, outer: AbortSignal): { signal: AbortSignal; dispose(): void } {
  if (step.timeout_ms <= 0) return { signal: outer, dispose: () => {} };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new StepFailure('timeout', `${step.kind} block timed out after ${step.timeout_ms} ms`)), step.timeout_ms);
  return { signal: AbortSignal.any([outer, controller.signal]), dispose: () => clearTimeout(timer) };
}

function childrenOf(block: Block): PlanStep[] {
  return block.type === 'if' ? [...block.then, ...block.else] : block.steps;
}
