// InvocationsRepo's contract (invocations and the app events they and deployments stream), on both stores,
// and the EventLog over it: a follow gets every event once, in order, whatever it races with.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { EventLog, type StoredEvent } from '../../src/service/host/event-log.js';
import { InvocationsRepo, type InvocationRow } from '../../src/service/store/invocations-repo.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const AT = new Date('2026-02-03T04:05:06.000Z');

const invocation = (id: string, over: Partial<InvocationRow> = {}): InvocationRow => ({
  id,
  project_id: null,
  deployment_id: 'd1',
  app_name: 'app',
  version: '1.0.0',
  action_name: 'go',
  status: 'queued',
  status_reason: null,
  payload: null,
  output: null,
  started_at: '2026-01-01T00:00:00.000Z',
  started_ms: 1_767_225_600_000,
  finished_at: null,
  ...over,
});

describeStores('InvocationsRepo', (open) => {
  it('keeps every column as given, nulls and big millisecond counts included', async () => {
    const repo = new InvocationsRepo(await open());
    const full = invocation('i1', { project_id: 'p', status_reason: 'r', payload: '{"a":1}', output: '"x"', finished_at: '2026-01-01T00:01:00.000Z', status: 'succeeded' });
    await repo.insert(full);
    await repo.insert(invocation('i2'));
    expect(await repo.get('i1')).toEqual(full);
    expect(await repo.get('i2')).toEqual(invocation('i2'));
    expect(await repo.get('nope')).toBeUndefined();
    await expect(repo.insert(invocation('i1'))).rejects.toBeInstanceOf(UniqueViolation);
  });

  it('runs a queued invocation once and ends an unfinished one once: the first end wins', async () => {
    const repo = new InvocationsRepo(await open());
    for (const id of ['a', 'b', 'c']) await repo.insert(invocation(id));
    expect((await repo.unfinished()).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(await repo.markRunning('a')).toBe(true);
    expect(await repo.markRunning('a')).toBe(false);
    expect(await repo.finish('a', 'succeeded', null, '"ok"', AT)).toBe(true);
    expect(await repo.finish('a', 'failed', 'late', null, AT)).toBe(false);
    expect(await repo.get('a')).toMatchObject({ status: 'succeeded', status_reason: null, output: '"ok"', finished_at: AT.toISOString() });
    // Cancelled while queued: it never runs.
    expect(await repo.finish('b', 'failed', 'cancelled by request', null, AT)).toBe(true);
    expect(await repo.markRunning('b')).toBe(false);
    expect(await repo.get('b')).toMatchObject({ status: 'failed', status_reason: 'cancelled by request', output: null });
    // Concurrent ends: exactly one.
    const ends = await Promise.all([repo.finish('c', 'failed', 'one', null, AT), repo.finish('c', 'succeeded', null, '1', AT)]);
    expect(ends.filter(Boolean)).toHaveLength(1);
    expect(await repo.unfinished()).toEqual([]);
  });

  it('lists newest first with every filter, paging, per project', async () => {
    const repo = new InvocationsRepo(await open());
    await repo.insert(invocation('inv_1', { app_name: 'Shop_1', action_name: 'buy', started_ms: 1000 }));
    await repo.insert(invocation('inv2', { app_name: 'shopX1', action_name: 'browse', deployment_id: 'd2', version: '2', started_ms: 2000, status: 'running' }));
    await repo.insert(invocation('inv3', { action_name: 'Checkout', started_ms: 3000, status: 'failed' }));
    await repo.insert(invocation('theirs', { project_id: 'p' }));
    const ids = async (q: Partial<Parameters<InvocationsRepo['list']>[0]>) =>
      (await repo.list({ projectId: null, offset: 0, limit: 10, ...q })).rows.map((r) => r.id);
    expect(await ids({})).toEqual(['inv3', 'inv2', 'inv_1']);
    expect(await repo.list({ projectId: null, offset: 1, limit: 1 })).toMatchObject({ hasMore: true, rows: [{ id: 'inv2' }] });
    expect(await repo.list({ projectId: null, offset: 2, limit: 1 })).toMatchObject({ hasMore: false });
    expect(await ids({ appName: 'shopX1' })).toEqual(['inv2']);
    expect(await ids({ actionName: 'buy' })).toEqual(['inv_1']);
    expect(await ids({ deploymentId: 'd2' })).toEqual(['inv2']);
    expect(await ids({ status: 'failed' })).toEqual(['inv3']);
    expect(await ids({ version: '2' })).toEqual(['inv2']);
    expect(await ids({ sinceMs: 2000 })).toEqual(['inv3', 'inv2']);
    expect(await ids({ query: 'SHOP_' })).toEqual(['inv_1']);
    expect(await ids({ query: 'checkout' })).toEqual(['inv3']);
    expect(await ids({ query: 'V_1' })).toEqual(['inv_1']);
    expect(await ids({ projectId: 'p' })).toEqual(['theirs']);
  });

  it('stores events per owner in order, answers them from a time on, and trims all but the newest', async () => {
    const repo = new InvocationsRepo(await open(), 3);
    const seqs: number[] = [];
    for (let i = 0; i < 10; i++) seqs.push(await repo.addEvent('a', 1_000_000_000_000 + i, { event: 'log', message: `m${i}` }));
    await repo.addEvent('b', 5, { event: 'log', message: 'other' });
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    const kept = await repo.events('a', 0);
    // Trimmed every few events: at least the newest 3, never the whole history.
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(10);
    expect(kept.at(-1)).toEqual({ seq: seqs[9], ts_ms: 1_000_000_000_009, event: JSON.stringify({ event: 'log', message: 'm9' }) });
    expect((await repo.events('a', 1_000_000_000_008)).map((r) => JSON.parse(r.event).message)).toEqual(['m8', 'm9']);
    expect((await repo.events('b', 0)).map((r) => r.ts_ms)).toEqual([5]);
  });

  it('gives a follower the stored events, then live ones, each once and in order, while events keep coming', async () => {
    const repo = new InvocationsRepo(await open());
    let tick = 0;
    const events = new EventLog(repo, () => new Date(1_000_000 + tick++));
    for (let i = 0; i < 5; i++) events.log('o', `before ${i}`);
    const seen: StoredEvent[] = [];
    // Follows start while writes are in flight and more are published before their reads come back.
    const following = events.follow('o', 0, (e) => seen.push(e));
    for (let i = 0; i < 5; i++) events.log('o', `during ${i}`);
    const late: StoredEvent[] = [];
    const unfollowLate = await events.follow('o', 0, (e) => late.push(e));
    const unfollow = await following;
    for (let i = 0; i < 5; i++) events.log('o', `after ${i}`);
    await events.flush();
    const all = [...['before', 'during', 'after'].flatMap((w) => [0, 1, 2, 3, 4].map((i) => `${w} ${i}`))];
    expect(seen.map((e) => e.message)).toEqual(all);
    expect(late.map((e) => e.message)).toEqual(all);
    unfollow();
    unfollowLate();
    events.log('o', 'unseen');
    await events.flush();
    expect(seen).toHaveLength(15);
    const replay: StoredEvent[] = [];
    (await events.follow('o', 0, (e) => replay.push(e)))();
    expect(replay.map((e) => e.message)).toEqual([...all, 'unseen']);
  });
});
