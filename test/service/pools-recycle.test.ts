// What a lease started does not outlive the lease: processes and Playwright state are gone for the next holder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, isAlive, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

describe('pool lease recycling', () => {
  it('kills the lease’s processes and drops its Playwright worker on release', async () => {
    expect((await svc.call('POST', '/browser_pools', { body: { name: 'recycle', size: 1, headless: true } })).status).toBe(200);
    await expect.poll(async () => (await svc.call('GET', '/browser_pools/recycle')).body.available_count, { timeout: 30_000 }).toBe(1);
    const lease = (await svc.call('POST', '/browser_pools/recycle/acquire', { body: {} })).body;
    const id = lease.session_id;
    const proc = (await svc.call('POST', `/browsers/${id}/process/spawn`, { body: { command: 'sleep', args: ['1000'] } })).body;
    expect(isAlive(proc.pid)).toBe(true);
    const set = await svc.call('POST', `/browsers/${id}/playwright/execute`, { body: { code: 'globalThis.leftover = 42; return 1' } });
    expect(set.body.success).toBe(true);

    expect((await svc.call('POST', '/browser_pools/recycle/release', { body: { session_id: id, reuse: true } })).status).toBe(204);
    await eventually(() => (isAlive(proc.pid) ? undefined : true), 30_000);

    const next = (await svc.call('POST', '/browser_pools/recycle/acquire', { body: {} })).body;
    expect(next.session_id).toBe(id);
    expect((await svc.call('GET', `/browsers/${id}/process/${proc.process_id}/status`)).status).toBe(404);
    const read = await svc.call('POST', `/browsers/${id}/playwright/execute`, { body: { code: 'return globalThis.leftover ?? null' } });
    expect(read.body).toMatchObject({ success: true, result: null });
  });
});
