// PoolsRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { PoolsRepo, type PoolRow } from '../../src/service/store/pools-repo.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const row = (id: string, name: string | null, projectId: string | null = null): PoolRow => ({
  id,
  project_id: projectId,
  name,
  config: { size: 2, headless: true, stealth: false, kiosk_mode: false, timeout_seconds: 600, fill_rate_per_minute: 10, extension_ids: ['e1'] },
  created_at: '2026-01-01T00:00:00.000Z',
});

describeStores('PoolsRepo', (open) => {
  it('keeps a pool and its config as given, by id and by name within its project', async () => {
    const repo = new PoolsRepo(await open());
    await repo.insert(row('p1', 'alpha'));
    await repo.insert(row('p2', 'alpha', 'proj'));
    expect(await repo.get('p1')).toEqual(row('p1', 'alpha'));
    expect((await repo.getByName('proj', 'alpha'))?.id).toBe('p2');
    expect(await repo.getByName('other', 'alpha')).toBeUndefined();
    expect((await repo.all()).map((r) => r.id)).toEqual(['p1', 'p2']);
  });

  it('refuses a name taken in the project, on insert and on update', async () => {
    const repo = new PoolsRepo(await open());
    await repo.insert(row('p1', 'alpha'));
    await repo.insert(row('p2', 'beta'));
    await expect(repo.insert(row('p3', 'alpha'))).rejects.toBeInstanceOf(UniqueViolation);
    await expect(repo.update('p2', 'alpha', row('p2', 'alpha').config)).rejects.toBeInstanceOf(UniqueViolation);
    await repo.update('p2', 'gamma', { ...row('p2', null).config, size: 5 });
    expect(await repo.get('p2')).toMatchObject({ name: 'gamma', config: { size: 5 } });
  });

  it('pages oldest first and matches names case-insensitively, wildcards taken literally', async () => {
    const repo = new PoolsRepo(await open());
    for (const [id, name] of [['a', 'Shop_1'], ['b', 'shopX1'], ['c', 'other'], ['d', null]] as const) await repo.insert(row(id, name));
    expect((await repo.list({ projectId: null, offset: 0, limit: 2 })).rows.map((r) => r.id)).toEqual(['a', 'b']);
    expect((await repo.list({ projectId: null, offset: 2, limit: 2 })).hasMore).toBe(false);
    expect((await repo.list({ projectId: null, offset: 0, limit: 2 })).hasMore).toBe(true);
    expect((await repo.list({ projectId: null, query: 'SHOP_', offset: 0, limit: 10 })).rows.map((r) => r.id)).toEqual(['a']);
    expect((await repo.list({ projectId: null, query: 'c', offset: 0, limit: 10 })).rows.map((r) => r.id)).toEqual(['c']);
    expect((await repo.list({ projectId: null, name: 'other', offset: 0, limit: 10 })).rows.map((r) => r.id)).toEqual(['c']);
    expect((await repo.list({ projectId: 'proj', offset: 0, limit: 10 })).rows).toEqual([]);
    await repo.remove('a');
    expect(await repo.get('a')).toBeUndefined();
  });
});
