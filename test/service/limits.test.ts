// The unified concurrency limit: on-demand sessions plus pool reservations, exact under races.
import Kernel, { RateLimitError } from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const setLimit = async (body: object) => {
  const res = await svc.call('PATCH', '/org/limits', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe('org limits', () => {
  it('reads and sets limits; null or 0 removes the limit; max_pooled_sessions is stored and echoed', async () => {
    expect((await svc.call('GET', '/org/limits')).body).toEqual({ max_concurrent_sessions: null, max_pooled_sessions: null });
    expect(await setLimit({ max_concurrent_sessions: 7, max_pooled_sessions: 3 })).toEqual({ max_concurrent_sessions: 7, max_pooled_sessions: 3 });
    expect(await setLimit({})).toEqual({ max_concurrent_sessions: 7, max_pooled_sessions: 3 });
    expect(await setLimit({ max_concurrent_sessions: 0 })).toEqual({ max_concurrent_sessions: null, max_pooled_sessions: 3 });
    expect(await setLimit({ max_pooled_sessions: null })).toEqual({ max_concurrent_sessions: null, max_pooled_sessions: null });
    const bad = await svc.call('PATCH', '/org/limits', { body: { max_concurrent_sessions: -1, default_project_max_concurrent_sessions: 2 } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['body.default_project_max_concurrent_sessions', 'body.max_concurrent_sessions']);
  });

  it('admits exactly the limit when 50 creates race', async () => {
    await setLimit({ max_concurrent_sessions: 10 });
    try {
      const results = await Promise.all(Array.from({ length: 50 }, () => svc.call('POST', '/browsers', { body: { headless: true } })));
      const admitted = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      expect(admitted).toHaveLength(10);
      expect(refused).toHaveLength(40);
      for (const r of refused) {
        expect(r.status).toBe(429);
        expect(r.body.code).toBe('concurrency_limit_exceeded');
        expect(r.body.message).toContain('max_concurrent_sessions is 10');
      }
      expect((await svc.call('GET', '/browsers?limit=100')).body).toHaveLength(10);
      await Promise.all(admitted.map((r) => svc.call('DELETE', `/browsers/${r.body.session_id}`)));
      const again = await svc.call('POST', '/browsers');
      expect(again.status).toBe(200);
      await svc.call('DELETE', `/browsers/${again.body.session_id}`);
    } finally {
      await setLimit({ max_concurrent_sessions: null });
    }
  }, 120_000);

  it('counts pool sizes as reservations when creating sessions and creating or growing pools', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    await setLimit({ max_concurrent_sessions: 3 });
    try {
      await kernel.browserPools.create({ name: 'reserved', size: 2 });
      const one = await svc.call('POST', '/browsers');
      expect(one.status).toBe(200);
      const over = await svc.call('POST', '/browsers');
      expect(over.status).toBe(429);
      expect(over.body.message).toContain('1 on-demand session, 2 reserved by browser pools');
      await expect(kernel.browsers.create({ headless: true })).rejects.toBeInstanceOf(RateLimitError);
      const pool = await svc.call('POST', '/browser_pools', { body: { size: 1 } });
      expect(pool.status).toBe(429);
      expect(pool.body.code).toBe('concurrency_limit_exceeded');
      expect((await svc.call('PATCH', '/browser_pools/reserved', { body: { size: 3 } })).status).toBe(429);
      // Idle pool browsers are not sessions the limit counts one by one: the reservation already covers them.
      await eventually(async () => ((await kernel.browserPools.retrieve('reserved')).available_count === 2 ? true : undefined), 30_000);
      const leased = await kernel.browserPools.acquire('reserved', {});
      expect(leased.pool?.name).toBe('reserved');

      await svc.call('DELETE', `/browsers/${one.body.session_id}`);
      expect((await svc.call('PATCH', '/browser_pools/reserved', { body: { size: 3 } })).status).toBe(200);
      expect((await svc.call('POST', '/browsers')).status).toBe(429);
      // Lowering the limit below what runs ends nothing.
      await setLimit({ max_concurrent_sessions: 1 });
      expect((await kernel.browserPools.retrieve('reserved')).browser_pool_config.size).toBe(3);
      await kernel.browserPools.delete('reserved', { force: true });
      expect((await svc.call('POST', '/browser_pools', { body: { size: 1, name: 'fits' } })).status).toBe(200);
      await kernel.browserPools.delete('fits');
    } finally {
      await setLimit({ max_concurrent_sessions: null });
    }
  });

  it('takes the limit from ServiceOptions.maxConcurrentSessions', async () => {
    const limited = await startTestService({ maxConcurrentSessions: 1, standby: 0 });
    try {
      expect((await limited.call('GET', '/org/limits')).body.max_concurrent_sessions).toBe(1);
      const first = await limited.call('POST', '/browsers');
      expect(first.status).toBe(200);
      expect((await limited.call('POST', '/browsers')).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
