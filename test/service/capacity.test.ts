// A full host (maxSessions) and a draining one, on the real service with real Chromium: creates wait in
// line first come first served, a client that gives up leaves nothing launched, the wait ends in a 503
// with Retry-After, and a drain refuses new work while the running sessions finish. Every wait is a poll
// of /metrics or of the session list, never a sleep.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';
import { metricsShow } from '../helpers/metrics.js';

const services: TestService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});
const start = async (opts: Parameters<typeof startTestService>[0]) => {
  const svc = await startTestService(opts);
  services.push(svc);
  return svc;
};

const activeIds = async (svc: TestService) => ((await svc.call('GET', '/browsers')).body as { session_id: string }[]).map((s) => s.session_id).sort();

describe('a host with --max-sessions', () => {
  it('queues creates beyond it in order, and launches nothing for a client that gave up', async () => {
    const svc = await start({ maxSessions: 2 });
    const [a, b] = await Promise.all([svc.call('POST', '/browsers', { body: { name: 'a' } }), svc.call('POST', '/browsers', { body: { name: 'b' } })]);
    expect([a.status, b.status]).toEqual([200, 200]);

    // Two more wait in line; the second one's client gives up while waiting.
    const c = svc.call('POST', '/browsers', { body: { name: 'c' } });
    await metricsShow(svc, [['bcs_creates_queued', {}, 1]]);
    const gaveUp = new AbortController();
    const d = fetch(`${svc.baseUrl}/browsers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'd' }),
      signal: gaveUp.signal,
    }).catch((err: Error) => err.name);
    await metricsShow(svc, [['bcs_creates_queued', {}, 2], ['bcs_host_sessions', {}, 2], ['bcs_host_max_sessions', {}, 2]]);
    gaveUp.abort();
    expect(await d).toBe('AbortError');
    await metricsShow(svc, [['bcs_creates_queued', {}, 1]]);

    // A freed slot goes to the first in line.
    expect((await svc.call('DELETE', `/browsers/${a.body.session_id}`)).status).toBe(204);
    const created = await c;
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.name).toBe('c');
    // The one whose client left never got a browser, now or when the next slot frees.
    expect((await svc.call('DELETE', `/browsers/${b.body.session_id}`)).status).toBe(204);
    await metricsShow(svc, [['bcs_creates_queued', {}, 0], ['bcs_host_sessions', {}, 1]]);
    expect(await activeIds(svc)).toEqual([created.body.session_id]);
    expect((await svc.call('GET', '/browsers/d')).status).toBe(404);
  });

  it('answers 503 host_full with Retry-After once the wait passes its timeout, and counts nothing for it', async () => {
    const svc = await start({ maxSessions: 1, createQueueTimeoutMs: 300, maxConcurrentSessions: 2 });
    expect((await svc.call('POST', '/browsers')).status).toBe(200);
    // Twice: had the first refused create kept its place under the org's limit of 2, the second would be a 429.
    for (let i = 0; i < 2; i++) {
      const full = await svc.call('POST', '/browsers');
      expect(full.status).toBe(503);
      expect(full.headers.get('retry-after')).toBe('5');
      expect(full.body).toEqual({ code: 'host_full', message: "every one of this host's 1 session slots stayed busy for 0 s; try again shortly" });
    }
    await metricsShow(svc, [['bcs_creates_queued', {}, 0], ['bcs_host_sessions', {}, 1]]);
  });
});

describe('a draining host', () => {
  it('refuses new sessions and acquires with 503 draining, lets running ones finish, then stops', async () => {
    const svc = await start({ standby: 1 });
    const running = await svc.call('POST', '/browsers', { body: { name: 'running' } });
    expect(running.status).toBe(200);
    const pool = await svc.call('POST', '/browser_pools', { body: { name: 'p', size: 1 } });
    expect(pool.status).toBe(200);
    await eventually(async () => ((await svc.call('GET', '/browser_pools/p')).body.available_count === 1 ? true : undefined));

    let drained = false;
    const drain = svc.drain(60_000).then(() => (drained = true));
    await metricsShow(svc, [['bcs_draining', {}, 1], ['bcs_standby_wanted', {}, 0]]);
    const refused = await svc.call('POST', '/browsers');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body.code).toBe('draining');
    const acquire = await svc.call('POST', '/browser_pools/p/acquire', { body: {} });
    expect([acquire.status, acquire.body.code]).toEqual([503, 'draining']);

    // The running session is still served; the drain ends when it does.
    expect((await svc.call('GET', `/browsers/${running.body.session_id}`)).status).toBe(200);
    expect(drained).toBe(false);
    expect((await svc.call('DELETE', `/browsers/${running.body.session_id}`)).status).toBe(204);
    await drain;
    await expect(svc.call('GET', '/browsers')).rejects.toThrow();
  });

  it('ends what still runs when the grace period passes', async () => {
    const svc = await start({});
    const running = await svc.call('POST', '/browsers');
    expect(running.status).toBe(200);
    await svc.drain(200);
    await expect(svc.call('GET', '/browsers')).rejects.toThrow();
  });
});
