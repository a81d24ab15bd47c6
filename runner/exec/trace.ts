// Playwright traces of a scenario's pages (`trace:`, `bcs run --trace`): recorded from the moment
// Playwright connects, each main step a named group, written as `trace.zip` beside the other artifacts
// when the mode says to keep it; `bcs show-trace` opens it in Playwright's trace viewer.
import { mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import type { PlanStep, TraceMode } from '../../src/scenario/plan.js';
import type { RunContext } from './run-context.js';

export const TRACE_FILE = 'trace.zip';

/** Whether this attempt records: `on` and `retain-on-failure` always, `on-first-retry` on attempt 2. */
function records(mode: TraceMode | undefined, attempt: number): boolean {
  return mode === 'on' || mode === 'retain-on-failure' || (mode === 'on-first-retry' && attempt === 2);
}

export async function startTrace(ctx: RunContext, context: BrowserContext): Promise<void> {
  const mode = ctx.deps.trace ?? ctx.plan.trace;
  if (!records(mode, ctx.deps.attempt ?? 1)) return;
  await context.tracing.start({ screenshots: true, snapshots: true, title: ctx.plan.scenario.name });
  ctx.state.tracing = { keepOnlyOnFailure: mode === 'retain-on-failure' };
}

/** Stops recording; keeps the file unless the scenario passed under `retain-on-failure`. */
export async function stopTrace(ctx: RunContext): Promise<void> {
  const tracing = ctx.state.tracing;
  const context = ctx.state.web?.context;
  if (!tracing || !context) return;
  ctx.state.tracing = undefined;
  const keep = !tracing.keepOnlyOnFailure || ctx.state.failed || ctx.state.results.some((r) => r.status === 'failed' && r.continued !== 'ignored');
  if (!keep) {
    await context.tracing.stop().catch(() => {});
    return;
  }
  const file = join(ctx.artifactDir, TRACE_FILE);
  await mkdir(ctx.artifactDir, { recursive: true });
  await context.tracing.stop({ path: file });
  ctx.state.trace = relative(ctx.deps.outputDir, file);
}

/** A main step's actions grouped under its name in the trace, as Playwright Test groups `test.step`. */
export async function inTraceGroup<T>(ctx: RunContext, step: PlanStep, name: string, work: () => Promise<T>): Promise<T> {
  const context = ctx.state.tracing && step.phase === 'main' ? ctx.state.web?.context : undefined;
  if (!context) return work();
  await context.tracing.group(ctx.mask(name)).catch(() => {});
  try {
    return await work();
  } finally {
    await context.tracing.groupEnd().catch(() => {});
  }
}
