// /runs over HTTP: a run made, given results and artifacts, finished; lists and filters; artifact bytes back as
// uploaded; a scenario's history across runs; project scoping; and bad input refused with a clear 400.
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
