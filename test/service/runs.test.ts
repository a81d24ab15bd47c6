// /runs over HTTP: a run made, given results and artifacts, finished; lists and filters; artifact bytes back as
// uploaded; a scenario's history across runs; project scoping; retried creates, results, uploads and finishes
// answered as the first time (or refused when they ask for something else); deleting a run with its files; and
// bad input refused with a clear 400. Idle runs and retention: runs-upkeep.test.ts.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date('2026-03-01T12:00:00.000Z') });
});
afterAll(async () => {
  await svc?.close();
});

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

const step = (index: number, status: 'passed' | 'failed', over: Record<string, unknown> = {}) => ({
  index,
  phase: 'main',
  kind: 'goto',
  name: `step ${index}`,
  status,
  duration_ms: 10,
  ...over,
});

async function newRun(over: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await svc.call('POST', '/runs', { body: { suite: 'shop', trigger: 'ci', started_at: '2026-02-01T10:00:00Z', ...over }, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string };
}

async function addResult(runId: string, body: Record<string, unknown>) {
  const res = await svc.call('POST', `/runs/${runId}/results`, {
    body: { name: 'checkout', file: 'checkout.yaml', status: 'passed', started_at: '2026-02-01T10:00:01Z', duration_ms: 100, steps: [step(0, 'passed')], ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string };
}

const filesOf = (runId: string) => readdir(join(svc.dataDir, 'runs', runId)).catch(() => 'none' as const);

async function upload(runId: string, resultId: string, query: string, bytes: Buffer) {
  const res = await fetch(`${svc.baseUrl}/runs/${runId}/results/${resultId}/artifacts?${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'text/html' },
    body: new Uint8Array(bytes),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('runs', () => {
  it('keeps a run, its results and artifacts, and finishes it once', async () => {
    const created = await svc.call('POST', '/runs', {
      body: { suite: 'shop', branch: 'main', commit: 'abc1234', tags: ['nightly'], trigger: 'ci', shard: { index: 1, total: 2 }, started_at: '2026-02-01T11:00:00+01:00' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      suite: 'shop', branch: 'main', commit: 'abc1234', tags: ['nightly'], trigger: 'ci', shard: { index: 1, total: 2 },
      status: 'running', summary: null, started_at: '2026-02-01T10:00:00.000Z', finished_at: null, created_at: '2026-03-01T12:00:00.000Z',
    });
    const runId = created.body.id as string;
    const failed = await addResult(runId, {
      status: 'failed',
      steps: [step(0, 'passed'), step(1, 'failed', { kind: 'expect', error: { kind: 'assertion', message: 'title was nope', location: 'checkout.yaml:3:5' }, artifacts: ['checkout/failure.png'] })],
    });
    const shot = await upload(runId, failed.id, 'kind=screenshot&name=checkout/failure.png&step_index=1', PNG);
    expect(shot.status, JSON.stringify(shot.body)).toBe(201);
    // The type comes from the name, never from what the uploader says.
    expect(shot.body).toMatchObject({ kind: 'screenshot', name: 'checkout/failure.png', step_index: 1, attempt: 1, content_type: 'image/png', size_bytes: PNG.length });
    const bytes = await fetch(shot.body.url, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('image/png');
    expect(bytes.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(PNG);

    const got = await svc.call('GET', `/runs/${runId}`);
    expect(got.status).toBe(200);
    expect(got.body.results).toHaveLength(1);
    expect(got.body.results[0]).toMatchObject({ id: failed.id, status: 'failed', flaky: false, attempt: 1, tags: [], previous_attempts: [] });
    expect(got.body.results[0].steps[1].error.message).toBe('title was nope');
    expect(got.body.results[0].artifacts.map((a: { id: string }) => a.id)).toEqual([shot.body.id]);

    const summary = { total: 1, passed: 0, failed: 1, errored: 0, flaky: 0 };
    const finished = await svc.call('POST', `/runs/${runId}/finish`, { body: { status: 'failed', summary, finished_at: '2026-02-01T10:05:00Z' } });
    expect(finished.status).toBe(200);
    expect(finished.body).toMatchObject({ status: 'failed', summary, finished_at: '2026-02-01T10:05:00.000Z' });
    const again = await svc.call('POST', `/runs/${runId}/finish`, { body: { status: 'passed' } });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('is finished');
    expect((await svc.call('POST', `/runs/${runId}/results`, { body: { name: 'x', file: 'x', status: 'passed', started_at: '2026-02-01T10:00:00Z', duration_ms: 1, steps: [] } })).status).toBe(409);
  });

  it('lists runs newest first, filtered and paged, and keeps each project to its own', async () => {
    const a = await newRun({ suite: 'lists', branch: 'main', tags: ['smoke'], started_at: '2026-02-02T00:00:00Z' });
    const b = await newRun({ suite: 'lists', branch: 'dev', trigger: 'schedule', started_at: '2026-02-03T00:00:00Z' });
    const list = async (query: string) => {
      const res = await svc.call('GET', `/runs?suite=lists&${query}`);
      expect(res.status).toBe(200);
      return { ids: res.body.map((r: { id: string }) => r.id), more: res.headers.get('x-has-more') };
    };
    expect(await list('')).toEqual({ ids: [b.id, a.id], more: 'false' });
    expect(await list('limit=1')).toEqual({ ids: [b.id], more: 'true' });
    expect(await list('branch=main')).toEqual({ ids: [a.id], more: 'false' });
    expect(await list('tag=smoke')).toEqual({ ids: [a.id], more: 'false' });
    expect(await list('trigger=schedule&status=running')).toEqual({ ids: [b.id], more: 'false' });
    const project = await svc.call('POST', '/org/projects', { body: { name: 'runs-elsewhere' } });
    const inProject = { 'x-kernel-project-id': project.body.id };
    expect((await svc.call('GET', `/runs/${a.id}`, { headers: inProject })).status).toBe(404);
    expect((await svc.call('GET', '/runs?suite=lists', { headers: inProject })).body).toEqual([]);
  });

  it("gives a scenario's pass and flaky rates, durations and its last failure with links", async () => {
    const suite = 'history';
    const r1 = await newRun({ suite, started_at: '2026-02-10T00:00:00Z' });
    const fail = await addResult(r1.id, {
      status: 'failed', started_at: '2026-02-10T00:00:01Z', duration_ms: 400,
      steps: [step(0, 'passed'), step(1, 'failed', { error: { kind: 'assertion', message: 'boom' }, replay_offset_ms: 1500 })],
    });
    await upload(r1.id, fail.id, 'kind=screenshot&name=h/first.png&step_index=0', PNG);
    const failShot = await upload(r1.id, fail.id, 'kind=screenshot&name=h/failure.png&step_index=1', PNG);
    const trace = await upload(r1.id, fail.id, 'kind=trace&name=h/trace.zip', Buffer.from('PK'));
    const video = await upload(r1.id, fail.id, 'kind=video&name=h/replay.mp4', Buffer.from('mp4'));
    const r2 = await newRun({ suite, started_at: '2026-02-11T00:00:00Z' });
    await addResult(r2.id, { status: 'passed', flaky: true, attempt: 2, started_at: '2026-02-11T00:00:01Z', duration_ms: 200 });
    await addResult(r2.id, { status: 'passed', started_at: '2026-02-11T00:00:02Z', duration_ms: 100 });
    await addResult(r2.id, { name: 'other', status: 'failed', started_at: '2026-02-11T00:00:03Z', duration_ms: 5 });

    const res = await svc.call('GET', `/runs/history?suite=${suite}&name=checkout`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      suite, name: 'checkout', results: 3, passed: 2, failed: 1, errored: 0, flaky: 1,
      duration_ms: { p50: 200, p95: 400 },
      by_day: [{ day: '2026-02-10', results: 1, passed: 0, flaky: 0, p50: 400, p95: 400 }, { day: '2026-02-11', results: 2, passed: 2, flaky: 1, p50: 100, p95: 200 }],
      last_failure: {
        run_id: r1.id, result_id: fail.id, status: 'failed', step: { index: 1, name: 'step 1', kind: 'goto' }, message: 'boom',
        screenshot_url: failShot.body.url, trace_url: trace.body.url, replay: { video_url: video.body.url, offset_ms: 1500 },
      },
    });
    expect(res.body.pass_rate).toBeCloseTo(2 / 3);
    expect(res.body.flaky_rate).toBeCloseTo(1 / 3);
    expect(res.body.points.map((p: { duration_ms: number }) => p.duration_ms)).toEqual([400, 200, 100]);
    const none = await svc.call('GET', `/runs/history?suite=${suite}&name=never`);
    expect(none.body).toMatchObject({ results: 0, pass_rate: null, flaky_rate: null, duration_ms: { p50: null, p95: null }, last_failure: null });
  });

  it('answers a retried create, result, upload and finish with what the first made, and refuses a key reused for something else', async () => {
    const body = { suite: 'retries', trigger: 'ci', started_at: '2026-02-05T00:00:00Z', key: 'ci-123-shard-1' };
    const first = await svc.call('POST', '/runs', { body });
    // The same fields in another order are the same request.
    const again = await svc.call('POST', '/runs', { body: { key: body.key, started_at: body.started_at, trigger: 'ci', suite: 'retries' } });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(first.body);
    expect(first.body.key).toBe('ci-123-shard-1');
    const other = await svc.call('POST', '/runs', { body: { ...body, branch: 'main' } });
    expect([other.status, other.body.message]).toEqual([409, `run key 'ci-123-shard-1' was already used for another run ('${first.body.id}'): a retry must send the same body, and a new run a new key`]);
    // Keys are the project's own: another project may use the same one.
    const project = await svc.call('POST', '/org/projects', { body: { name: 'runs-keys' } });
    const elsewhere = await svc.call('POST', '/runs', { body, headers: { 'x-kernel-project-id': project.body.id } });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.id).not.toBe(first.body.id);
    expect((await svc.call('GET', '/runs?suite=retries')).body).toHaveLength(1);

    const runId = first.body.id as string;
    const result = { name: 'checkout', file: 'checkout.yaml', key: 'checkout.yaml::checkout::1', status: 'failed', started_at: '2026-02-05T00:00:01Z', duration_ms: 5, steps: [step(0, 'failed')] };
    // Sent five times at once, as retries racing the first: one result, the same answer to each.
    const sent = await Promise.all(Array.from({ length: 5 }, () => svc.call('POST', `/runs/${runId}/results`, { body: result })));
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(sent.map((r) => r.body.id)).size).toBe(1);
    expect(sent[0]!.body.key).toBe(result.key);
    const changed = await svc.call('POST', `/runs/${runId}/results`, { body: { ...result, status: 'passed' } });
    expect([changed.status, changed.body.message]).toEqual([409, `result key '${result.key}' was already used for another result ('${sent[0]!.body.id}'): a retry must send the same body, and a new result a new key`]);
    const resultId = sent[0]!.body.id as string;

    const shot = await upload(runId, resultId, 'kind=screenshot&name=c/failure.png&step_index=0', PNG);
    const shotAgain = await upload(runId, resultId, 'kind=screenshot&name=c/failure.png&step_index=0', PNG);
    expect([shot.status, shotAgain.status]).toEqual([201, 200]);
    expect(shotAgain.body).toEqual(shot.body);
    const otherBytes = await upload(runId, resultId, 'kind=screenshot&name=c/failure.png&step_index=0', Buffer.from('not the same'));
    expect([otherBytes.status, otherBytes.body.message]).toEqual([409, expect.stringContaining("already has an artifact named 'c/failure.png'")]);
    expect(otherBytes.body.message).toContain('with other bytes');
    expect((await upload(runId, resultId, 'kind=screenshot&name=c/failure.png&step_index=1', PNG)).body.message).toContain('with another step_index');
    // Only the stored file is left: what the retries sent was written to be compared, then removed.
    expect(await filesOf(runId)).toEqual([shot.body.id]);

    const end = { status: 'failed', summary: { total: 1, passed: 0, failed: 1, errored: 0, flaky: 0 }, finished_at: '2026-02-05T00:01:00Z' };
    const finishes = await Promise.all([0, 1].map(() => svc.call('POST', `/runs/${runId}/finish`, { body: end })));
    expect(finishes.map((f) => f.status)).toEqual([200, 200]);
    expect(finishes[1]!.body).toEqual(finishes[0]!.body);
    // Without finished_at the first end's time stands; the summary's fields in any order.
    const noTime = await svc.call('POST', `/runs/${runId}/finish`, { body: { status: 'failed', summary: { flaky: 0, errored: 0, failed: 1, passed: 0, total: 1 } } });
    expect([noTime.status, noTime.body.finished_at]).toEqual([200, '2026-02-05T00:01:00.000Z']);
    for (const differs of [{ ...end, status: 'error' }, { ...end, summary: { ...end.summary, total: 2 } }, { ...end, finished_at: '2026-02-05T00:02:00Z' }, { status: 'failed' }]) {
      const res = await svc.call('POST', `/runs/${runId}/finish`, { body: differs });
      expect([res.status, res.body.message]).toEqual([409, expect.stringContaining(`run '${runId}' is finished (failed, summary {"total":1`)]);
      expect(res.body.message).toContain('finishing it again is answered only with the same status and summary');
    }
    // What the run took before its end is still answered; anything new is refused.
    expect((await svc.call('POST', `/runs/${runId}/results`, { body: result })).body.id).toBe(resultId);
    expect((await upload(runId, resultId, 'kind=screenshot&name=c/failure.png&step_index=0', PNG)).status).toBe(200);
    const late = await svc.call('POST', `/runs/${runId}/results`, { body: { ...result, key: 'late' } });
    expect([late.status, late.body.message]).toEqual([409, `run '${runId}' is finished (failed); it takes no more results or artifacts`]);
    expect((await upload(runId, resultId, 'kind=trace&name=c/trace.zip', Buffer.from('PK'))).status).toBe(409);
    const full = (await svc.call('GET', `/runs/${runId}`)).body;
    expect(full.results.map((r: { id: string; artifacts: unknown[] }) => [r.id, r.artifacts.length])).toEqual([[resultId, 1]]);
  });

  it('deletes a run with its results and artifact files, in its project only', async () => {
    const doomed = await newRun({ suite: 'deletes' });
    const kept = await newRun({ suite: 'deletes' });
    const r = await addResult(doomed.id, { status: 'failed' });
    const shot = await upload(doomed.id, r.id, 'kind=screenshot&name=d/failure.png', PNG);
    await upload(kept.id, (await addResult(kept.id, {})).id, 'kind=screenshot&name=d/kept.png', PNG);
    expect(await filesOf(doomed.id)).toEqual([shot.body.id]);
    const project = await svc.call('POST', '/org/projects', { body: { name: 'runs-deletes' } });
    const stranger = await svc.call('DELETE', `/runs/${doomed.id}`, { headers: { 'x-kernel-project-id': project.body.id } });
    expect([stranger.status, stranger.body.message]).toEqual([404, `run '${doomed.id}' not found`]);

    const deleted = await svc.call('DELETE', `/runs/${doomed.id}`);
    expect([deleted.status, deleted.body]).toEqual([204, undefined]);
    expect(await filesOf(doomed.id)).toBe('none');
    expect((await svc.call('GET', `/runs/${doomed.id}`)).status).toBe(404);
    expect((await fetch(shot.body.url, { headers: { authorization: `Bearer ${svc.apiKey}` } })).status).toBe(404);
    expect((await svc.call('DELETE', `/runs/${doomed.id}`)).status).toBe(404);
    expect((await svc.call('GET', '/runs?suite=deletes')).body.map((x: { id: string }) => x.id)).toEqual([kept.id]);
    expect((await svc.call('GET', `/runs/${kept.id}`)).body.results[0].artifacts).toHaveLength(1);
    expect(await filesOf(kept.id)).toHaveLength(1);
  });

  it('refuses bad input with a 400 that names the field', async () => {
    const bad = async (method: string, path: string, body?: unknown) => {
      const res = await svc.call(method, path, { body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(Object.keys(res.body).sort()).toEqual(['code', 'details', 'message']);
      return res.body.message as string;
    };
    expect(await bad('POST', '/runs', { trigger: 'ci', started_at: '2026-02-01T00:00:00Z' })).toContain('body.suite: is required');
    expect(await bad('POST', '/runs', { suite: 's', trigger: 'cron', started_at: '2026-02-01T00:00:00Z' })).toContain('body.trigger: must be one of "ci", "schedule", "manual"');
    expect(await bad('POST', '/runs', { suite: 's', trigger: 'ci', started_at: '2026-02-30T00:00:00Z' })).toContain('body.started_at: is not a real date and time');
    expect(await bad('POST', '/runs', { suite: 's', trigger: 'ci', started_at: 'yesterday' })).toContain('body.started_at');
    expect(await bad('POST', '/runs', { suite: 's', trigger: 'ci', started_at: '2026-02-01T00:00:00Z', shard: { index: 3, total: 2 } })).toContain('body.shard.index: must be at most shard.total (2)');
    expect(await bad('POST', '/runs', { suite: 's', trigger: 'ci', started_at: '2026-02-01T00:00:00Z', colour: 'red' })).toContain('body.colour: unknown field');
    expect(await bad('POST', '/runs', { suite: 's', trigger: 'ci', started_at: '2026-02-01T00:00:00Z', key: '' })).toContain('body.key');
    expect(await bad('POST', '/runs', { suite: 's', trigger: 'ci', started_at: '2026-02-01T00:00:00Z', key: 'k'.repeat(513) })).toContain('body.key');
    expect(await bad('GET', '/runs?status=done')).toContain('querystring.status: must be one of');
    expect(await bad('GET', '/runs?limit=0')).toContain('querystring.limit');
    expect(await bad('GET', '/runs/history?suite=s')).toContain('querystring.name: is required');
    const run = await newRun({ suite: 'bad-input' });
    expect(await bad('POST', `/runs/${run.id}/results`, { name: 'x', file: 'x', status: 'maybe', started_at: '2026-02-01T00:00:00Z', duration_ms: -1, steps: [] })).toMatch(
      /body\.status: must be one of .*body\.duration_ms/s,
    );
    expect(await bad('POST', `/runs/${run.id}/finish`, { status: 'running' })).toContain('body.status: must be one of');
    const result = await addResult(run.id, {});
    const wrongKind = await upload(run.id, result.id, 'kind=photo&name=x.png', PNG);
    expect([wrongKind.status, wrongKind.body.message]).toEqual([400, expect.stringContaining('querystring.kind: must be one of')]);
    expect((await upload(run.id, result.id, 'kind=screenshot', PNG)).body.message).toContain('querystring.name: is required');
    const elsewhere = await upload(run.id, 'nope', 'kind=screenshot&name=x.png', PNG);
    expect([elsewhere.status, elsewhere.body.message]).toEqual([404, "result 'nope' not found"]);
    expect((await svc.call('GET', `/runs/${run.id}/artifacts/nope`)).status).toBe(404);
  });
});
