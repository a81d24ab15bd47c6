// What a run reports: one result per plan step, grouped by scenario. This is the JSON reporter's schema.
import type { SourceLocation, StepPhase } from '../../src/scenario/plan.js';

export type StepStatus = 'passed' | 'failed' | 'skipped';

/** `assertion`: an expectation did not hold; `step`: a page action failed; `infrastructure`: the service,
 *  browser or network failed; `timeout`: the step ran out of time; `interrupted`: Ctrl-C. */
export type FailureKind = 'assertion' | 'step' | 'infrastructure' | 'timeout' | 'interrupted';

export interface StepError {
  kind: FailureKind;
  message: string;
  /** `file:line:col` of the step in the scenario file. */
  location: string;
}

export interface Artifact {
  /**
   * `screenshot`: a PNG of the page or the screen; `file`: a file read from the browser host (`save_to`) or
   * downloaded; `error_context`: the page's accessibility tree when a step that looked for an element
   * failed (Markdown, as Playwright Test's error-context.md).
   */
  type: 'screenshot' | 'file' | 'video' | 'error_context';
  /** Path relative to the output directory. */
  path: string;
}

export interface StepResult {
  index: number;
  phase: StepPhase;
  kind: string;
  name: string;
  source: SourceLocation;
  status: StepStatus;
  started_at?: string;
  duration_ms: number;
  error?: StepError;
  /** `x-request-id`s of the API calls this step made, to find them in the service's log. */
  request_ids: string[];
  artifacts: Artifact[];
  /** Where the step starts in the scenario's replay video (with `replay: { record: true }`). */
  replay_offset_ms?: number;
  /** Console errors and failed requests that happened while the step ran (with `telemetry`). */
  telemetry?: TelemetryNote[];
  /** Why a step was skipped (an earlier failure, nothing to release, a false `if`). */
  note?: string;
  /** How deep inside control blocks (`if`, `repeat`, `for_each`, `retry`, `include`) the step is; 0 or absent at the top. */
  depth?: number;
  /** Which pass of the enclosing `repeat`/`for_each` (1-based) or attempt of the enclosing `retry` block. */
  iteration?: number;
  /** How many times the step ran, when its own `retries` made it run more than once. */
  attempts?: number;
  /**
   * The step failed and the scenario went on: `soft` (an `expect_soft`; the scenario still fails at the
   * end) or `ignored` (`continue_on_error`; the scenario does not fail for it).
   */
  continued?: 'soft' | 'ignored';
  /** What the step got back: a function's return value (when JSON), or a host step's decoded answer (texts cut at 2,000 characters). */
  output?: unknown;
}

export interface TelemetryNote {
  /** The event type, e.g. `console_error`, `network_loading_failed`, `network_response`. */
  type: string;
  /** When it happened (ISO 8601). */
  at: string;
  message: string;
}

export type ScenarioStatus = 'passed' | 'failed' | 'error';

export interface ScenarioResult {
  name: string;
  file: string;
  tags: string[];
  /** `failed`: a step failed; `error`: the run could not get or keep its browser (infrastructure). */
  status: ScenarioStatus;
  interrupted: boolean;
  started_at: string;
  duration_ms: number;
  session_id?: string;
  /** The session's live view, when the target gives one: it opens while the session lasts. */
  live_view_url?: string;
  steps: StepResult[];
  /** The scenario's own folder under the output directory (relative to it), where its artifacts are. */
  artifact_dir: string;
  /** With `replay: { record: true }`: the video and its WebVTT markers (relative to the output directory), the markers themselves and the video's length. */
  replay?: ReplayResult;
  /** The scenario ran out of its `--timeout`: main steps were cut short, teardown still ran. */
  timed_out?: boolean;
  /** A Playwright trace of the scenario's pages (`trace:`), relative to the output directory: `bcs show-trace` opens it. */
  trace?: string;
  /** 1-based; above 1 when `--retries` re-ran a failed scenario. */
  attempt?: number;
  /** Passed on a retry after failing before. */
  flaky?: boolean;
  /** With `--repeat-each N` (N > 1): which repetition this is, 1-based. */
  repeat?: number;
  /** The earlier, failed attempts of this scenario, each with its own artifacts. */
  previous_attempts?: ScenarioResult[];
  /** One of the suite config's `before`/`after` scenarios (not a scenario-level hook step). */
  hook?: 'before' | 'after';
  /** `--keep-on-failure`: the browser the service keeps at the failing step, until `until`. */
  kept_session?: KeptSession;
}

/** A failed scenario's browser, kept by the service for someone to look at (POST /browsers/{id}/keep). */
export interface KeptSession {
  session_id: string;
  /** Its live view: the page as the failing step left it, with mouse and keyboard. */
  live_view_url?: string;
  /** When the service ends it, unless someone deletes it first. */
  until: string;
}

export interface ReplayResult {
  video: string;
  vtt?: string;
  /** One per step and per `marker` step, in the order they were placed; `offset_ms` from the start of the video. */
  markers?: { name: string; offset_ms: number }[];
  /** Who placed the markers: the target, or the runner where the target has no markers (the hosted API). */
  markers_by?: 'target' | 'runner';
  /** The video's length: the target's, or as the runner timed it from start to stop. */
  duration_ms?: number;
}

export interface RunResult {
  version: 1;
  started_at: string;
  duration_ms: number;
  target: {
    kind: 'embedded' | 'remote';
    base_url: string;
    /** What the run found the target lacks of what bcs adds to the hosted API, and what it did instead. */
    lacks?: { feature: string; instead: string }[];
  };
  scenarios: ScenarioResult[];
  /** See `summarize`: passed, flaky, failed and errored are disjoint and add up to `total`. */
  summary: RunSummary;
  /** With `--shard i/n`: which part of the selection this run was (1-based). */
  shard?: { index: number; total: number };
  /** Selected scenarios that never started: --bail, --max-failures, Ctrl-C, or a failed suite `before` hook. */
  skipped?: { name: string; file: string; reason: 'bail' | 'max failures' | 'interrupted' | 'before hook failed' | 'skip' | 'fixme'; note?: string }[];
}

export interface RunSummary {
  total: number;
  /** Passed on their first attempt. */
  passed: number;
  failed: number;
  errored: number;
  /** Passed on a retry after failing before (not counted in `passed`, as Playwright Test counts them). */
  flaky: number;
  /** Ran out of `--timeout` (also counted in `failed` or `errored`). */
  timed_out: number;
  /** Selected but never started (see `RunResult.skipped`). */
  skipped: number;
}

/** The one definition of a run's counts, for results.json and every reporter alike. */
export function summarize(scenarios: ScenarioResult[], skipped: number): RunSummary {
  return {
    total: scenarios.length,
    passed: scenarios.filter((s) => s.status === 'passed' && !s.flaky).length,
    failed: scenarios.filter((s) => s.status === 'failed').length,
    errored: scenarios.filter((s) => s.status === 'error').length,
    flaky: scenarios.filter((s) => s.status === 'passed' && s.flaky).length,
    timed_out: scenarios.filter((s) => s.timed_out).length,
    skipped,
  };
}

/**
 * How a failed step inside a `retry` block that then ran again is marked (in its `note`): the block's later
 * attempt decides, not this one. Written by runner/exec/blocks.ts, read by the reporters.
 */
export const RETRIED_AWAY = 'the block ran again';

export function locationOf(source: SourceLocation): string {
  return `${source.file}:${source.line}:${source.col}`;
}
