// Pools over time: a lease left idle is reclaimed, pools survive a restart, nothing outlives the service.
import Kernel from '@onkernel/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { eventually, startTestService, processesMentioning } from '../helpers/service.js';

const sdk = (svc: { apiKey: string; baseUrl: string }) => new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });

const counts = (kernel: Kernel, pool: string, available: number, acquired = 0) =>
  eventually(async () => {
    const p = await kernel.browserPools.retrieve(pool);
    return p.available_count === available && p.acquired_count === acquired ? p : undefined;
  }, 30_000);


/**
 * close() waits for each browser's process group leader; the rest of a sandbox's PID namespace is killed by
 * the kernel with it and may take a few ms more to leave /proc on a loaded machine.
 */
const gone = (dir: string) => eventually(async () => ((await processesMentioning(dir)).length === 0 ? true : undefined), 30_000, 50);

describe('pool lifecycle', () => {
  it('reclaims a leased browser after the pool timeout without activity, and refills; a CDP connection keeps it', async () => {
    const svc = await startTestService({ standby: 0 });
    const kernel = sdk(svc);
    try {
      await kernel.browserPools.create({ name: 'reclaim', size: 3, timeout_seconds: 10 });
      await counts(kernel, 'reclaim', 3);
      const neglected = await kernel.browserPools.acquire('reclaim', {});
      const held = await kernel.browserPools.acquire('reclaim', {});
      const client = await chromium.connectOverCDP(held.cdp_ws_url);
      const active = (await svc.call('GET', '/browsers?limit=100')).body.map((s: { session_id: string }) => s.session_id);
      const idle = active.filter((id: string) => id !== neglected.session_id && id !== held.session_id);
      expect(idle).toHaveLength(1);
      const started = Date.now();
      // Polled through the list: reading the session itself would count as activity.
      const ended = await eventually(async () => {
        const res = await svc.call('GET', '/browsers?status=deleted');
        return res.body.find((s: { session_id: string }) => s.session_id === neglected.session_id);
      }, 25_000, 250);
      const elapsed = Date.now() - started;
      expect(ended).toMatchObject({ end_reason: 'timeout', pool: { name: 'reclaim' } });
      expect(elapsed).toBeGreaterThan(8_000);
      expect(elapsed).toBeLessThan(15_000);
      await counts(kernel, 'reclaim', 2, 1);
      // The held one has an open CDP connection; the idle one is never timed out, whatever the pool's timeout.
      expect((await svc.call('GET', `/browsers/${held.session_id}`)).status).toBe(200);
      expect((await svc.call('GET', `/browsers/${idle[0]}`)).status).toBe(200);
      await client.close();
      await kernel.browserPools.release('reclaim', { session_id: held.session_id });
      await counts(kernel, 'reclaim', 3);
    } finally {
      await svc.close();
    }
  }, 60_000);

  it('recreates and refills pools after a restart, and leaves no Chromium behind when it closes', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-pools-'));
    try {
      const first = await startTestService({ dataDir });
      const kernel = sdk(first);
      const made = await kernel.browserPools.create({ name: 'persist', size: 2, viewport: { width: 1024, height: 768 }, fill_rate_per_minute: 50 });
      await counts(kernel, 'persist', 2);
      const leased = await kernel.browserPools.acquire('persist', {});
      await first.close();
      await gone(dataDir);
      const before = (await startTestService({ dataDir, apiKey: first.apiKey }).then(async (second) => {
        const k2 = sdk(second);
        try {
          const pool = await counts(k2, 'persist', 2);
          expect(pool).toMatchObject({ id: made.id, browser_pool_config: made.browser_pool_config });
          const old = (await second.call('GET', `/browsers/${leased.session_id}?include_deleted=true`)).body;
          expect(old.end_reason).toBe('service_shutdown');
          return await processesMentioning(dataDir);
        } finally {
          await second.close();
        }
      }));
      expect(before.length).toBeGreaterThanOrEqual(2);
      await gone(dataDir);
    } finally {
      await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    }
  }, 90_000);
});
