// Browser pools through the hosted SDK, unchanged: fill, counts, acquire (long poll, 204, FIFO), release,
// flush, update and delete.
import Kernel, { BadRequestError, ConflictError, NotFoundError } from '@onkernel/sdk';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let kernel: Kernel;
beforeAll(async () => {
  svc = await startTestService({ standby: 0 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await svc.close();
});

/** Waits until the pool shows exactly these counts. */
const counts = (pool: string, available: number, acquired = 0) =>
  eventually(async () => {
    const p = await kernel.browserPools.retrieve(pool);
    return p.available_count === available && p.acquired_count === acquired ? p : undefined;
  }, 30_000);

/** Active sessions of a pool, as GET /browsers shows them. */
const poolSessions = async (poolId: string) =>
  (await svc.call('GET', '/browsers?limit=100')).body.filter((s: { pool?: { id: string } }) => s.pool?.id === poolId);

describe('browser pools', () => {
  it('fills to size promptly, with exact counts; pool browsers are sessions; acquire and release', async () => {
    const created = await kernel.browserPools.create({ name: 'fill-pool', size: 3, viewport: { width: 1280, height: 800 } });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[a-z0-9]{24}$/),
      name: 'fill-pool',
      acquired_count: 0,
      extension_ids: [],
      browser_pool_config: {
        name: 'fill-pool',
        size: 3,
        headless: true,
        stealth: false,
        kiosk_mode: false,
        timeout_seconds: 600,
        fill_rate_per_minute: 25,
        viewport: { width: 1280, height: 800 },
      },
    });
    expect(Date.parse(created.created_at)).toBeGreaterThan(Date.now() - 60_000);
    // 3 at 25 % per minute launches one at a time, and still fills in seconds, not minutes.
    await counts('fill-pool', 3);
    const idle = await poolSessions(created.id);
    expect(idle).toHaveLength(3);
    expect(idle[0]).toMatchObject({ pool: { id: created.id, name: 'fill-pool' }, viewport: { width: 1280, height: 800 }, timeout_seconds: 600 });

    expect((await kernel.browserPools.retrieve(created.id)).name).toBe('fill-pool');
    const listed = [];
    for await (const p of kernel.browserPools.list()) listed.push(p.id);
    expect(listed).toContain(created.id);
    const byName = await svc.call('GET', '/browser_pools?name=fill-pool');
    expect(byName.body.map((p: { id: string }) => p.id)).toEqual([created.id]);
    expect(byName.headers.get('x-has-more')).toBe('false');
    expect((await svc.call('GET', '/browser_pools?query=FILL-P')).body.map((p: { id: string }) => p.id)).toEqual([created.id]);
    expect((await svc.call('GET', `/browser_pools?query=${created.id}`)).body).toHaveLength(1);
    expect((await svc.call('GET', '/browser_pools?name=nope')).body).toEqual([]);

    const leased = await kernel.browserPools.acquire('fill-pool', { name: 'leased-one', tags: { job: '7' } });
    expect(leased).toMatchObject({ pool: { id: created.id, name: 'fill-pool' }, name: 'leased-one', tags: { job: '7' }, timeout_seconds: 600 });
    expect(idle.map((s: { session_id: string }) => s.session_id)).toContain(leased.session_id);
    const during = await kernel.browserPools.retrieve('fill-pool');
    expect([during.available_count, during.acquired_count]).toEqual([2, 1]);
    expect((await svc.call('GET', '/browsers/leased-one')).body.session_id).toBe(leased.session_id);

    const browser = await chromium.connectOverCDP(leased.cdp_ws_url);
    const page = browser.contexts()[0]!.pages()[0]!;
    expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([1280, 800]);
    await browser.close();

    await kernel.browserPools.release('fill-pool', { session_id: leased.session_id });
    // Answered once the holder is cut off; the browser is available again once it is reset.
    expect((await kernel.browserPools.retrieve('fill-pool')).acquired_count).toBe(0);
    await counts('fill-pool', 3, 0);
    const released = (await svc.call('GET', `/browsers/${leased.session_id}`)).body;
    expect(released.name).toBeUndefined();
    expect(released.tags).toEqual({});
    await expect(kernel.browserPools.release('fill-pool', { session_id: leased.session_id })).rejects.toBeInstanceOf(ConflictError);
    await expect(kernel.browserPools.release('fill-pool', { session_id: 'not-a-member' })).rejects.toBeInstanceOf(NotFoundError);
    await kernel.browserPools.delete('fill-pool');
    expect(await poolSessions(created.id)).toEqual([]);
  });

  it('answers 204 when no browser frees up in time, and serves waiters first come first served', async () => {
    await kernel.browserPools.create({ name: 'fifo', size: 1 });
    await counts('fifo', 1);
    const held = await kernel.browserPools.acquire('fifo', {});
    const started = Date.now();
    const timedOut = await svc.call('POST', '/browser_pools/fifo/acquire', { body: { acquire_timeout_seconds: 1 } });
    expect(timedOut.status).toBe(204);
    expect(timedOut.body).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    const order: string[] = [];
    const wait = (tag: string) =>
      svc.call('POST', '/browser_pools/fifo/acquire', { body: { acquire_timeout_seconds: 30, tags: { who: tag } } }).then((r) => {
        order.push(tag);
        return r.body;
      });
    const waiters = [];
    for (const tag of ['first', 'second', 'third']) {
      waiters.push(wait(tag));
      // Each joins the queue before the next is sent, so the order is the one asked for.
      const fifo = await svc.pools.find(null, 'fifo');
      await eventually(() => (fifo.waitingCount === waiters.length ? true : undefined));
    }
    let holder = held;
    for (const [i, waiter] of waiters.entries()) {
      await kernel.browserPools.release('fifo', { session_id: holder.session_id });
      holder = await waiter;
      expect(holder.tags).toEqual({ who: ['first', 'second', 'third'][i] });
      expect(holder.session_id).toBe(held.session_id);
    }
    expect(order).toEqual(['first', 'second', 'third']);
    await kernel.browserPools.release('fifo', { session_id: holder.session_id });
    await kernel.browserPools.delete('fifo');
  });

  it('forgets a waiter whose client went away, so the browser is not leased to nobody', async () => {
    await kernel.browserPools.create({ name: 'gone', size: 1 });
    await counts('gone', 1);
    const held = await kernel.browserPools.acquire('gone', {});
    const abort = new AbortController();
    const abandoned = fetch(`${svc.baseUrl}/browser_pools/gone/acquire`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ acquire_timeout_seconds: 30 }),
      signal: abort.signal,
    }).catch(() => 'aborted');
    const live = await svc.pools.find(null, 'gone');
    await eventually(() => (live.waitingCount === 1 ? true : undefined));
    abort.abort();
    expect(await abandoned).toBe('aborted');
    await eventually(() => (live.waitingCount === 0 ? true : undefined));
    await kernel.browserPools.release('gone', { session_id: held.session_id });
    await counts('gone', 1, 0);
    await kernel.browserPools.delete('gone');
  });

  it('release with reuse: false replaces the browser; flush destroys idle browsers only; DELETE /browsers refills', async () => {
    const pool = await kernel.browserPools.create({ name: 'replace', size: 2 });
    await counts('replace', 2);
    const a = await kernel.browserPools.acquire('replace', {});
    await kernel.browserPools.release('replace', { session_id: a.session_id, reuse: false });
    const gone = (await svc.call('GET', `/browsers/${a.session_id}?include_deleted=true`)).body;
    expect(gone).toMatchObject({ end_reason: 'deleted', pool: { id: pool.id } });
    expect(gone.end_detail).toContain('reuse: false');
    await counts('replace', 2);
    expect((await poolSessions(pool.id)).map((s: { session_id: string }) => s.session_id)).not.toContain(a.session_id);

    const b = await kernel.browserPools.acquire('replace', {});
    const idleBefore = (await poolSessions(pool.id)).filter((s: { session_id: string }) => s.session_id !== b.session_id)[0].session_id;
    await kernel.browserPools.flush('replace');
    expect((await svc.call('GET', `/browsers/${idleBefore}?include_deleted=true`)).body.end_detail).toContain('flushed');
    expect((await svc.call('GET', `/browsers/${b.session_id}`)).status).toBe(200);
    await counts('replace', 1, 1);
    const idleAfter = (await poolSessions(pool.id)).map((s: { session_id: string }) => s.session_id);
    expect(idleAfter).toContain(b.session_id);
    expect(idleAfter).not.toContain(idleBefore);

    // A pooled session can be deleted like any other; the pool replaces it.
    expect((await svc.call('DELETE', `/browsers/${b.session_id}`)).status).toBe(204);
    await counts('replace', 2);
    await kernel.browserPools.delete('replace');
  });

  it('updates the config (size, name, discard_all_idle) and refuses what it cannot apply', async () => {
    await kernel.browserPools.create({ name: 'tune', size: 1 });
    await counts('tune', 1);
    const firstIdle = (await svc.call('GET', '/browsers?limit=100')).body.find((s: { pool?: { name?: string } }) => s.pool?.name === 'tune');
    const grown = await kernel.browserPools.update('tune', { size: 2, name: 'tuned', timeout_seconds: 120, discard_all_idle: true });
    expect(grown).toMatchObject({ name: 'tuned', browser_pool_config: { size: 2, timeout_seconds: 120, name: 'tuned' } });
    const p = await counts('tuned', 2);
    expect((await svc.call('GET', `/browsers/${firstIdle.session_id}?include_deleted=true`)).body.deleted_at).toBeTruthy();
    const leased = await kernel.browserPools.acquire(p.id, {});
    expect(leased.timeout_seconds).toBe(120);
    await kernel.browserPools.release(p.id, { session_id: leased.session_id });
    await kernel.browserPools.update('tuned', { size: 1 });
    await counts('tuned', 1);
    expect((await kernel.browserPools.update('tuned', { name: '' })).name).toBe('tuned');

    // A policy the service manages itself is refused, naming the key (chrome-policy.test.ts covers the rest).
    const res = await svc.call('POST', '/browser_pools', { body: { size: 1, chrome_policy: { ProxyMode: 'direct' } } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'body.chrome_policy.ProxyMode' })]);
    await expect(kernel.browserPools.update('tuned', { proxy_id: 'x' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(kernel.browserPools.create({ size: 0 })).rejects.toBeInstanceOf(BadRequestError);
    await expect(kernel.browserPools.create({ size: 1, name: 'tuned' })).rejects.toBeInstanceOf(ConflictError);
    await kernel.browserPools.delete('tuned');
  });

  it('refuses to delete a pool with leased browsers unless force, which ends them too', async () => {
    const pool = await kernel.browserPools.create({ name: 'doomed', size: 2 });
    await counts('doomed', 2);
    const leased = await kernel.browserPools.acquire('doomed', {});
    await expect(kernel.browserPools.delete('doomed')).rejects.toBeInstanceOf(ConflictError);
    expect((await svc.call('GET', `/browsers/${leased.session_id}`)).status).toBe(200);
    await kernel.browserPools.delete('doomed', { force: true });
    const ended = (await svc.call('GET', `/browsers/${leased.session_id}?include_deleted=true`)).body;
    expect(ended).toMatchObject({ end_reason: 'deleted', pool: { id: pool.id } });
    expect(ended.end_detail).toContain('was deleted');
    await expect(kernel.browserPools.retrieve('doomed')).rejects.toBeInstanceOf(NotFoundError);
    expect(await poolSessions(pool.id)).toEqual([]);
  });
});
