// MonitorsRepo's contract, on both stores: deploys keep a check's state by name, a due run is claimed once
// whoever asks, and a finished run updates the check and its recent list together.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { KEPT_ALERTS, KEPT_CHECK_RUNS, MonitorsRepo, type CheckRunRow, type SuiteRow } from '../../src/service/store/monitors-repo.js';
import { HEALTHY } from '../../src/service/host/monitors/policy.js';
import { inList, sql } from '../../src/service/store/sql.js';
import type { MonitorCheckSpec } from '../../src/api/schemas/monitors.js';

const T = '2030-01-01T00:00:00.000Z';
const suite = (over: Partial<SuiteRow> = {}): SuiteRow => ({
  id: 's1',
  project_id: null,
  name: 'shop',
  version: 1,
  settings: { channels: { ops: { type: 'webhook', url: 'https://hooks.example/x' } } },
  bundle: 's1/1',
  deployed_at: T,
  ...over,
});
const spec = (name: string, every = 60): MonitorCheckSpec => ({ name, file: `${name}.yaml`, schedule: { every_seconds: every } });
const deployAt = (due: string) => () => due;

describeStores('MonitorsRepo', (open) => {
  it('deploys a suite, keeps a check by name across deploys, and removes the ones gone', async () => {
    const repo = new MonitorsRepo(await open());
    await repo.deploy(suite(), [{ id: 'c1', spec: spec('login') }, { id: 'c2', spec: spec('cart') }], deployAt(T), HEALTHY);
    const before = await repo.listChecks(null, 'shop');
    expect(before.map((c) => [c.id, c.name, c.due_at, c.attempt, c.paused])).toEqual([
      ['c2', 'cart', T, 1, false],
      ['c1', 'login', T, 1, false],
    ]);
    const out = await repo.deploy(suite({ version: 2, bundle: 's1/2' }), [{ id: 'new', spec: spec('login', 120) }], deployAt('2030-01-01T00:05:00.000Z'), HEALTHY);
    expect(out).toEqual({ removed: ['cart'], previousBundle: 's1/1' });
    const after = await repo.listChecks(null);
    expect(after.map((c) => [c.id, c.spec.schedule, c.due_at])).toEqual([['c1', { every_seconds: 120 }, '2030-01-01T00:05:00.000Z']]);
    expect(await repo.getSuite(null, 'shop')).toMatchObject({ version: 2, bundle: 's1/2', settings: suite().settings });
    expect(await repo.listChecks('p1')).toEqual([]);
  });

  it('claims a due run once, however many ask at once', async () => {
    const repo = new MonitorsRepo(await open());
    await repo.deploy(suite(), [{ id: 'c1', spec: spec('login') }], deployAt(T), HEALTHY);
    const [due] = await repo.due('2030-01-01T00:00:01.000Z', 10);
    expect(due?.id).toBe('c1');
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => repo.claim(due!, `owner-${i}`, '2030-01-01T00:00:01.000Z')));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await repo.due('2030-01-01T00:00:02.000Z', 10)).toEqual([]);
    expect(await repo.runningChecks()).toHaveLength(1);
  });

  it('finishes a claimed run with its next due time, health and recent row; only its owner can', async () => {
    const repo = new MonitorsRepo(await open());
    await repo.deploy(suite(), [{ id: 'c1', spec: spec('login') }], deployAt(T), HEALTHY);
    const [due] = await repo.due(T, 1);
    await repo.claim(due!, 'me', T);
    const health = { ...HEALTHY, status: 'failing' as const, consecutive_failures: 1, failing_since: T };
    const next = { due_at: '2030-01-01T00:01:00.000Z', next_run_at: '2030-01-01T00:01:00.000Z', attempt: 1, health, due_reason: 'schedule' };
    const row = { id: 'r1', check_id: 'c1', run_id: 'run-1', status: 'failed', attempt: 1, started_at: T, duration_ms: 1500, message: 'no button' };
    expect(await repo.finish('c1', 'someone-else', next, row)).toBe(false);
    expect(await repo.finish('c1', 'me', next, row)).toBe(true);
    expect(await repo.getCheck('c1')).toMatchObject({ running_since: null, due_at: next.due_at, health, last_run_id: 'run-1', last_duration_ms: 1500 });
    const recent = await repo.recentRuns(['c1', 'none'], 5);
    expect(recent.get('c1')).toEqual([row]);
    expect(recent.get('none')).toEqual([]);
  });

  it("reads each check's newest runs as ranking all of its runs did", async () => {
    const db = await open();
    const repo = new MonitorsRepo(db);
    await repo.deploy(suite(), ['a', 'b', 'c'].map((n) => ({ id: n, spec: spec(n) })), deployAt(T), HEALTHY);
    // Runs out of time order and with equal start times (a tie goes to the later recorded), 25, 3 and none.
    for (const [id, count] of [['a', 25], ['b', 3]] as const) {
      for (let i = 0; i < count; i++) {
        const check = (await repo.getCheck(id))!;
        expect(await repo.claim(check, 'me', T)).toBe(true);
        const started_at = new Date(Date.parse(T) + ((i * 7) % 10) * 60_000).toISOString();
        const run = { id: `${id}${i}`, check_id: id, run_id: i % 4 ? `run-${i}` : null, status: i % 3 ? 'passed' : 'failed', attempt: 1 + (i % 2), started_at, duration_ms: i, message: i % 3 ? null : `m${i}` };
        await repo.finish(id, 'me', { due_at: check.due_at, next_run_at: check.next_run_at, attempt: 1, health: check.health, due_reason: 'schedule' }, run);
      }
    }
    const ids = ['a', 'b', 'c', 'gone'];
    // The query recentRuns ran before: every run of the checks ranked by a window function.
    const ranked = async (perCheck: number) => {
      const rows = await db.all<CheckRunRow>(sql`SELECT id, check_id, run_id, status, attempt, started_at, duration_ms, message FROM (
        SELECT r.*, row_number() OVER (PARTITION BY check_id ORDER BY started_at DESC, seq DESC) AS n FROM monitor_check_runs r
        WHERE check_id ${inList(ids)}) ranked WHERE n <= ${perCheck} ORDER BY check_id, n`);
      return new Map(ids.map((id) => [id, rows.filter((r) => r.check_id === id)]));
    };
    for (const perCheck of [1, 3, 4, 20, 25, 100]) expect(await repo.recentRuns(ids, perCheck)).toEqual(await ranked(perCheck));
    expect((await repo.recentRuns(ids, 4)).get('a')!.map((r) => r.id)).toEqual(['a17', 'a7', 'a24', 'a14']);
  });

  it('gives an abandoned claim back, pauses, resumes and triggers', async () => {
    const repo = new MonitorsRepo(await open());
    await repo.deploy(suite(), [{ id: 'c1', spec: spec('login') }], deployAt(T), HEALTHY);
    const [due] = await repo.due(T, 1);
    await repo.claim(due!, 'gone', T);
    expect(await repo.trigger('c1', T)).toBe(false);
    expect(await repo.release('c1', 'not-the-owner', T)).toBe(false);
    expect(await repo.release('c1', 'gone', '2030-01-01T00:00:30.000Z')).toBe(true);
    expect((await repo.getCheck('c1'))?.due_at).toBe('2030-01-01T00:00:30.000Z');
    await repo.setPaused('c1', true, null);
    expect(await repo.due('2031-01-01T00:00:00.000Z', 10)).toEqual([]);
    await repo.setPaused('c1', false, '2030-01-01T00:02:00.000Z');
    expect(await repo.trigger('c1', '2030-01-01T00:00:40.000Z')).toBe(true);
    expect(await repo.getCheck('c1')).toMatchObject({ due_at: '2030-01-01T00:00:40.000Z', due_reason: 'manual', next_run_at: '2030-01-01T00:02:00.000Z' });
  });

  it("keeps a check's latest runs and alerts only", async () => {
    const repo = new MonitorsRepo(await open());
    await repo.deploy(suite(), [{ id: 'c1', spec: spec('login') }], deployAt(T), HEALTHY);
    const next = { due_at: T, next_run_at: T, attempt: 1, health: HEALTHY, due_reason: 'schedule' };
    for (let i = 0; i < KEPT_CHECK_RUNS + 3; i++) {
      expect(await repo.claim((await repo.getCheck('c1'))!, 'me', T)).toBe(true);
      const at = new Date(Date.parse(T) + i * 1000).toISOString();
      await repo.finish('c1', 'me', next, { id: `r${i}`, check_id: 'c1', run_id: null, status: 'passed', attempt: 1, started_at: at, duration_ms: 1, message: null });
    }
    const kept = (await repo.recentRuns(['c1'], 1000)).get('c1')!;
    expect(kept).toHaveLength(KEPT_CHECK_RUNS);
    expect([kept[0]!.id, kept.at(-1)!.id]).toEqual([`r${KEPT_CHECK_RUNS + 2}`, 'r3']);
    for (let i = 0; i < KEPT_ALERTS + 2; i++) {
      await repo.insertAlert({ id: `a${i}`, check_id: 'c1', project_id: null, kind: 'reminder', at: T, muted: false, run_id: null, deliveries: [] });
    }
    const alerts = await repo.listAlerts(null, 'c1', 10_000);
    expect(alerts).toHaveLength(KEPT_ALERTS);
    expect([alerts[0]!.id, alerts.at(-1)!.id]).toEqual([`a${KEPT_ALERTS + 1}`, 'a2']);
  });

  it('keeps alerts per project, newest first, and drops a suite whole', async () => {
    const repo = new MonitorsRepo(await open());
    await repo.deploy(suite(), [{ id: 'c1', spec: spec('login') }], deployAt(T), HEALTHY);
    const alert = (id: string, at: string) => ({ id, check_id: 'c1', project_id: null, kind: 'failing', at, muted: false, run_id: null, deliveries: [{ channel: 'ops', ok: true, attempts: 1 }] });
    await repo.insertAlert(alert('a1', '2030-01-01T00:00:01.000Z'));
    await repo.insertAlert(alert('a2', '2030-01-01T00:00:02.000Z'));
    expect((await repo.listAlerts(null, undefined, 10)).map((a) => a.id)).toEqual(['a2', 'a1']);
    expect(await repo.listAlerts('p1', undefined, 10)).toEqual([]);
    expect((await repo.listAlerts(null, 'c1', 1))[0]).toEqual(alert('a2', '2030-01-01T00:00:02.000Z'));
    await repo.deleteSuite('s1', null, 'shop');
    expect(await repo.listChecks(null)).toEqual([]);
    expect(await repo.getSuite(null, 'shop')).toBeUndefined();
    expect(await repo.listAlerts(null, undefined, 10)).toEqual([]);
  });
});
