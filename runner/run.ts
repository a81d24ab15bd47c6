// One `bcs run`: compile every scenario first (an invalid file stops everything before any browser
// starts), open the target, execute each plan, report, and close the target whatever happened.
import { ScenarioError, loadScenario, type CompiledScenario, type Diagnostic } from '../src/scenario/index.js';
import { executePlan } from './execute.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { findScenarioFiles } from './files.js';
import { combine, type RunReporter } from './reporter.js';
import type { RunResult, ScenarioResult } from './results.js';
import { TargetError, openTarget, type TargetOptions } from './target.js';

export interface RunOptions extends TargetOptions {
  paths: string[];
  vars?: Record<string, string>;
  outputDir: string;
  reporters: RunReporter[];
  signal: AbortSignal;
}

export type RunOutcome =
  | { kind: 'invalid'; exitCode: 2; diagnostics: Diagnostic[]; message?: string }
  | { kind: 'infrastructure'; exitCode: 3; message: string }
  | { kind: 'ran'; exitCode: number; result: RunResult };

export async function runScenarios(opts: RunOptions): Promise<RunOutcome> {
  let compiled: CompiledScenario[];
  try {
    compiled = await compileAll(await findScenarioFiles(opts.paths), opts.vars);
  } catch (err) {
    if (err instanceof ScenarioError) return { kind: 'invalid', exitCode: EXIT.invalid, diagnostics: err.diagnostics };
    return { kind: 'invalid', exitCode: EXIT.invalid, diagnostics: [], message: (err as Error).message };
  }
  const plans = compiled.map((c) => c.plan);
  if (plans.length === 0) return { kind: 'invalid', exitCode: EXIT.invalid, diagnostics: [], message: 'no scenario files found' };

  const reporter = combine(opts.reporters);
  const startedAt = new Date();
  let target;
  try {
    target = await openTarget(opts);
  } catch (err) {
    if (err instanceof TargetError) return { kind: 'infrastructure', exitCode: EXIT.infrastructure, message: err.message };
    throw err;
  }
  const scenarios: ScenarioResult[] = [];
  try {
    reporter.runStarted(target.info, plans);
    for (const { plan, functions } of compiled) {
      if (opts.signal.aborted) break;
      reporter.scenarioStarted(plan);
      const result = await executePlan(plan, { client: target.client, outputDir: opts.outputDir, reporter, signal: opts.signal, functions });
      scenarios.push(result);
      reporter.scenarioFinished(result);
    }
  } finally {
    await target.close();
  }
  const result: RunResult = {
    version: 1,
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
    target: { kind: target.info.kind, base_url: target.info.base_url },
    scenarios,
    summary: {
      total: scenarios.length,
      passed: scenarios.filter((s) => s.status === 'passed').length,
      failed: scenarios.filter((s) => s.status === 'failed').length,
      errored: scenarios.filter((s) => s.status === 'error').length,
    },
  };
  await reporter.runFinished(result);
  return { kind: 'ran', exitCode: opts.signal.aborted ? EXIT.interrupted : exitCodeFor(scenarios), result };
}

/** Compiles every file, collecting the diagnostics of all of them before giving up. */
export async function compileAll(files: string[], vars?: Record<string, string>): Promise<CompiledScenario[]> {
  const plans: CompiledScenario[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    try {
      plans.push(await loadScenario(file, { vars }));
    } catch (err) {
      if (!(err instanceof ScenarioError)) throw err;
      diagnostics.push(...err.diagnostics);
    }
  }
  if (diagnostics.length) throw new ScenarioError(diagnostics);
  return plans;
}
