// Reporters observe a run. Each hook is optional; `combine` fans one run out to several reporters.
//
// With `--workers` above 1 the hooks of different scenarios interleave: a reporter keys what it tracks by
// the plan (or a result's file and name), never by "the current scenario".
import type { Plan, PlanStep } from '../../src/scenario/plan.js';
import type { RunResult, ScenarioResult, StepResult } from './results.js';

export interface RunTargetInfo {
  kind: 'embedded' | 'remote';
  base_url: string;
  /** For the embedded service: which Chromium it launches. */
  chromium?: string;
}

/** How the run is carried out, for reporters that present it differently when scenarios run at once. */
export interface RunInfo {
  /** How many scenarios run at once (`--workers`). */
  workers?: number;
  /** How many times a failed scenario is run again (`--retries`). */
  retries?: number;
  /** What the run was cut from: what a report merged from the shards of one run needs (`--reporter blob`). */
  suite?: SuiteInfo;
}

/** A scenario as plans and results name it: its file (as the run was given it) and its name. */
export interface ScenarioRef {
  file: string;
  name: string;
}

export interface SuiteInfo {
  /** Every selected scenario before `--shard` cuts the selection, in the order an unsharded run reports them. */
  selection: ScenarioRef[];
  /** The suite's `before`/`after` hooks: every shard runs them. */
  before: ScenarioRef[];
  after: ScenarioRef[];
}

export interface RunReporter {
  /** Names the reporter in error messages (`list`, `json`, `junit`, `html`, `blob`). */
  name?: string;
  /** The report files it writes, so the run's summary can say where they are. */
  files?: string[];
  runStarted?(target: RunTargetInfo, plans: Plan[], info?: RunInfo): void;
  scenarioStarted?(plan: Plan): void;
  /** `name` is the step's name with its run-time templates resolved. */
  stepStarted?(plan: Plan, step: PlanStep, name: string): void;
  stepFinished?(plan: Plan, result: StepResult): void;
  /** The scenario has a browser session now (after the step that created, leased or was handed it). */
  sessionOpened?(plan: Plan, session: { session_id: string; live_view_url?: string }): void;
  /**
   * A running step says what it is waiting for (a login waiting for a person). `status` is short, for the
   * step's live line; `detail`, when given, is said once in full (a URL a person must open, which a line cut
   * to the terminal's width would lose).
   */
  stepProgress?(plan: Plan, step: PlanStep, status: string, detail?: string): void;
  /**
   * An attempt failed and `--retries` runs the scenario again. The next attempt's hooks follow, from
   * `scenarioStarted` on; `scenarioFinished` comes once, with the last attempt (the earlier ones are in its
   * `previous_attempts`).
   */
  scenarioRetrying?(plan: Plan, failed: ScenarioResult, nextAttempt: number): void;
  /** `plan` is the one `scenarioStarted` had, when the runner passes it. */
  scenarioFinished?(result: ScenarioResult, plan?: Plan): void;
  runFinished?(result: RunResult): Promise<void> | void;
  /**
   * The run had nothing to run (an empty shard, nothing failed last time): the only hook it calls. A shard
   * still says it was there, or a merge of the shards could not tell it from a lost one.
   */
  runEmpty?(info: RunInfo, reason: string): Promise<void> | void;
  /**
   * A line for people (a retry, a cap, a skipped scenario). The list reporter prints it in its place: a
   * line written to the terminal behind its back would break the live tree's redraw.
   */
  notice?(message: string): void;
}

export type ReporterHooks = Required<Omit<RunReporter, 'name' | 'files'>>;

/**
 * One reporter made of several. A hook that throws is kept from the others and from the run (an exception
 * inside the executor would skip the teardown that releases browsers); every reporter still gets
 * `runFinished`, and then the run fails with what went wrong.
 */
export function combine(reporters: RunReporter[]): ReporterHooks {
  const problems: string[] = [];
  const each = (call: (r: RunReporter) => void) => {
    for (const r of reporters) {
      try {
        call(r);
      } catch (err) {
        problems.push(`${r.name ?? 'a'} reporter: ${(err as Error).message}`);
      }
    }
  };
  return {
    runStarted: (t, p, i) => each((r) => r.runStarted?.(t, p, i)),
    scenarioStarted: (p) => each((r) => r.scenarioStarted?.(p)),
    stepStarted: (p, s, n) => each((r) => r.stepStarted?.(p, s, n)),
    stepFinished: (p, s) => each((r) => r.stepFinished?.(p, s)),
    sessionOpened: (p, s) => each((r) => r.sessionOpened?.(p, s)),
    stepProgress: (p, s, t, d) => each((r) => r.stepProgress?.(p, s, t, d)),
    scenarioRetrying: (p, f, n) => each((r) => r.scenarioRetrying?.(p, f, n)),
    scenarioFinished: (s, p) => each((r) => r.scenarioFinished?.(s, p)),
    notice: (m) => each((r) => r.notice?.(m)),
    runFinished: (run) => finishAll((r) => r.runFinished?.(run)),
    runEmpty: (info, reason) => finishAll((r) => r.runEmpty?.(info, reason)),
  };
  async function finishAll(call: (r: RunReporter) => Promise<void> | void): Promise<void> {
    for (const r of reporters) {
      try {
        await call(r);
      } catch (err) {
        problems.push(`${r.name ?? 'a'} reporter: ${(err as Error).message}`);
      }
    }
    if (problems.length) throw new ReporterError(problems);
  }
}

/** One or more reporters failed (a report could not be written). */
export class ReporterError extends Error {
  override name = 'ReporterError';
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}
