// ApiKeysRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { ApiKeysRepo, type ApiKeyRecord } from '../../src/service/store/api-keys-repo.js';
import { ProjectsRepo } from '../../src/service/store/projects-repo.js';
import { maskKey } from '../../src/service/ids.js';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const later = (days: number) => new Date(NOW.getTime() + days * 86_400_000);
const names = (page: { rows: { name: string }[] }) => page.rows.map((r) => r.name);
const all = { status: 'all', sortBy: 'created_at', sortDirection: 'asc', offset: 0, limit: 50 } as const;

describeStores('ApiKeysRepo', (open) => {
  it('keeps every column as given, shows the project name, and never stores a key twice', async () => {
    const db = await open();
    const repo = new ApiKeysRepo(db);
    const project = await new ProjectsRepo(db).create('Staging', NOW);
    const plain = await repo.add('bcs_plain-key-000000000000', { name: 'plain', now: NOW });
    expect(plain).toEqual({
      id: plain.id, name: 'plain', masked_key: maskKey('bcs_plain-key-000000000000'), project_id: null, created_at: NOW.toISOString(),
      expires_at: null, deleted_at: null, created_by_id: null, created_by_name: null,
    } satisfies ApiKeyRecord);
    const scoped = await repo.add('bcs_scoped-key-00000000000', {
      name: 'scoped', projectId: project.id, expiresAt: later(3).toISOString(), now: NOW, createdBy: { id: plain.id, name: 'plain' },
    });
    expect(await repo.get(scoped.id)).toEqual({ ...scoped, project_name: 'Staging', created_by_id: plain.id, created_by_name: 'plain' });
    expect(await repo.get(plain.id)).toEqual({ ...plain, project_name: null });
    expect(await repo.get('missing')).toBeUndefined();
    // The bootstrap key again (a restart): the stored record, not a second one.
    expect(await repo.add('bcs_plain-key-000000000000', { name: 'other', now: later(1) })).toEqual(plain);
    expect((await repo.list(all)).rows.map((r) => r.id)).toEqual([plain.id, scoped.id]);
  });

  it('authenticates live keys only: unknown, deleted and expired ones are refused', async () => {
    const repo = new ApiKeysRepo(await open());
    const live = await repo.add('bcs_live-key-0000000000000', { name: 'live', now: NOW });
    const expiring = await repo.add('bcs_expiring-key-000000000', { name: 'expiring', expiresAt: later(1).toISOString(), now: NOW });
    const doomed = await repo.add('bcs_doomed-key-00000000000', { name: 'doomed', now: NOW });
    expect((await repo.authenticate('bcs_live-key-0000000000000', NOW))?.id).toBe(live.id);
    expect((await repo.authenticate('bcs_expiring-key-000000000', NOW))?.id).toBe(expiring.id);
    expect(await repo.authenticate('bcs_expiring-key-000000000', later(1))).toBeUndefined();
    expect(await repo.authenticate('bcs_unknown', NOW)).toBeUndefined();
    expect(await repo.softDelete(doomed.id, later(2))).toBe(true);
    expect(await repo.softDelete(doomed.id, later(3))).toBe(false);
    expect(await repo.authenticate('bcs_doomed-key-00000000000', NOW)).toBeUndefined();
    expect((await repo.get(doomed.id))?.deleted_at).toBe(later(2).toISOString());
  });

  it('keeps a found key for cacheMs: its own changes apply at once, another process\'s within cacheMs, a new key at once', async () => {
    const db = await open();
    let clock = 0;
    const repo = new ApiKeysRepo(db, { cacheMs: 1000, monotonic: () => clock });
    // Another process of the cluster, on the same store.
    const other = new ApiKeysRepo(db);
    const project = await new ProjectsRepo(db).create('Cached', NOW);
    const a = await repo.add('bcs_cached-a-0000000000000', { name: 'a', now: NOW });
    const b = await repo.add('bcs_cached-b-0000000000000', { name: 'b', now: NOW, projectId: project.id, expiresAt: later(1).toISOString() });
    const c = await repo.add('bcs_cached-c-0000000000000', { name: 'c', now: NOW });
    for (const key of ['bcs_cached-a-0000000000000', 'bcs_cached-b-0000000000000', 'bcs_cached-c-0000000000000']) expect(await repo.authenticate(key, NOW)).toBeDefined();
    // Expiry is the caller's clock, read on every call, kept or not.
    expect(await repo.authenticate('bcs_cached-b-0000000000000', later(1))).toBeUndefined();
    // Deleted by another process: still found until the kept record is 1000 ms old, then refused.
    await other.softDelete(a.id, NOW);
    clock = 999;
    expect((await repo.authenticate('bcs_cached-a-0000000000000', NOW))?.id).toBe(a.id);
    clock = 1000;
    expect(await repo.authenticate('bcs_cached-a-0000000000000', NOW)).toBeUndefined();
    // Deleted through this repo, or with its project: refused at once.
    expect(await repo.authenticate('bcs_cached-b-0000000000000', NOW)).toBeDefined();
    await repo.softDelete(c.id, NOW);
    expect(await repo.authenticate('bcs_cached-c-0000000000000', NOW)).toBeUndefined();
    expect(await new ProjectsRepo(db).softDelete(project.id, NOW)).toEqual([]);
    // (the store deleted the project's keys behind the repo: the project route tells it)
    expect((await repo.authenticate('bcs_cached-b-0000000000000', NOW))?.id).toBe(b.id);
    repo.forget((key) => key.project_id === project.id);
    expect(await repo.authenticate('bcs_cached-b-0000000000000', NOW)).toBeUndefined();
    // Misses are not kept: a key another process adds works here at once.
    expect(await repo.authenticate('bcs_cached-d-0000000000000', NOW)).toBeUndefined();
    await other.add('bcs_cached-d-0000000000000', { name: 'd', now: NOW });
    expect((await repo.authenticate('bcs_cached-d-0000000000000', NOW))?.name).toBe('d');
  });

  it('renames live keys only', async () => {
    const repo = new ApiKeysRepo(await open());
    const key = await repo.add('bcs_rename-key-00000000000', { name: 'before', now: NOW });
    expect(await repo.rename(key.id, 'after')).toBe(true);
    expect((await repo.get(key.id))?.name).toBe('after');
    expect(await repo.rename('missing', 'x')).toBe(false);
    await repo.softDelete(key.id, NOW);
    expect(await repo.rename(key.id, 'again')).toBe(false);
    expect((await repo.get(key.id))?.name).toBe('after');
  });

  it('rotates: the new key stored, the old one expiring by the grace period, never later than it would have', async () => {
    const repo = new ApiKeysRepo(await open());
    const creator = { id: 'me', name: 'me' };
    const forever = await repo.add('bcs_forever-key-0000000000', { name: 'forever', now: NOW });
    const fresh = await repo.rotate(forever.id, 'bcs_fresh-key-000000000000', { name: 'forever', projectId: null, expiresAt: null, now: NOW, createdBy: creator, graceUntil: later(3) });
    expect(fresh).toMatchObject({ name: 'forever', created_by_id: 'me', expires_at: null });
    expect((await repo.authenticate('bcs_fresh-key-000000000000', NOW))?.id).toBe(fresh.id);
    expect((await repo.get(forever.id))?.expires_at).toBe(later(3).toISOString());
    const short = await repo.add('bcs_short-key-000000000000', { name: 'short', expiresAt: later(1).toISOString(), now: NOW });
    await repo.rotate(short.id, 'bcs_short-next-00000000000', { name: 'short', projectId: null, expiresAt: null, now: NOW, createdBy: creator, graceUntil: later(30) });
    expect((await repo.get(short.id))?.expires_at).toBe(later(1).toISOString());
  });

  it('lists by status, name and search, sorted, ties in the order stored, in pages', async () => {
    const db = await open();
    const repo = new ApiKeysRepo(db);
    const project = await new ProjectsRepo(db).create('Shop_Prod', NOW);
    // One clock for all: created_at ties everywhere, so the order stored decides.
    const b = await repo.add('bcs_bbbbbbbbbbbbbbbbbbbbbbbb', { name: 'Sorter-B', expiresAt: later(5).toISOString(), now: NOW });
    const a = await repo.add('bcs_aaaaaaaaaaaaaaaaaaaaaaaa', { name: 'sorter-a', expiresAt: later(9).toISOString(), now: NOW, createdBy: { id: 'x', name: 'Alice' } });
    const n = await repo.add('bcs_nnnnnnnnnnnnnnnnnnnnnnnn', { name: 'never', now: NOW, projectId: project.id });
    const d = await repo.add('bcs_dddddddddddddddddddddddd', { name: 'gone', now: NOW });
    await repo.softDelete(d.id, NOW);
    const list = (q: Partial<Parameters<ApiKeysRepo['list']>[0]>) => repo.list({ ...all, status: 'active', ...q });

    expect(names(await list({}))).toEqual(['Sorter-B', 'sorter-a', 'never']);
    expect(names(await list({ sortDirection: 'desc' }))).toEqual(['never', 'sorter-a', 'Sorter-B']);
    expect(names(await list({ status: 'deleted' }))).toEqual(['gone']);
    expect(names(await list({ status: 'all' }))).toEqual(['Sorter-B', 'sorter-a', 'never', 'gone']);
    expect(names(await list({ name: 'SORTER-A' }))).toEqual(['sorter-a']);
    expect(names(await list({ sortBy: 'name' }))).toEqual(['never', 'sorter-a', 'Sorter-B']);
    // Keys that never expire sort as the latest expiry.
    expect(names(await list({ sortBy: 'expires_at' }))).toEqual(['Sorter-B', 'sorter-a', 'never']);
    expect(names(await list({ sortBy: 'expires_at', sortDirection: 'desc' }))).toEqual(['never', 'sorter-a', 'Sorter-B']);

    // Anywhere in name, creator or project (case-insensitively, wildcards literal); ids and masked keys by prefix, exactly.
    expect(names(await list({ query: 'ORTER' }))).toEqual(['Sorter-B', 'sorter-a']);
    expect(names(await list({ query: 'alice' }))).toEqual(['sorter-a']);
    expect(names(await list({ query: 'p_p' }))).toEqual(['never']);
    expect(names(await list({ query: 'p%p' }))).toEqual([]);
    expect(names(await list({ query: a.id.slice(0, 10) }))).toEqual(['sorter-a']);
    expect(names(await list({ query: a.id.slice(2, 12) }))).toEqual([]);
    expect(names(await list({ query: b.masked_key.slice(0, 9) }))).toEqual(['Sorter-B']);
    expect(names(await list({ query: b.masked_key.slice(0, 9).toUpperCase() }))).toEqual([]);
    expect((await list({ query: n.id })).rows[0]).toMatchObject({ id: n.id, project_name: 'Shop_Prod' });

    const first = await list({ limit: 2 });
    expect([names(first), first.hasMore]).toEqual([['Sorter-B', 'sorter-a'], true]);
    const second = await list({ limit: 2, offset: 2 });
    expect([names(second), second.hasMore]).toEqual([['never'], false]);
  });

  it('gives the organisation one stable id', async () => {
    const db = await open();
    const id = await new ApiKeysRepo(db).organizationId();
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    const [again, concurrent] = await Promise.all([new ApiKeysRepo(db).organizationId(), new ApiKeysRepo(db).organizationId()]);
    expect([again, concurrent]).toEqual([id, id]);
  });
});
