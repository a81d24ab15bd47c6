// What a finished run adds up to, shared by the console summary and the HTML report's header.
import { RETRIED_AWAY, summarize, type RunResult, type ScenarioResult, type StepResult } from './results.js';

export interface RunStats {
  total: number;
  /** Passed on their first attempt. */
  passed: number;
  failed: number;
  /** Passed on a retry after failing before. */
  flaky: number;
  /** Planned but never run (the run was interrupted or stopped early). */
  skipped: number;
  errored: number;
  timedOut: number;
  interrupted: number;
  /** The scenarios' durations (every attempt) added up: above the run's wall time when they ran at once. */
  scenarioMs: number;
}

export function runStats(run: RunResult, planned = run.scenarios.length): RunStats {
  const s = run.scenarios;
  // The runner counts the scenarios it never started; a result without that count is judged by the plan.
  const notStarted = (run.summary as { skipped?: number } | undefined)?.skipped;
  const counts = summarize(s, notStarted ?? Math.max(0, planned - s.length));
  return {
    total: Math.max(planned, s.length),
    passed: counts.passed,
    failed: counts.failed,
    flaky: counts.flaky,
    skipped: counts.skipped,
    errored: counts.errored,
    timedOut: counts.timed_out,
    interrupted: s.filter((r) => r.interrupted).length,
    scenarioMs: s.reduce((sum, r) => sum + r.duration_ms + (r.previous_attempts ?? []).reduce((n, a) => n + a.duration_ms, 0), 0),
  };
}

export interface FailureRef {
  scenario: ScenarioResult;
  /** Absent when the scenario failed without a failing step (it ran out of time between steps). */
  step?: StepResult;
  kind: string;
  message: string;
  /** `file:line:col`. */
  location: string;
}

/** A failed step whose `retry` block then ran again: the block's later attempt decides, not this one. */
export function superseded(step: StepResult): boolean {
  return step.status === 'failed' && !step.continued && (step.note ?? '').endsWith(RETRIED_AWAY);
}

/** Whether a failed step counts against its scenario: not ignored (`continue_on_error`), not retried away. */
export function counts(step: StepResult): boolean {
  return step.status === 'failed' && step.continued !== 'ignored' && !superseded(step);
}

/** The failures that made scenarios fail, in run order; failures the scenario ignored or retried away do not count. */
export function failuresOf(run: RunResult): FailureRef[] {
  const out: FailureRef[] = [];
  for (const scenario of run.scenarios) {
    if (scenario.status === 'passed') continue;
    const steps = scenario.steps.filter((s) => counts(s) && s.error);
    for (const step of steps) out.push({ scenario, step, kind: step.error!.kind, message: step.error!.message, location: step.error!.location });
    if (!steps.length) {
      out.push({ scenario, kind: scenario.timed_out ? 'timeout' : 'failed', message: scenario.timed_out ? 'the scenario ran out of its time' : 'the scenario failed', location: scenario.file });
    }
  }
  return out;
}
