// A finished run told again to reporters, hook by hook, as if it were running: how `bcs merge-reports`
// gives the reporters of one run (the step list among them) a run that happened on several machines.
import type { Plan } from '../../src/scenario/plan.js';
import type { ReporterHooks, RunInfo, RunTargetInfo } from './reporter.js';
import type { RunResult, ScenarioResult } from './results.js';

export async function replayRun(
  reporter: ReporterHooks,
  run: RunResult,
  target: RunTargetInfo,
  plans: Plan[],
  planOf: Map<ScenarioResult, Plan>,
  info: RunInfo,
): Promise<void> {
  reporter.runStarted(target, plans, info);
  for (const result of run.scenarios) {
    const plan = planOf.get(result);
    if (!plan) continue;
    // Earlier attempts first, each followed by the retry that came of it, as `--retries` reported them.
    const attempts = [...(result.previous_attempts ?? []), result];
    attempts.forEach((attempt, i) => {
      reporter.scenarioStarted(plan);
      for (const step of attempt.steps) reporter.stepFinished(plan, step);
      if (i < attempts.length - 1) reporter.scenarioRetrying(plan, attempt, i + 2);
    });
    reporter.scenarioFinished(result, plan);
  }
  await reporter.runFinished(run);
}
