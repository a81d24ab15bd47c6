// A scenario's history across runs, from its newest results: how often it passed, how often only on a retry
// (flaky), how long it took (p50/p95, overall and per UTC day) and where its last failure can be looked at.
import type { ScenarioHistory } from '../../../api/types.js';
import type { ArtifactRow, ResultPoint, ResultRow } from '../../store/runs-repo.js';
import type { StoredDetail, StoredStep } from './result-detail.js';

export type Failure = ResultRow<StoredDetail> & { branch: string | null; commit_sha: string | null };

/** Nearest-rank percentile of `sorted` (ascending); undefined for none. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (!sorted.length) return undefined;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

const rate = (n: number, of: number) => (of === 0 ? null : n / of);

/** `points` newest first, as the store gives them; the answer's series run oldest first. */
export function scenarioHistory(
  which: { suite: string; name: string },
  points: ResultPoint[],
  failure: { row: Failure; artifacts: ArtifactRow[]; url: (artifact: ArtifactRow) => string } | undefined,
): ScenarioHistory {
  const oldestFirst = [...points].reverse();
  const passed = points.filter((p) => p.status === 'passed').length;
  const flaky = points.filter((p) => p.status === 'passed' && p.flaky).length;
  const durations = (list: ResultPoint[]) => list.map((p) => p.duration_ms).sort((a, b) => a - b);
  const all = durations(points);
  const days = new Map<string, ResultPoint[]>();
  for (const p of oldestFirst) {
    const day = p.started_at.slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), p]);
  }
  return {
    suite: which.suite,
    name: which.name,
    results: points.length,
    passed,
    failed: points.filter((p) => p.status === 'failed').length,
    errored: points.filter((p) => p.status === 'error').length,
    flaky,
    pass_rate: rate(passed, points.length),
    flaky_rate: rate(flaky, points.length),
    duration_ms: { p50: percentile(all, 50) ?? null, p95: percentile(all, 95) ?? null },
    points: oldestFirst.map((p) => ({ run_id: p.run_id, result_id: p.id, started_at: p.started_at, status: p.status as 'passed', flaky: p.flaky, duration_ms: p.duration_ms })),
    by_day: [...days].map(([day, list]) => {
      const sorted = durations(list);
      return {
        day,
        results: list.length,
        passed: list.filter((p) => p.status === 'passed').length,
        flaky: list.filter((p) => p.status === 'passed' && p.flaky).length,
        p50: percentile(sorted, 50)!,
        p95: percentile(sorted, 95)!,
      };
    }),
    last_failure: failure ? lastFailure(failure.row, failure.artifacts, failure.url) : null,
  };
}

/** The step that failed the scenario: the first failed one that was not let go (`continue_on_error`). */
export function failingStep(steps: StoredStep[]): StoredStep | undefined {
  return steps.find((s) => s.status === 'failed' && s.continued !== 'ignored');
}

function lastFailure(row: Failure, artifacts: ArtifactRow[], url: (a: ArtifactRow) => string): NonNullable<ScenarioHistory['last_failure']> {
  const step = failingStep(row.detail.steps ?? []);
  // The last attempt's own artifacts: earlier attempts of a retried scenario failed in their own ways.
  const own = artifacts.filter((a) => a.attempt === row.attempt);
  const screenshots = own.filter((a) => a.kind === 'screenshot');
  const screenshot = screenshots.find((a) => step !== undefined && a.step_index === step.index) ?? screenshots.at(-1);
  const trace = own.find((a) => a.kind === 'trace');
  const video = own.find((a) => a.kind === 'video');
  return {
    run_id: row.run_id,
    result_id: row.id,
    started_at: row.started_at,
    status: row.status as 'failed',
    branch: row.branch,
    commit: row.commit_sha,
    step: step ? { index: step.index, name: step.name, kind: step.kind, ...(step.location ? { location: step.location } : {}) } : null,
    message: step?.error?.message ?? null,
    screenshot_url: screenshot ? url(screenshot) : null,
    trace_url: trace ? url(trace) : null,
    replay: video ? { video_url: url(video), offset_ms: step?.replay_offset_ms ?? null } : null,
  };
}
