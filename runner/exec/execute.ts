// Executes one Plan: setup steps until one fails, then the main steps (`before`, the steps, `after` even
// when a step failed), then every teardown step whatever happened before (failure, timeout, Ctrl-C), so
// acquired browsers and started servers are always released. Blocks run in blocks.ts, single steps in
// run-step.ts. Every result leaves through RunContext, which masks secrets before reporters see it.
import { join, relative } from 'node:path';
import type { Plan, PlanStep } from '../../src/scenario/plan.js';
import { runSequence, skipTree } from './blocks.js';
import type { Recording } from './replay-calls.js';
import type { ReplayResult, ScenarioResult, StepResult } from '../reporters/results.js';
import { RunContext, slug, type ExecuteDeps, type Frame } from './run-context.js';
import { NEVER_ABORTED, runLeaf } from './run-step.js';
import { keepFailedBrowser } from './keep-browser.js';

export { slug };

export async function executePlan(plan: Plan, given: ExecuteDeps): Promise<ScenarioResult> {
  const startedAt = new Date();
  // The budget starts once setup is done, as a Playwright Test timeout excludes the worker's browser
  // launch: how long a browser takes to create or lease says how busy the machine or pool is, not how
  // long the scenario took, and setup steps are bounded by their own timeouts.
  const budget = new AbortController();
  let deadline: NodeJS.Timeout | undefined;
  const startBudget = () => {
    if (given.timeoutMs === undefined) return;
    deadline = setTimeout(() => budget.abort(new DOMException(`the scenario's ${given.timeoutMs} ms budget ran out`, 'TimeoutError')), given.timeoutMs);
  };
  const deps: ExecuteDeps = given.timeoutMs !== undefined ? { ...given, signal: AbortSignal.any([given.signal, budget.signal]) } : given;
  const timedOut = () => budget.signal.aborted && !given.signal.aborted;
  const artifactDir = deps.artifactDir ?? join(deps.outputDir, slug(plan.scenario.name));
  const ctx = new RunContext(plan, deps, artifactDir, startedAt);
  try {
    return await executePhases(plan, ctx, { deps, given, startedAt, artifactDir, startBudget, timedOut });
  } finally {
    clearTimeout(deadline);
  }
}

interface Phases {
  /** With the scenario's budget folded into `signal`. */
  deps: ExecuteDeps;
  given: ExecuteDeps;
  startedAt: Date;
  artifactDir: string;
  startBudget: () => void;
  timedOut: () => boolean;
}

async function executePhases(plan: Plan, ctx: RunContext, { deps, given, startedAt, artifactDir, startBudget, timedOut }: Phases): Promise<ScenarioResult> {
  const { state } = ctx;
  let setupFailure: StepResult | undefined;
  for (const step of plan.steps.filter((s) => s.phase === 'setup')) {
    if (setupFailure || deps.signal.aborted) {
      skipTree(ctx, step, { depth: 0, signal: deps.signal }, skipNote(setupFailure, timedOut()));
      continue;
    }
    // A setup step acquires something (a session, a server): cutting it short would leave that acquired
    // with nothing here to release it. It finishes (bounded by its timeout); the interrupt then skips the
    // rest and teardown releases it.
    const result = await runLeaf(ctx, step, { depth: 0, signal: NEVER_ABORTED });
    if (result.status === 'failed') {
      setupFailure = result;
      state.failed = true;
    }
  }

  startBudget();
  const main = plan.steps.filter((s) => s.phase === 'main');
  const hooked = (hook: PlanStep['hook']) => main.filter((s) => s.hook === hook);
  const top: Frame = { depth: 0, signal: deps.signal };
  let failure = setupFailure;
  if (setupFailure || deps.signal.aborted) {
    for (const step of main) skipTree(ctx, step, top, skipNote(setupFailure, timedOut()));
  } else {
    failure = await runSequence(ctx, hooked('before'), top);
    if (failure) for (const step of hooked(undefined)) skipTree(ctx, step, top, skipNote(failure, false));
    else failure = await runSequence(ctx, hooked(undefined), top);
    // After hooks run whatever the steps did; only an interrupt or the scenario's deadline skips them.
    const afterFailure = await runSequence(ctx, hooked('after'), top);
    failure ??= afterFailure;
  }

  // Kept before teardown disconnects, where the failure left the page; not after Ctrl-C, which is no failure.
  const failedAt = failure ?? state.results.find((r) => r.continued === 'soft' && !ctx.superseded.has(r));
  if (deps.keep && failedAt && !given.signal.aborted) await keepFailedBrowser(ctx, deps.keep, failedAt);

  // Teardown ignores the abort signal: releasing what was acquired is exactly what Ctrl-C must still do.
  let teardownFailed = false;
  for (const step of plan.steps.filter((s) => s.phase === 'teardown')) {
    const result = await runLeaf(ctx, step, { depth: 0, signal: NEVER_ABORTED });
    if (result.status === 'failed') teardownFailed = true;
  }

  const results = state.results;
  const softFailed = results.some((r) => r.continued === 'soft' && !ctx.superseded.has(r));
  const failedAny = failure !== undefined || softFailed;
  const setupFailed = setupFailure !== undefined || failure?.error?.kind === 'infrastructure';
  const scenarioTimedOut = timedOut();
  const artifacts = results.flatMap((r) => r.artifacts);
  const video = artifacts.find((a) => a.type === 'video');
  const vtt = artifacts.find((a) => a.type === 'file' && a.path.endsWith('.vtt'));
  return ctx.mask({
    name: plan.scenario.name,
    file: plan.scenario.file,
    tags: plan.scenario.tags,
    // An interrupted scenario did not pass, even when no step got to fail.
    status: setupFailed || (!failedAny && teardownFailed) ? 'error' : failedAny || scenarioTimedOut || given.signal.aborted ? 'failed' : 'passed',
    interrupted: given.signal.aborted,
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
    session_id: state.scope.session?.session_id,
    ...(state.scope.session?.browser_live_view_url ? { live_view_url: state.scope.session.browser_live_view_url } : {}),
    steps: results,
    artifact_dir: relative(deps.outputDir, artifactDir) || '.',
    ...(video ? { replay: replayResult(video.path, vtt?.path, state.recording) } : {}),
    ...(scenarioTimedOut ? { timed_out: true } : {}),
    ...(state.trace ? { trace: state.trace } : {}),
    ...(state.kept ? { kept_session: state.kept } : {}),
  } satisfies ScenarioResult);
}

/** The recording as the report shows it: its files, and its markers and length as the runner knows them. */
function replayResult(video: string, vtt: string | undefined, recording: Recording | undefined): ReplayResult {
  const result: ReplayResult = { video, ...(vtt ? { vtt } : {}) };
  if (!recording) return result;
  result.markers = recording.markers.map(({ name, offset_ms }) => ({ name, offset_ms }));
  if (recording.markers.length) result.markers_by = recording.markers.some((m) => m.by === 'runner') ? 'runner' : 'target';
  if (recording.durationMs !== undefined) result.duration_ms = recording.durationMs;
  return result;
}

function skipNote(failure: StepResult | undefined, timedOut: boolean): string {
  return failure ? `skipped: step '${failure.name}' failed` : timedOut ? 'skipped: the scenario timed out' : 'skipped: interrupted';
}
