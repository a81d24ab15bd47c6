// GET /metrics on a real service with real Chromium: the Prometheus text, parsed here (prom-client writes
// it but has no parser), and the numbers moving exactly as sessions, the standby and a pool change. Every
// wait is a poll for the expected value (`eventually`), never a sleep.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { metricsShow as show, scrape } from '../helpers/metrics.js';

let svc: TestService;
let strict: TestService;
beforeAll(async () => {
  [svc, strict] = await Promise.all([startTestService({ standby: 1 }), startTestService({ strictWire: true })]);
});
afterAll(async () => {
  await Promise.all([svc?.close(), strict?.close()]);
});

const metricsShow = (expected: Parameters<typeof show>[1]) => show(svc, expected);

const onDemand = { kind: 'on_demand' };
const pooled = { kind: 'pooled' };

describe('GET /metrics', () => {
  it('answers Prometheus text with the process metrics and every series of ours from the start', async () => {
    const res = await fetch(`${svc.baseUrl}/metrics`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('# TYPE bcs_sessions_launching gauge');
    expect(text).toContain('# TYPE bcs_session_create_duration_seconds histogram');
    const m = await scrape(svc);
    expect(m('process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(0);
    for (const kind of [onDemand, pooled]) {
      for (const name of ['bcs_sessions_active', 'bcs_sessions_launching', 'bcs_sessions_created_total', 'bcs_session_create_duration_seconds_count']) {
        expect(m(name, kind), `${name} ${kind.kind}`).toBeGreaterThanOrEqual(0);
      }
      for (const reason of ['deleted', 'timeout', 'browser_exited', 'service_shutdown', 'service_restart']) {
        expect(m('bcs_sessions_ended_total', { ...kind, reason })).toBeGreaterThanOrEqual(0);
      }
    }
    expect(m('bcs_standby_wanted')).toBe(1);
    // An unbounded host (no --max-sessions) shows no maximum; the line and the drain are there from the start.
    expect([m('bcs_host_max_sessions'), m('bcs_creates_queued'), m('bcs_draining')]).toEqual([undefined, 0, 0]);
    expect(m('bcs_host_sessions')).toBeGreaterThanOrEqual(0);
  });

  it('shows the standby browser ready, and an on-demand session active from its create to its end', async () => {
    await metricsShow([['bcs_standby_ready', {}, 1]]);
    const before = await scrape(svc);
    const deletedBefore = before('bcs_sessions_ended_total', { kind: 'on_demand', reason: 'deleted' })!;
    const createdBefore = before('bcs_sessions_created_total', onDemand)!;
    const timedBefore = before('bcs_session_create_duration_seconds_count', onDemand)!;
    expect(before('bcs_sessions_active', onDemand)).toBe(0);

    const created = await svc.call('POST', '/browsers', { body: {} });
    expect(created.status).toBe(200);
    const after = await scrape(svc);
    expect(after('bcs_sessions_active', onDemand)).toBe(1);
    expect(after('bcs_sessions_created_total', onDemand)).toBe(createdBefore + 1);
    expect(after('bcs_session_create_duration_seconds_count', onDemand)).toBe(timedBefore + 1);
    // The answer was sent: the create is no longer pending.
    expect(after('bcs_sessions_launching', onDemand)).toBe(0);

    expect((await svc.call('DELETE', `/browsers/${created.body.session_id}`)).status).toBe(204);
    await metricsShow([
      ['bcs_sessions_active', onDemand, 0],
      ['bcs_sessions_ended_total', { kind: 'on_demand', reason: 'deleted' }, deletedBefore + 1],
    ]);
  });

  it("shows a pool's size, idle and leased browsers, and an acquire waiting while it is exhausted", async () => {
    const before = await scrape(svc);
    const createdBefore = before('bcs_sessions_created_total', pooled)!;
    const deletedBefore = before('bcs_sessions_ended_total', { kind: 'pooled', reason: 'deleted' })!;
    const pool = (await svc.call('POST', '/browser_pools', { body: { name: 'metrics-pool', size: 2 } })).body;
    const series = { pool: 'metrics-pool', pool_id: pool.id };
    await metricsShow([
      ['bcs_pool_size', series, 2],
      ['bcs_pool_idle', series, 2],
      ['bcs_pool_leased', series, 0],
      ['bcs_pool_pending_acquires', series, 0],
      ['bcs_pool_launching', series, 0],
    ]);
    const full = await scrape(svc);
    expect(full('bcs_sessions_active', pooled)).toBe(2);
    expect(full('bcs_sessions_created_total', pooled)).toBe(createdBefore + 2);
    expect(full('bcs_sessions_launching', pooled)).toBe(0);

    const first = await svc.call('POST', '/browser_pools/metrics-pool/acquire', { body: {} });
    expect(first.status).toBe(200);
    const one = await scrape(svc);
    expect([one('bcs_pool_idle', series), one('bcs_pool_leased', series)]).toEqual([1, 1]);

    const second = await svc.call('POST', '/browser_pools/metrics-pool/acquire', { body: {} });
    expect(second.status).toBe(200);
    const waiting = svc.call('POST', '/browser_pools/metrics-pool/acquire', { body: { acquire_timeout_seconds: 60 } });
    await metricsShow([
      ['bcs_pool_idle', series, 0],
      ['bcs_pool_leased', series, 2],
      ['bcs_pool_pending_acquires', series, 1],
    ]);

    // A release serves the waiter: nothing waits any more, and both browsers are leased again.
    expect((await svc.call('POST', '/browser_pools/metrics-pool/release', { body: { session_id: first.body.session_id } })).status).toBe(204);
    const third = await waiting;
    expect(third.status).toBe(200);
    await metricsShow([
      ['bcs_pool_pending_acquires', series, 0],
      ['bcs_pool_leased', series, 2],
    ]);

    expect((await svc.call('DELETE', '/browser_pools/metrics-pool', { body: { force: true } })).status).toBe(204);
    // A deleted pool's series go with it; its browsers ended as deleted.
    await metricsShow([
      ['bcs_pool_size', series, undefined],
      ['bcs_sessions_active', pooled, 0],
      ['bcs_sessions_ended_total', { kind: 'pooled', reason: 'deleted' }, deletedBefore + 2],
    ]);
  });

  it('needs a key, an organization-wide one', async () => {
    const none = await fetch(`${svc.baseUrl}/metrics`);
    expect(none.status).toBe(401);
    const project = (await svc.call('POST', '/org/projects', { body: { name: 'metrics-scoped' } })).body;
    const key = (await svc.call('POST', '/org/api_keys', { body: { name: 'metrics-scoped', project_id: project.id } })).body.key;
    const scoped = await svc.call('GET', '/metrics', { headers: { authorization: `Bearer ${key}` } });
    expect(scoped.status).toBe(403);
    expect(scoped.body.message).toContain('needs an organization-wide key');
  });

  it('is ours: the hosted wire (strictWire) answers it as an unknown path, after the same authentication', async () => {
    expect((await fetch(`${strict.baseUrl}/metrics`)).status).toBe(401);
    const hidden = await strict.call('GET', '/metrics');
    const unknown = await strict.call('GET', '/never/a/route');
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ ...unknown.body, message: unknown.body.message.replace('/never/a/route', '/metrics') });
  });
});
