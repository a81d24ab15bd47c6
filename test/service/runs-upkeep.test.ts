// What keeps kept runs from going stale or piling up: a run whose runner died (no result, artifact or finish
// for the stale bound) is ended as `interrupted` by the sweep, with its results and a summary of them; runs
// past the retention are deleted with their files, many at a time; 0 turns either off. The service's clock is
// injected and moved by the tests; the sweep is called directly, and once through its own timer.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-04-01T00:00:00.000Z');
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** A service whose clock reads `clock.now` (ms), which each test moves. */
async function serviceAt(clock: { now: number }, opts: Parameters<typeof startTestService>[0] = {}): Promise<TestService> {
  // A sweep interval no test waits for, unless it says otherwise: the tests sweep when they choose.
  return startTestService({ now: () => new Date(clock.now), runsSweepIntervalMs: 3_600_000, ...opts });
}

function helpers(svc: () => TestService) {
  const call = (method: string, path: string, body?: unknown) => svc().call(method, path, { body });
  return {
    async run(suite: string) {
      const res = await call('POST', '/runs', { suite, trigger: 'ci', started_at: '2026-04-01T00:00:00Z' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.id as string;
    },
    async result(runId: string, over: Record<string, unknown> = {}) {
      const res = await call('POST', `/runs/${runId}/results`, { name: 'n', file: 'f.yaml', status: 'passed', started_at: '2026-04-01T00:00:01Z', duration_ms: 1, steps: [], ...over });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.id as string;
    },
    async upload(runId: string, resultId: string, name: string) {
      const res = await fetch(`${svc().baseUrl}/runs/${runId}/results/${resultId}/artifacts?kind=screenshot&name=${name}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc().apiKey}` },
        body: new Uint8Array(PNG),
      });
      expect(res.status).toBe(201);
    },
    get: async (runId: string) => (await call('GET', `/runs/${runId}`)).body,
    finish: (runId: string) => call('POST', `/runs/${runId}/finish`, { status: 'passed' }),
    files: (runId: string) => readdir(join(svc().dataDir, 'runs', runId)).catch(() => 'none' as const),
  };
}

describe('idle runs', () => {
  const clock = { now: T0 };
  let svc: TestService;
  const h = helpers(() => svc);
  beforeAll(async () => {
    svc = await serviceAt(clock);
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('ends a run with nothing new for 6 hours as interrupted, at its last activity, keeping its results', async () => {
    clock.now = T0;
    const dead = await h.run('idle');
    await h.result(dead, { name: 'a', status: 'failed' });
    await h.result(dead, { name: 'b', flaky: true });
    const alive = await h.run('idle');
    await h.result(alive, { name: 'a' });
    clock.now = T0 + 5 * HOUR;
    const slow = await h.result(alive, { name: 'slow' });
    clock.now = T0 + 5.5 * HOUR;
    await h.upload(alive, slow, 's/shot.png');
    const finished = await h.run('idle');
    expect((await h.finish(finished)).status).toBe(200);

    clock.now = T0 + 6 * HOUR;
    expect(await svc.runUpkeep.sweep()).toEqual({ interrupted: 0, deleted: 0 });
    clock.now = T0 + 6 * HOUR + 1;
    expect(await svc.runUpkeep.sweep()).toEqual({ interrupted: 1, deleted: 0 });
    expect(await h.get(dead)).toMatchObject({
      status: 'interrupted',
      finished_at: new Date(T0).toISOString(),
      summary: { total: 2, passed: 0, failed: 1, errored: 0, flaky: 1 },
      results: [{ name: 'a', status: 'failed' }, { name: 'b', status: 'passed', flaky: true }],
    });
    // The upload 5.5 hours in was the other run's last sign of life.
    expect(await h.get(alive)).toMatchObject({ status: 'running', finished_at: null });
    expect((await h.get(finished)).status).toBe('passed');
    expect((await svc.call('GET', '/runs?suite=idle&status=interrupted')).body.map((r: { id: string }) => r.id)).toEqual([dead]);
    // A runner that comes back late finds its run ended.
    const late = await svc.call('POST', `/runs/${dead}/results`, { body: { name: 'c', file: 'f.yaml', status: 'passed', started_at: '2026-04-01T07:00:00Z', duration_ms: 1, steps: [] } });
    expect([late.status, late.body.message]).toEqual([409, `run '${dead}' is finished (interrupted); it takes no more results or artifacts`]);

    clock.now = T0 + 11.5 * HOUR + 1;
    expect(await svc.runUpkeep.sweep()).toEqual({ interrupted: 1, deleted: 0 });
    expect(await h.get(alive)).toMatchObject({ status: 'interrupted', finished_at: new Date(T0 + 5.5 * HOUR).toISOString(), summary: { total: 2, passed: 2 } });
  });

  it('ends more idle runs than one batch holds in one sweep', async () => {
    clock.now = T0 + 10 * DAY;
    const ids = [];
    for (let i = 0; i < 60; i++) ids.push(await h.run('many-idle'));
    clock.now += 7 * HOUR;
    expect(await svc.runUpkeep.sweep()).toEqual({ interrupted: 60, deleted: 0 });
    const listed = (await svc.call('GET', '/runs?suite=many-idle&status=running')).body;
    expect(listed).toEqual([]);
    expect((await h.get(ids[0]!)).summary).toEqual({ total: 0, passed: 0, failed: 0, errored: 0, flaky: 0 });
  });
});

describe('retention', () => {
  const clock = { now: T0 };
  let svc: TestService;
  const h = helpers(() => svc);
  beforeAll(async () => {
    svc = await serviceAt(clock, { runsRetentionDays: 30 });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('deletes runs whose last activity is older than the retention, with their files, in batches', async () => {
    clock.now = T0;
    const old = await h.run('kept-30');
    const result = await h.result(old, { status: 'failed' });
    await h.upload(old, result, 'o/failure.png');
    expect((await h.finish(old)).status).toBe(200);
    const batch = [];
    for (let i = 0; i < 60; i++) batch.push(await h.run('kept-30-many'));
    clock.now = T0 + 10 * DAY;
    const recent = await h.run('kept-30');
    await h.upload(recent, await h.result(recent), 'r/shot.png');
    expect(await h.files(old)).toHaveLength(1);

    // The 60 and the recent one never finished: idle for days, they are ended first.
    clock.now = T0 + 30 * DAY;
    expect(await svc.runUpkeep.sweep()).toEqual({ interrupted: 61, deleted: 0 });
    clock.now = T0 + 30 * DAY + 1;
    expect(await svc.runUpkeep.sweep()).toEqual({ interrupted: 0, deleted: 61 });
    expect((await svc.call('GET', `/runs/${old}`)).status).toBe(404);
    expect(await h.files(old)).toBe('none');
    expect((await svc.call('GET', '/runs?suite=kept-30-many')).body).toEqual([]);
    expect((await svc.call('GET', '/runs?suite=kept-30')).body.map((r: { id: string }) => r.id)).toEqual([recent]);
    expect(await h.files(recent)).toHaveLength(1);
    const history = (await svc.call('GET', '/runs/history?suite=kept-30&name=n')).body;
    expect([history.results, history.last_failure]).toEqual([1, null]);
  });
});

describe('retention and the idle bound turned off, and the sweep on its own timer', () => {
  const clock = { now: T0 };
  let off: TestService;
  let timed: TestService;
  const h = helpers(() => off);
  const t = helpers(() => timed);
  beforeAll(async () => {
    [off, timed] = await Promise.all([serviceAt(clock, { runsRetentionDays: 0, runsStaleAfterMs: 0 }), serviceAt(clock, { runsSweepIntervalMs: 50 })]);
  });
  afterAll(async () => {
    await Promise.all([off?.close(), timed?.close()]);
  });

  it('keeps every run, running or not, for as long as there is', async () => {
    clock.now = T0;
    const running = await h.run('forever');
    const done = await h.run('forever');
    await h.finish(done);
    clock.now = T0 + 1000 * DAY;
    expect(await off.runUpkeep.sweep()).toEqual({ interrupted: 0, deleted: 0 });
    expect((await h.get(running)).status).toBe('running');
    expect((await h.get(done)).status).toBe('passed');
  });

  it('sweeps by itself where the service runs its periodic work', async () => {
    clock.now = T0;
    const id = await t.run('timed');
    clock.now = T0 + 7 * HOUR;
    await eventually(async () => ((await t.get(id)).status === 'interrupted' ? true : undefined), 30_000, 50);
  });
});
