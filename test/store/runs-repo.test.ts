// RunsRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { RunsRepo, type ArtifactRow, type ResultRow, type RunRow } from '../../src/service/store/runs-repo.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const run = (id: string, over: Partial<RunRow> = {}): RunRow => ({
  id,
  project_id: null,
  suite: 'shop',
  branch: 'main',
  commit_sha: 'abc123',
  tags: ['nightly'],
  run_trigger: 'ci',
  shard_index: null,
  shard_total: null,
  status: 'running',
  summary: null,
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  run_key: null,
  request_hash: null,
  active_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

const result = (id: string, runId: string, over: Partial<ResultRow> = {}): ResultRow => ({
  id,
  run_id: runId,
  project_id: null,
  suite: 'shop',
  name: 'checkout',
  file: 'checkout.yaml',
  status: 'passed',
  flaky: false,
  attempt: 1,
  started_at: '2026-01-01T00:00:01.000Z',
  duration_ms: 1200,
  detail: { steps: [{ index: 0, name: 'open', status: 'passed' }] },
  result_key: null,
  request_hash: null,
  ...over,
});

/** When results are added in these tests: the run's activity moves to it. */
const ADDED_AT = '2026-01-01T00:00:05.000Z';

const artifact = (id: string, runId: string, resultId: string): ArtifactRow => ({
  id,
  run_id: runId,
  result_id: resultId,
  kind: 'screenshot',
  name: 'checkout/failure.png',
  step_index: 2,
  attempt: 1,
  content_type: 'image/png',
  size_bytes: 42,
  checksum: 'ff',
  created_at: '2026-01-01T00:00:02.000Z',
});

describeStores('RunsRepo', (open) => {
  it('keeps a run, its tags and summary as given, and finishes it once', async () => {
    const repo = new RunsRepo(await open());
    await repo.insertRun(run('r1', { tags: ['nightly', 'smoke'], shard_index: 2, shard_total: 3 }));
    expect(await repo.getRun('r1')).toEqual(run('r1', { tags: ['nightly', 'smoke'], shard_index: 2, shard_total: 3 }));
    const summary = { total: 2, passed: 1, failed: 1, errored: 0, flaky: 0 };
    expect(await repo.finishRun('r1', { status: 'failed', summary, finished_at: '2026-01-01T00:01:00.000Z' }, '2026-01-01T00:01:01.000Z')).toBe(true);
    expect(await repo.finishRun('r1', { status: 'passed', summary: null, finished_at: '2026-01-01T00:02:00.000Z' }, '2026-01-01T00:02:01.000Z')).toBe(false);
    // The end counts as the run's last activity, at the service's time.
    expect(await repo.getRun('r1')).toMatchObject({ status: 'failed', summary, finished_at: '2026-01-01T00:01:00.000Z', active_at: '2026-01-01T00:01:01.000Z' });
    await expect(repo.insertRun(run('r1'))).rejects.toBeInstanceOf(UniqueViolation);
    expect(await repo.getRun('nope')).toBeUndefined();
  });

  it('lists newest first within the project, filtered by suite, branch, tag, status and trigger, paged', async () => {
    const repo = new RunsRepo(await open());
    await repo.insertRun(run('a', { started_at: '2026-01-01T00:00:00.000Z' }));
    await repo.insertRun(run('b', { started_at: '2026-01-02T00:00:00.000Z', branch: 'feature', tags: ['smoke'] }));
    await repo.insertRun(run('c', { started_at: '2026-01-03T00:00:00.000Z', suite: 'admin', run_trigger: 'schedule', tags: [] }));
    await repo.insertRun(run('d', { started_at: '2026-01-04T00:00:00.000Z', project_id: 'p1' }));
    await repo.finishRun('a', { status: 'passed', summary: null, finished_at: '2026-01-01T00:01:00.000Z' }, '2026-01-01T00:01:00.000Z');
    const ids = async (q: Partial<Parameters<RunsRepo['listRuns']>[0]>) =>
      (await repo.listRuns({ projectId: null, offset: 0, limit: 10, ...q })).rows.map((r) => r.id);
    expect(await ids({})).toEqual(['c', 'b', 'a']);
    expect(await ids({ suite: 'shop' })).toEqual(['b', 'a']);
    expect(await ids({ branch: 'feature' })).toEqual(['b']);
    expect(await ids({ tag: 'nightly' })).toEqual(['a']);
    expect(await ids({ tag: 'night' })).toEqual([]);
    expect(await ids({ status: 'running' })).toEqual(['c', 'b']);
    expect(await ids({ trigger: 'schedule' })).toEqual(['c']);
    expect(await ids({ projectId: 'p1' })).toEqual(['d']);
    const first = await repo.listRuns({ projectId: null, offset: 0, limit: 2 });
    expect(first.hasMore).toBe(true);
    const second = await repo.listRuns({ projectId: null, offset: 2, limit: 2 });
    expect([second.rows.map((r) => r.id), second.hasMore]).toEqual([['a'], false]);
  });

  it("keeps a run's results with their detail in the order added, and their artifacts", async () => {
    const repo = new RunsRepo(await open());
    await repo.insertRun(run('r1'));
    await repo.insertResult(result('x2', 'r1', { name: 'b', flaky: true, attempt: 2 }), ADDED_AT);
    await repo.insertResult(result('x1', 'r1', { name: 'a', status: 'failed' }), ADDED_AT);
    expect((await repo.resultsOf('r1')).map((r) => [r.id, r.status, r.flaky, r.attempt])).toEqual([
      ['x2', 'passed', true, 2],
      ['x1', 'failed', false, 1],
    ]);
    expect(await repo.getResult('x1')).toEqual(result('x1', 'r1', { name: 'a', status: 'failed' }));
    await repo.insertArtifact(artifact('f1', 'r1', 'x1'));
    await repo.insertArtifact({ ...artifact('f2', 'r1', 'x1'), step_index: null, kind: 'trace', name: 'checkout/trace.zip' });
    expect(await repo.getArtifact('f1')).toEqual(artifact('f1', 'r1', 'x1'));
    expect((await repo.artifactsOfRun('r1')).map((a) => a.id)).toEqual(['f1', 'f2']);
    expect((await repo.artifactsOfResult('x2')).map((a) => a.id)).toEqual([]);
  });

  it("gives a scenario's newest results across runs, by branch and file, and its last failure with the run's commit", async () => {
    const repo = new RunsRepo(await open());
    await repo.insertRun(run('r1', { branch: 'main', commit_sha: 'c1' }));
    await repo.insertRun(run('r2', { branch: 'feature', commit_sha: 'c2' }));
    await repo.insertRun(run('r3', { branch: 'main', commit_sha: 'c3' }));
    await repo.insertResult(result('a', 'r1', { status: 'failed', started_at: '2026-01-01T00:00:00.000Z' }), ADDED_AT);
    await repo.insertResult(result('b', 'r2', { status: 'error', started_at: '2026-01-02T00:00:00.000Z' }), ADDED_AT);
    await repo.insertResult(result('c', 'r3', { started_at: '2026-01-03T00:00:00.000Z', flaky: true }), ADDED_AT);
    await repo.insertResult(result('d', 'r3', { name: 'other', status: 'failed', started_at: '2026-01-04T00:00:00.000Z' }), ADDED_AT);
    await repo.insertResult(result('e', 'r3', { file: 'elsewhere.yaml', started_at: '2026-01-03T00:00:01.000Z' }), ADDED_AT);
    const q = { projectId: null, suite: 'shop', name: 'checkout' };
    expect((await repo.scenarioPoints(q, 10)).map((p) => p.id)).toEqual(['e', 'c', 'b', 'a']);
    expect((await repo.scenarioPoints(q, 2)).map((p) => p.id)).toEqual(['e', 'c']);
    expect((await repo.scenarioPoints({ ...q, file: 'checkout.yaml' }, 10)).map((p) => p.id)).toEqual(['c', 'b', 'a']);
    expect((await repo.scenarioPoints({ ...q, branch: 'main' }, 10)).map((p) => [p.id, p.flaky])).toEqual([['e', false], ['c', true], ['a', false]]);
    expect((await repo.scenarioPoints({ ...q, suite: 'admin' }, 10))).toEqual([]);
    expect(await repo.lastFailure(q)).toMatchObject({ id: 'b', status: 'error', branch: 'feature', commit_sha: 'c2', detail: result('b', 'r2').detail });
    expect(await repo.lastFailure({ ...q, branch: 'main' })).toMatchObject({ id: 'a', commit_sha: 'c1' });
    expect(await repo.lastFailure({ ...q, projectId: 'p1' })).toBeUndefined();
  });

  it('finds a keyed run within its project and a keyed result within its run, and refuses a key used twice', async () => {
    const repo = new RunsRepo(await open());
    await repo.insertRun(run('r1', { run_key: 'k', request_hash: 'h1' }));
    // The same key in another project, and any number of runs without one.
    await repo.insertRun(run('r2', { run_key: 'k', project_id: 'p1' }));
    await repo.insertRun(run('r3'));
    await repo.insertRun(run('r4'));
    await expect(repo.insertRun(run('r5', { run_key: 'k' }))).rejects.toBeInstanceOf(UniqueViolation);
    expect(await repo.runByKey(null, 'k')).toMatchObject({ id: 'r1', request_hash: 'h1' });
    expect((await repo.runByKey('p1', 'k'))?.id).toBe('r2');
    expect(await repo.runByKey('p2', 'k')).toBeUndefined();

    await repo.insertResult(result('x1', 'r1', { result_key: 'a.yaml::a::1', request_hash: 'h' }), ADDED_AT);
    await repo.insertResult(result('x2', 'r3', { result_key: 'a.yaml::a::1' }), ADDED_AT);
    await repo.insertResult(result('x3', 'r1'), ADDED_AT);
    await repo.insertResult(result('x4', 'r1'), ADDED_AT);
    await expect(repo.insertResult(result('x5', 'r1', { result_key: 'a.yaml::a::1' }), ADDED_AT)).rejects.toBeInstanceOf(UniqueViolation);
    expect((await repo.resultsOf('r1')).map((r) => r.id)).toEqual(['x1', 'x3', 'x4']);
    expect(await repo.resultByKey('r1', 'a.yaml::a::1')).toEqual(result('x1', 'r1', { result_key: 'a.yaml::a::1', request_hash: 'h' }));
    expect((await repo.resultByKey('r3', 'a.yaml::a::1'))?.id).toBe('x2');
    expect(await repo.resultByKey('r4', 'a.yaml::a::1')).toBeUndefined();

    await repo.insertArtifact(artifact('f1', 'r1', 'x1'));
    await repo.insertArtifact(artifact('f2', 'r1', 'x3'));
    await expect(repo.insertArtifact(artifact('f3', 'r1', 'x1'))).rejects.toBeInstanceOf(UniqueViolation);
    expect((await repo.artifactNamed('x1', 'checkout/failure.png'))?.id).toBe('f1');
    expect(await repo.artifactNamed('x4', 'checkout/failure.png')).toBeUndefined();
  });

  it("moves a run's last activity with each result, artifact and end, and ends only runs still idle", async () => {
    const repo = new RunsRepo(await open());
    await repo.insertRun(run('quiet', { active_at: '2026-01-01T00:00:00.000Z' }));
    await repo.insertRun(run('busy', { active_at: '2026-01-01T00:00:00.000Z' }));
    await repo.insertRun(run('done', { active_at: '2026-01-01T00:00:00.000Z', status: 'passed' }));
    await repo.insertResult(result('q1', 'quiet', { status: 'failed' }), '2026-01-01T01:00:00.000Z');
    await repo.insertResult(result('q2', 'quiet', { flaky: true }), '2026-01-01T01:00:00.000Z');
    await repo.insertResult(result('q3', 'quiet', { name: 'other' }), '2026-01-01T01:00:00.000Z');
    await repo.insertResult(result('b1', 'busy'), '2026-01-01T02:00:00.000Z');
    await repo.insertArtifact({ ...artifact('a1', 'busy', 'b1'), created_at: '2026-01-01T05:00:00.000Z' });
    expect((await repo.getRun('quiet'))?.active_at).toBe('2026-01-01T01:00:00.000Z');
    expect((await repo.getRun('busy'))?.active_at).toBe('2026-01-01T05:00:00.000Z');

    expect(await repo.idleRuns('2026-01-01T06:00:00.000Z', 10)).toEqual([
      { id: 'quiet', active_at: '2026-01-01T01:00:00.000Z' },
      { id: 'busy', active_at: '2026-01-01T05:00:00.000Z' },
    ]);
    expect(await repo.idleRuns('2026-01-01T06:00:00.000Z', 1)).toEqual([{ id: 'quiet', active_at: '2026-01-01T01:00:00.000Z' }]);
    expect(await repo.idleRuns('2026-01-01T05:00:00.000Z', 10)).toEqual([{ id: 'quiet', active_at: '2026-01-01T01:00:00.000Z' }]);
    const counts = await repo.resultCounts(['quiet', 'busy', 'nothing']);
    const key = (c: { run_id: string; status: string; flaky: boolean; n: number }) => `${c.run_id} ${c.status} ${c.flaky} ${c.n}`;
    expect(counts.map(key).sort()).toEqual(['busy passed false 1', 'quiet failed false 1', 'quiet passed false 1', 'quiet passed true 1']);
    expect(await repo.resultCounts([])).toEqual([]);

    const end = { status: 'interrupted', summary: { total: 3, passed: 1, failed: 1, errored: 0, flaky: 1 }, finished_at: '2026-01-01T01:00:00.000Z' };
    // `busy` had activity after the cutoff: not ended.
    expect(await repo.endIdle('busy', '2026-01-01T04:00:00.000Z', end)).toBe(false);
    expect(await repo.endIdle('done', '2026-01-01T04:00:00.000Z', end)).toBe(false);
    expect(await repo.endIdle('quiet', '2026-01-01T04:00:00.000Z', end)).toBe(true);
    expect(await repo.getRun('quiet')).toMatchObject({ ...end, active_at: '2026-01-01T01:00:00.000Z' });
    expect(await repo.getRun('done')).toMatchObject({ status: 'passed', summary: null });
    expect((await repo.resultsOf('quiet')).map((r) => r.id)).toEqual(['q1', 'q2', 'q3']);
    expect(await repo.idleRuns('2026-01-01T06:00:00.000Z', 10)).toEqual([{ id: 'busy', active_at: '2026-01-01T05:00:00.000Z' }]);
  });

  it('gives runs past a cutoff oldest first, and deletes runs with their tags, results and artifacts', async () => {
    const repo = new RunsRepo(await open());
    await repo.insertRun(run('old', { active_at: '2026-01-01T00:00:00.000Z', tags: ['t'] }));
    await repo.insertRun(run('older', { active_at: '2025-12-01T00:00:00.000Z', status: 'failed' }));
    await repo.insertRun(run('new', { active_at: '2026-02-01T00:00:00.000Z', tags: ['t'] }));
    await repo.insertResult(result('o1', 'old'), '2026-01-01T00:00:00.000Z');
    await repo.insertArtifact({ ...artifact('oa', 'old', 'o1'), created_at: '2026-01-01T00:00:00.000Z' });
    await repo.insertResult(result('n1', 'new'), '2026-02-01T00:00:00.000Z');
    expect(await repo.expiredRuns('2026-01-15T00:00:00.000Z', 10)).toEqual(['older', 'old']);
    expect(await repo.expiredRuns('2026-01-15T00:00:00.000Z', 1)).toEqual(['older']);
    expect(await repo.expiredRuns('2025-01-01T00:00:00.000Z', 10)).toEqual([]);

    expect(await repo.deleteRuns(['old', 'older', 'never'])).toBe(2);
    expect(await repo.deleteRuns([])).toBe(0);
    expect(await repo.getRun('old')).toBeUndefined();
    expect(await repo.resultsOf('old')).toEqual([]);
    expect(await repo.getResult('o1')).toBeUndefined();
    expect(await repo.getArtifact('oa')).toBeUndefined();
    expect((await repo.listRuns({ projectId: null, tag: 't', offset: 0, limit: 10 })).rows.map((r) => r.id)).toEqual(['new']);
    expect((await repo.resultsOf('new')).map((r) => r.id)).toEqual(['n1']);
  });
});
