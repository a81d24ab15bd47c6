// Executes one Plan: setup and main steps in order until the first failure, then every teardown step,
// whatever happened before (failure, timeout, Ctrl-C), so acquired browsers are always released.
import { chromium, type Browser, type Page } from 'playwright-core';
import { join, relative } from 'node:path';
import type { CloudClient } from '../src/api/client.js';
import type { FunctionTable } from '../src/scenario/functions.js';
import type { Operation, Plan, PlanStep, PollCall } from '../src/scenario/plan.js';
import { resolveRuntime } from '../src/scenario/template.js';
import { runApiCall, runPoll } from './api-ops.js';
import { runFunction } from './functions.js';
import { attachTelemetry } from './telemetry.js';
import { StepFailure, classify } from './failures.js';
import { performPageAction } from './page-actions.js';
import type { RunReporter } from './reporter.js';
import { locationOf, type Artifact, type ScenarioResult, type StepResult } from './results.js';
import { serveFolder, type StaticServer } from './static-server.js';

export interface ExecuteDeps {
  client: CloudClient;
  outputDir: string;
  reporter: RunReporter;
  /** Aborted on Ctrl-C: the running step stops, later steps are skipped, teardown still runs. */
  signal: AbortSignal;
  /** The functions the plan's `function` operations name (TypeScript scenarios). */
  functions?: FunctionTable;
  /** This scenario's folder for artifacts; default `<outputDir>/<scenario name slug>`. */
  artifactDir?: string;
  /** The whole scenario's budget: when it runs out the running step stops, the rest is skipped, teardown runs. */
  timeoutMs?: number;
}

/** What steps acquire and later steps use. `scope` is what `{{ ... }}` templates resolve against. */
interface RunState {
  scope: { serve?: { url: string }; session?: { session_id: string; cdp_ws_url: string }; [name: string]: unknown };
  server?: StaticServer;
  browser?: Browser;
  page?: Page;
  /** Set once a step failed: a leased browser is then released for replacement, not reuse. */
  failed: boolean;
  /** The results so far, for attaching telemetry to the steps it happened in. */
  results: StepResult[];
}

interface StepWork {
  requestIds: string[];
  artifacts: Artifact[];
  replayOffsetMs?: number;
  output?: unknown;
}

const NEVER_ABORTED = new AbortController().signal;

export async function executePlan(plan: Plan, given: ExecuteDeps): Promise<ScenarioResult> {
  const startedAt = new Date();
  const scenarioDeadline = given.timeoutMs !== undefined ? AbortSignal.timeout(given.timeoutMs) : undefined;
  const deps: ExecuteDeps = scenarioDeadline ? { ...given, signal: AbortSignal.any([given.signal, scenarioDeadline]) } : given;
  const timedOut = () => scenarioDeadline?.aborted === true && !given.signal.aborted;
  const results: StepResult[] = [];
  const state: RunState = { scope: { run: { started_at: startedAt.toISOString() } }, failed: false, results };
  let failure: StepResult | undefined;

  for (const step of plan.steps.filter((s) => s.phase !== 'teardown')) {
    if (failure || deps.signal.aborted) {
      const why = failure ? `skipped: step '${failure.name}' failed` : timedOut() ? 'skipped: the scenario timed out' : 'skipped: interrupted';
      results.push(skipped(step, why));
      deps.reporter.stepFinished?.(plan, results.at(-1)!);
      continue;
    }
    // A setup step acquires something (a session): cutting it short would leave that acquired on the
    // service with nothing here to release it. It finishes (bounded by its timeout); the interrupt then
    // skips the rest and teardown releases it.
    const result = await runStep(plan, step, state, deps, step.phase === 'setup' ? NEVER_ABORTED : deps.signal);
    results.push(result);
    if (result.status === 'failed') {
      failure = result;
      state.failed = true;
    }
  }
  // Teardown ignores the abort signal: releasing what was acquired is exactly what Ctrl-C must still do.
  let teardownFailed = false;
  for (const step of plan.steps.filter((s) => s.phase === 'teardown')) {
    const result = await runStep(plan, step, state, deps, NEVER_ABORTED);
    results.push(result);
    if (result.status === 'failed') teardownFailed = true;
  }

  const setupFailed = failure?.phase === 'setup' || failure?.error?.kind === 'infrastructure';
  const scenarioTimedOut = timedOut();
  const artifacts = results.flatMap((r) => r.artifacts);
  const video = artifacts.find((a) => a.type === 'video');
  const vtt = artifacts.find((a) => a.type === 'file' && a.path.endsWith('.vtt'));
  return {
    name: plan.scenario.name,
    file: plan.scenario.file,
    tags: plan.scenario.tags,
    status: setupFailed || (!failure && teardownFailed) ? 'error' : failure || scenarioTimedOut ? 'failed' : 'passed',
    interrupted: given.signal.aborted,
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
    session_id: state.scope.session?.session_id,
    steps: results,
    artifact_dir: relative(deps.outputDir, artifactDirs(plan, deps).artifactDir) || '.',
    ...(video ? { replay: { video: video.path, ...(vtt ? { vtt: vtt.path } : {}) } } : {}),
    ...(scenarioTimedOut ? { timed_out: true } : {}),
  };
}

async function runStep(plan: Plan, step: PlanStep, state: RunState, deps: ExecuteDeps, signal: AbortSignal): Promise<StepResult> {
  // Teardown of something never acquired (no session, no server) has nothing to do.
  if (step.phase === 'teardown' && !canResolve(step.operations, state)) {
    const result = skipped(step, 'skipped: nothing to release');
    deps.reporter.stepFinished?.(plan, result);
    return result;
  }
  const started = new Date();
  const name = displayName(step, state);
  deps.reporter.stepStarted?.(plan, step, name);
  const work: StepWork = { requestIds: [], artifacts: [] };
  const result: StepResult = {
    index: step.index,
    phase: step.phase,
    kind: step.kind,
    name,
    source: step.source,
    status: 'passed',
    started_at: started.toISOString(),
    duration_ms: 0,
    request_ids: work.requestIds,
    artifacts: work.artifacts,
  };
  try {
    await withDeadline(step.timeout_ms, signal, (stepSignal) => runOperations(plan, step, state, deps, work, stepSignal));
  } catch (err) {
    const fallback = step.phase === 'main' ? 'step' : 'infrastructure';
    const failure = !signal.aborted
      ? classify(err, fallback)
      : deps.signal.reason instanceof DOMException && deps.signal.reason.name === 'TimeoutError'
        ? new StepFailure('timeout', 'the scenario ran out of its time (--timeout)')
        : new StepFailure('interrupted', 'interrupted');
    result.status = 'failed';
    result.error = { kind: failure.kind, message: failure.message, location: locationOf(step.source) };
  }
  if (work.replayOffsetMs !== undefined) result.replay_offset_ms = work.replayOffsetMs;
  if (work.output !== undefined) result.output = work.output;
  result.duration_ms = Date.now() - started.getTime();
  deps.reporter.stepFinished?.(plan, result);
  return result;
}

async function runOperations(plan: Plan, step: PlanStep, state: RunState, deps: ExecuteDeps, work: StepWork, signal: AbortSignal): Promise<void> {
  for (const raw of step.operations) {
    const op: Operation = resolveRuntime(raw, state.scope);
    await runOperation(op, plan, step, state, deps, work, signal);
  }
}

async function runOperation(
  op: Operation,
  plan: Plan,
  step: PlanStep,
  state: RunState,
  deps: ExecuteDeps,
  work: StepWork,
  signal: AbortSignal,
): Promise<void> {
  switch (op.op) {
    case 'serve':
      state.server = await serveFolder(op.dir);
      state.scope[op.save] = { url: state.server.url };
      return;
    case 'serve_stop':
      await state.server?.close();
      state.server = undefined;
      return;
    case 'api':
    case 'poll': {
      const { op: kind, ...call } = op;
      const ctx = { client: deps.client, scope: state.scope, step, signal, work, failed: state.failed, ...artifactDirs(plan, deps) };
      await (kind === 'api' ? runApiCall(call, ctx) : runPoll(call as PollCall, ctx));
      return;
    }
    case 'connect': {
      state.browser = await chromium.connectOverCDP(op.ws_url, { timeout: step.timeout_ms });
      const context = state.browser.contexts()[0] ?? (await state.browser.newContext());
      state.page = context.pages()[0] ?? (await context.newPage());
      return;
    }
    case 'disconnect':
      // Over CDP, close() only disconnects: the session lives on until the DELETE that follows.
      await state.browser?.close().catch(() => {});
      state.browser = undefined;
      state.page = undefined;
      return;
    case 'function': {
      const output = await runFunction(op, { functions: deps.functions ?? {}, browser: state.browser, page: state.page, scope: state.scope, signal });
      if (output !== undefined) work.output = output;
      return;
    }
    case 'attach_telemetry':
      await attachTelemetry(deps.client, op.path, op.query, state.results, signal);
      return;
    case 'page': {
      if (!state.page) throw new StepFailure('infrastructure', 'no page: the browser was not connected');
      const artifacts = await performPageAction(op, { page: state.page, timeoutMs: step.timeout_ms, signal, ...artifactDirs(plan, deps) });
      work.artifacts.push(...artifacts);
      return;
    }
  }
}

/**
 * Runs `work` with the step's deadline. Playwright gets the same timeout and usually reports first with a
 * better message; this timer is the backstop for everything else (API calls, hung connections).
 */
async function withDeadline(timeoutMs: number, outer: AbortSignal, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new StepFailure('timeout', `step timed out after ${timeoutMs} ms`);
      controller.abort(err);
      reject(err);
    }, timeoutMs + 1000);
  });
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  try {
    await Promise.race([work(controller.signal), deadline, aborted]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onAbort);
  }
}

function artifactDirs(plan: Plan, deps: ExecuteDeps): { artifactDir: string; outputRoot: string } {
  return { artifactDir: deps.artifactDir ?? join(deps.outputDir, slug(plan.scenario.name)), outputRoot: deps.outputDir };
}

function canResolve(ops: Operation[], state: RunState): boolean {
  if (ops.some((op) => op.op === 'serve_stop') && !state.server) return false;
  try {
    resolveRuntime(ops, state.scope);
    return true;
  } catch {
    return false;
  }
}

function displayName(step: PlanStep, state: RunState): string {
  try {
    return resolveRuntime(step.name, state.scope);
  } catch {
    return step.name;
  }
}

function skipped(step: PlanStep, note: string): StepResult {
  return {
    index: step.index,
    phase: step.phase,
    kind: step.kind,
    name: step.name,
    source: step.source,
    status: 'skipped',
    duration_ms: 0,
    request_ids: [],
    artifacts: [],
    note,
  };
}

export function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'scenario';
}
