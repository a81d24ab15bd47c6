// A scenario's history from its results: rates, nearest-rank percentiles, days, and which failure is named.
import { describe, expect, it } from 'vitest';
import { failingStep, percentile, scenarioHistory, type Failure } from '../../src/service/host/runs/run-history.js';
import type { ArtifactRow, ResultPoint } from '../../src/service/store/runs-repo.js';

const point = (id: string, status: string, duration_ms: number, started_at: string, flaky = false): ResultPoint => ({
  id, run_id: `run-${id}`, name: 's', file: 's.yaml', status, flaky, attempt: flaky ? 2 : 1, started_at, duration_ms,
});

const artifact = (id: string, kind: string, step_index: number | null, attempt = 1): ArtifactRow => ({
  id, run_id: 'r', result_id: 'x', kind, name: `${id}.bin`, step_index, attempt, content_type: 'application/octet-stream', size_bytes: 1, checksum: '', created_at: '',
});

describe('scenario history', () => {
  it('takes nearest-rank percentiles', () => {
    expect(percentile([], 50)).toBeUndefined();
    expect(percentile([7], 95)).toBe(7);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(hundred, 50), percentile(hundred, 95)]).toEqual([50, 95]);
    expect([percentile([1, 2, 3, 4], 50), percentile([1, 2, 3, 4], 95)]).toEqual([2, 4]);
  });

  it('counts passes (first try or retry), flaky ones and failures, oldest first, per UTC day', () => {
    const newestFirst = [
      point('d', 'error', 50, '2026-01-02T23:59:59.000Z'),
      point('c', 'passed', 300, '2026-01-02T00:00:00.000Z', true),
      point('b', 'failed', 200, '2026-01-01T12:00:00.000Z'),
      point('a', 'passed', 100, '2026-01-01T00:00:00.000Z'),
    ];
    const h = scenarioHistory({ suite: 'x', name: 's' }, newestFirst, undefined);
    expect(h).toMatchObject({ results: 4, passed: 2, failed: 1, errored: 1, flaky: 1, pass_rate: 0.5, flaky_rate: 0.25, duration_ms: { p50: 100, p95: 300 }, last_failure: null });
    expect(h.points.map((p) => p.result_id)).toEqual(['a', 'b', 'c', 'd']);
    expect(h.by_day).toEqual([
      { day: '2026-01-01', results: 2, passed: 1, flaky: 0, p50: 100, p95: 200 },
      { day: '2026-01-02', results: 2, passed: 1, flaky: 1, p50: 50, p95: 300 },
    ]);
  });

  it("names the failing step (not one let go) and that attempt's screenshot, trace and replay offset", () => {
    const steps = [
      { index: 0, phase: 'main', kind: 'click', name: 'optional', status: 'failed', duration_ms: 1, continued: 'ignored' },
      { index: 1, phase: 'main', kind: 'expect', name: 'title', status: 'failed', duration_ms: 1, error: { kind: 'assertion', message: 'nope' }, replay_offset_ms: 900 },
    ] as const;
    expect(failingStep(steps as never)?.index).toBe(1);
    const row = {
      id: 'x', run_id: 'r', project_id: null, suite: 'x', name: 's', file: 's.yaml', status: 'failed', flaky: false, attempt: 2, started_at: '2026-01-01T00:00:00.000Z', duration_ms: 1,
      detail: { steps }, branch: 'main', commit_sha: 'abc',
    } as unknown as Failure;
    const artifacts = [artifact('old', 'screenshot', 1, 1), artifact('other', 'screenshot', 0, 2), artifact('shot', 'screenshot', 1, 2), artifact('trace', 'trace', null, 2), artifact('video', 'video', null, 2)];
    const h = scenarioHistory({ suite: 'x', name: 's' }, [], { row, artifacts, url: (a) => `u/${a.id}` });
    expect(h.last_failure).toEqual({
      run_id: 'r', result_id: 'x', started_at: '2026-01-01T00:00:00.000Z', status: 'failed', branch: 'main', commit: 'abc',
      step: { index: 1, name: 'title', kind: 'expect' }, message: 'nope', screenshot_url: 'u/shot', trace_url: 'u/trace', replay: { video_url: 'u/video', offset_ms: 900 },
    });
  });
});
