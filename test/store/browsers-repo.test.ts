// BrowsersRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { BrowsersRepo } from '../../src/service/store/browsers-repo.js';
import { browserRow } from '../helpers/browser-row.js';
import { UniqueViolation } from '../../src/service/store/unique.js';
import { sql } from '../../src/service/store/sql.js';

const row = browserRow;

const full = row('full', {
  project_id: 'proj',
  name: 'everything',
  tags: { team: 'a', 'odd "key"': 'va,l"ue' },
  headless: false,
  stealth: true,
  kiosk_mode: true,
  timeout_seconds: 300,
  viewport: { width: 1280, height: 720 },
  start_url: 'https://example.com/',
  pid: 4242,
  user_data_dir: '/data/full',
  sandboxed: true,
  pool_id: 'pool1',
  profile_id: 'prof1',
  profile_save_changes: true,
  invocation_id: 'inv1',
  private_hosts: ['10.0.0.1', 'db.internal'],
  chrome_policy: { HomepageLocation: 'https://example.com/', Nested: { a: [1, 2] } },
  host_id: 'host-a',
});

describeStores('BrowsersRepo', (open) => {
  it('keeps every column as given: flags, JSON and nulls', async () => {
    const repo = new BrowsersRepo(await open());
    await repo.insert(full);
    await repo.insert(row('bare'));
    expect(await repo.get('full')).toEqual(full);
    expect(await repo.get('bare')).toEqual(row('bare'));
    expect(await repo.get('nope')).toBeUndefined();
  });

  it('finds active sessions by name within their project, and lists the active ones oldest first', async () => {
    const repo = new BrowsersRepo(await open());
    await repo.insert(row('a', { name: 'n' }));
    await repo.insert(row('b', { name: 'n', project_id: 'proj' }));
    await repo.insert(row('c', { invocation_id: 'inv' }));
    await repo.insert(row('d', { invocation_id: 'inv' }));
    expect((await repo.getActiveByName(null, 'n'))?.id).toBe('a');
    expect((await repo.getActiveByName('proj', 'n'))?.id).toBe('b');
    expect(await repo.getActiveByName('other', 'n')).toBeUndefined();
    expect((await repo.listActive()).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect((await repo.activeOfInvocation('inv')).map((r) => r.id)).toEqual(['c', 'd']);
    expect(await repo.end('c', 'deleted', 'by test', new Date('2026-01-02T00:00:00Z'))).toBe(true);
    expect((await repo.activeOfInvocation('inv')).map((r) => r.id)).toEqual(['d']);
    expect((await repo.listActive()).map((r) => r.id)).toEqual(['a', 'b', 'd']);
  });

  it("answers where a session runs, each host's active sessions, and the on-demand count the limits hold", async () => {
    const repo = new BrowsersRepo(await open());
    await repo.insert(row('a', { host_id: 'h1', name: 'n', project_id: 'p' }));
    await repo.insert(row('b', { host_id: 'h2' }));
    await repo.insert(row('c', { host_id: 'h1', pool_id: 'pool' }));
    await repo.insert(row('d'));
    expect(await repo.placement('a')).toEqual({ host_id: 'h1', active: true, project_id: 'p' });
    expect(await repo.placement('nope')).toBeUndefined();
    expect(await repo.placementByName('p', 'n')).toEqual({ id: 'a', host_id: 'h1' });
    expect(await repo.placementByName(null, 'n')).toBeUndefined();
    expect((await repo.listActive('h1')).map((r) => r.id)).toEqual(['a', 'c']);
    expect((await repo.listActive(null)).map((r) => r.id)).toEqual(['d']);
    // Pool browsers are counted by their pools' sizes, not here.
    expect(await repo.onDemandCounts('p')).toEqual({ org: 3, project: 1 });
    expect(await repo.onDemandCounts(null)).toEqual({ org: 3, project: 2 });
    await repo.end('a', 'deleted', null, new Date('2026-01-02T00:00:00Z'));
    expect(await repo.placement('a')).toMatchObject({ active: false });
    expect(await repo.onDemandCounts('p')).toEqual({ org: 2, project: 0 });
  });

  it('records an end once; an ended name is free again; remove deletes the record', async () => {
    const repo = new BrowsersRepo(await open());
    await repo.insert(row('a', { name: 'n' }));
    expect(await repo.end('a', 'timeout', null, new Date('2026-01-02T00:00:00Z'))).toBe(true);
    expect(await repo.end('a', 'deleted', 'again', new Date('2026-01-03T00:00:00Z'))).toBe(false);
    expect(await repo.get('a')).toMatchObject({ deleted_at: '2026-01-02T00:00:00.000Z', end_reason: 'timeout', end_detail: null });
    expect(await repo.getActiveByName(null, 'n')).toBeUndefined();
    await repo.insert(row('b', { name: 'n' }));
    expect((await repo.getActiveByName(null, 'n'))?.id).toBe('b');
    await repo.remove('b');
    expect(await repo.get('b')).toBeUndefined();
  });

  it('refuses an active name taken in the project, on insert and on update', async () => {
    const repo = new BrowsersRepo(await open());
    await repo.insert(row('a', { name: 'n' }));
    await repo.insert(row('b', { name: 'n', project_id: 'proj' }));
    await repo.insert(row('c'));
    await expect(repo.insert(row('x', { name: 'n' }))).rejects.toBeInstanceOf(UniqueViolation);
    await expect(repo.update('c', { name: 'n' })).rejects.toBeInstanceOf(UniqueViolation);
    // An update answers the row as written, as a read after it would.
    const updated = await repo.update('c', { name: 'm', tags: { k: 'v' }, timeout_seconds: 90, start_url: 'https://x.test/' });
    expect(updated).toMatchObject({ name: 'm', tags: { k: 'v' }, timeout_seconds: 90, start_url: 'https://x.test/' });
    expect(await repo.get('c')).toEqual(updated);
    await repo.update('c', { start_url: null });
    expect(await repo.update('c', {})).toEqual(await repo.get('c'));
    expect(await repo.get('c')).toMatchObject({ name: 'm', start_url: null, tags: { k: 'v' } });
    expect(await repo.update('nope', { name: 'z' })).toBeUndefined();
  });

  it('sets the process, and a profile one active session at a time holds read-write', async () => {
    const repo = new BrowsersRepo(await open());
    await repo.insert(row('a'));
    await repo.insert(row('b'));
    await repo.setProcess('a', 99, '/data/a');
    expect(await repo.get('a')).toMatchObject({ pid: 99, user_data_dir: '/data/a' });
    await repo.setProfile('a', 'p', true);
    await expect(repo.setProfile('b', 'p', true)).rejects.toBeInstanceOf(UniqueViolation);
    await expect(repo.insert(row('c', { profile_id: 'p', profile_save_changes: true }))).rejects.toBeInstanceOf(UniqueViolation);
    await repo.setProfile('b', 'p', false);
    expect(await repo.get('b')).toMatchObject({ profile_id: 'p', profile_save_changes: false });
    await repo.setProfile('a', null, false);
    expect(await repo.get('a')).toMatchObject({ profile_id: null, profile_save_changes: false });
    await repo.setProfile('b', 'p', true);
    // An ended session's profile stays as it was.
    await repo.end('b', 'deleted', null, new Date());
    await repo.setProfile('b', null, false);
    expect((await repo.get('b'))?.profile_id).toBe('p');
  });

  it('pages by status oldest first, searching ids, names, profiles and proxies literally and case-insensitively', async () => {
    const db = await open();
    const repo = new BrowsersRepo(db);
    await repo.insert(row('a1', { name: 'Shop_1' }));
    await repo.insert(row('a2', { name: 'shopX1', profile_id: 'prof-7' }));
    await repo.insert(row('a3', { name: 'other' }));
    await repo.insert(row('a4', { project_id: 'proj', name: 'shop_1' }));
    await repo.end('a3', 'deleted', null, new Date());
    await db.run(sql`INSERT INTO profiles (id, project_id, name, created_at, updated_at) VALUES ('prof-7', NULL, 'Checkout', 'x', 'x')`);
    await db.run(sql`INSERT INTO browser_proxies (browser_id, proxy_id, mode) VALUES ('a1', 'px-Resi', NULL)`);
    const ids = async (q: Partial<Parameters<BrowsersRepo['list']>[0]>) =>
      (await repo.list({ projectId: null, status: 'all', offset: 0, limit: 10, ...q })).rows.map((r) => r.id);
    expect(await ids({})).toEqual(['a1', 'a2', 'a3']);
    expect(await ids({ status: 'active' })).toEqual(['a1', 'a2']);
    expect(await ids({ status: 'deleted' })).toEqual(['a3']);
    expect(await ids({ projectId: 'proj' })).toEqual(['a4']);
    expect(await ids({ query: 'SHOP_' })).toEqual(['a1']);
    expect(await ids({ query: 'A3' })).toEqual(['a3']);
    expect(await ids({ query: 'checkout' })).toEqual(['a2']);
    expect(await ids({ query: 'prof-7' })).toEqual(['a2']);
    expect(await ids({ query: 'px-resi' })).toEqual(['a1']);
    expect(await ids({ query: '%' })).toEqual([]);
    const first = await repo.list({ projectId: null, status: 'all', offset: 0, limit: 2 });
    expect([first.rows.map((r) => r.id), first.hasMore]).toEqual([['a1', 'a2'], true]);
    const last = await repo.list({ projectId: null, status: 'all', offset: 2, limit: 2 });
    expect([last.rows.map((r) => r.id), last.hasMore]).toEqual([['a3'], false]);
  });

  it('filters by every given tag exactly (case, quotes, commas and the first tag alike), paging after the filter', async () => {
    const repo = new BrowsersRepo(await open());
    await repo.insert(row('t1', { tags: { team: 'a', env: 'b' } }));
    await repo.insert(row('t2', { tags: { env: 'b', team: 'a' } }));
    await repo.insert(row('t3', { tags: { team: 'A', env: 'b' } }));
    await repo.insert(row('t4', { tags: { note: 'x,"team":"a"' } }));
    await repo.insert(row('t5', { tags: { 'odd "key"': 'va,l"ue', team: 'a' } }));
    await repo.insert(row('t6', { tags: { teams: 'a', team2: 'a' } }));
    const ids = async (tags: Record<string, string>, offset = 0, limit = 10) =>
      (await repo.list({ projectId: null, status: 'all', tags, offset, limit })).rows.map((r) => r.id);
    expect(await ids({ team: 'a' })).toEqual(['t1', 't2', 't5']);
    expect(await ids({ team: 'a', env: 'b' })).toEqual(['t1', 't2']);
    expect(await ids({ team: 'A' })).toEqual(['t3']);
    expect(await ids({ 'odd "key"': 'va,l"ue' })).toEqual(['t5']);
    expect(await ids({ note: 'x,"team":"a"' })).toEqual(['t4']);
    expect(await ids({ team: 'b' })).toEqual([]);
    expect(await ids({ team: 'a' }, 1, 1)).toEqual(['t2']);
    const page = await repo.list({ projectId: null, status: 'all', tags: { team: 'a' }, offset: 0, limit: 2 });
    expect(page.hasMore).toBe(true);
    expect((await repo.list({ projectId: null, status: 'all', tags: { team: 'a' }, offset: 1, limit: 2 })).hasMore).toBe(false);
  });
});
