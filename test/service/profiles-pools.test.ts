// Pools with a profile, through the hosted SDK: read-only loading (save_changes ignored), each lease starting
// from the profile, and refresh_on_profile_update replacing idle browsers when a session saves the profile.
import Kernel, { BadRequestError } from '@onkernel/sdk';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let kernel: Kernel;
const site = 'http://profile-pool.test/';

beforeAll(async () => {
  svc = await startTestService({ standby: 0 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await svc.close();
});

async function setCookie(cdpUrl: string, value: string): Promise<void> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  await browser.contexts()[0]!.addCookies([{ name: 'login', value, url: site, expires: Math.floor(Date.now() / 1000) + 3600 }]);
  await browser.close();
}

async function cookie(cdpUrl: string): Promise<string | undefined> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  try {
    return (await browser.contexts()[0]!.cookies(site)).find((c) => c.name === 'login')?.value;
  } finally {
    await browser.close();
  }
}

/** Saves `value` into the profile the way users do: a read-write session that ends. */
async function saveIntoProfile(name: string, value: string): Promise<void> {
  const writer = await kernel.browsers.create({ profile: { name, save_changes: true } });
  await setCookie(writer.cdp_ws_url, value);
  await kernel.browsers.deleteByID(writer.session_id);
}

const idleSessions = async (poolId: string): Promise<string[]> =>
  (await svc.call('GET', '/browsers?limit=100')).body
    .filter((s: { pool?: { id: string }; name?: string }) => s.pool?.id === poolId)
    .map((s: { session_id: string }) => s.session_id)
    .sort();

const counts = (pool: string, available: number, acquired = 0) =>
  eventually(async () => {
    const p = await kernel.browserPools.retrieve(pool);
    return p.available_count === available && p.acquired_count === acquired ? p : undefined;
  }, 90_000);

describe('pools with a profile', () => {
  it('load it read-only, start every lease from it, and refresh idle browsers when it is saved', async () => {
    const profile = await kernel.profiles.create({ name: 'pool-profile' });
    await saveIntoProfile('pool-profile', 'v1');

    const pool = await kernel.browserPools.create({ name: 'profiled', size: 2, profile: { name: 'pool-profile', save_changes: true } as never });
    expect(pool.profile_id).toBe(profile.id);
    expect(pool.browser_pool_config.profile).toEqual({ name: 'pool-profile' });
    expect(pool.browser_pool_config.refresh_on_profile_update).toBe(true);
    const still = await kernel.browserPools.create({ name: 'not-refreshed', size: 1, profile: { id: profile.id }, refresh_on_profile_update: false });
    await counts('profiled', 2);
    await counts('not-refreshed', 1);

    const lease = await kernel.browserPools.acquire('profiled', {});
    expect(lease.profile).toMatchObject({ id: profile.id, name: 'pool-profile' });
    expect((lease as { profile_save_changes?: boolean }).profile_save_changes).toBe(false);
    expect(await cookie(lease.cdp_ws_url)).toBe('v1');
    await setCookie(lease.cdp_ws_url, 'changed-in-lease');
    await kernel.browserPools.release('profiled', { session_id: lease.session_id });
    // Replaced rather than reset: the next holder starts from the profile, not from the last lease.
    await counts('profiled', 2);
    expect(await idleSessions(pool.id)).not.toContain(lease.session_id);
    const second = await kernel.browserPools.acquire('profiled', {});
    expect(await cookie(second.cdp_ws_url)).toBe('v1');
    await kernel.browserPools.release('profiled', { session_id: second.session_id });
    await counts('profiled', 2);

    const before = await idleSessions(pool.id);
    const untouched = await idleSessions(still.id);
    await saveIntoProfile('pool-profile', 'v2');
    // Every idle browser of the opted-in pool is replaced; the other pool keeps its own.
    await eventually(async () => {
      const now = await idleSessions(pool.id);
      return now.length === 2 && now.every((id) => !before.includes(id)) ? now : undefined;
    }, 90_000);
    await counts('profiled', 2);
    const fresh = await kernel.browserPools.acquire('profiled', {});
    expect(await cookie(fresh.cdp_ws_url)).toBe('v2');
    await kernel.browserPools.release('profiled', { session_id: fresh.session_id, reuse: false });
    expect(await idleSessions(still.id)).toEqual(untouched);

    // Clearing the profile clears the refresh flag too; the flag alone needs a profile.
    const cleared = await kernel.browserPools.update('not-refreshed', { profile: { id: '' }, size: 1 });
    expect(cleared.profile_id).toBeUndefined();
    expect(cleared.browser_pool_config.profile).toBeUndefined();
    expect(cleared.browser_pool_config.refresh_on_profile_update).toBeUndefined();
    await expect(kernel.browserPools.update('not-refreshed', { refresh_on_profile_update: true, size: 1 })).rejects.toBeInstanceOf(BadRequestError);
    const missing = await svc.call('POST', '/browser_pools', { body: { size: 1, profile: { name: 'no-such-profile' } } });
    expect(missing.status).toBe(404);

    await kernel.browserPools.delete('profiled', { force: true });
    await kernel.browserPools.delete('not-refreshed', { force: true });
  }, 240_000);
});
