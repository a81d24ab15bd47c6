// Reporters observe a run. Each hook is optional; `combine` fans one run out to several reporters.
import type { Plan, PlanStep } from '../src/scenario/plan.js';
import type { RunResult, ScenarioResult, StepResult } from './results.js';

export interface RunTargetInfo {
  kind: 'embedded' | 'remote';
  base_url: string;
  /** For the embedded service: which Chromium it launches. */
  chromium?: string;
}

export interface RunReporter {
  runStarted?(target: RunTargetInfo, plans: Plan[]): void;
  scenarioStarted?(plan: Plan): void;
  /** `name` is the step's name with its run-time templates resolved. */
  stepStarted?(plan: Plan, step: PlanStep, name: string): void;
  stepFinished?(plan: Plan, result: StepResult): void;
  scenarioFinished?(result: ScenarioResult): void;
  runFinished?(result: RunResult): Promise<void> | void;
}

export function combine(reporters: RunReporter[]): Required<RunReporter> {
  return {
    runStarted: (t, p) => reporters.forEach((r) => r.runStarted?.(t, p)),
    scenarioStarted: (p) => reporters.forEach((r) => r.scenarioStarted?.(p)),
    stepStarted: (p, s, n) => reporters.forEach((r) => r.stepStarted?.(p, s, n)),
    stepFinished: (p, s) => reporters.forEach((r) => r.stepFinished?.(p, s)),
    scenarioFinished: (s) => reporters.forEach((r) => r.scenarioFinished?.(s)),
    runFinished: async (run) => {
      for (const r of reporters) await r.runFinished?.(run);
    },
  };
}
