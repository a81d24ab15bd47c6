// ExtensionsRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { ExtensionsRepo, type ExtensionRow } from '../../src/service/store/extensions-repo.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const row = (id: string, name: string | null, projectId: string | null = null): ExtensionRow => ({
  id,
  project_id: projectId,
  name,
  created_at: '2026-01-01T00:00:00.000Z',
  // Past 2^32: the column is BIGINT on PostgreSQL and comes back as a number.
  size_bytes: 5_000_000_123,
  checksum: `sha256:${id}`,
  last_used_at: null,
});

describeStores('ExtensionsRepo', (open) => {
  it('keeps every column as given, by id and by name within its project', async () => {
    const repo = new ExtensionsRepo(await open());
    await repo.insert(row('e1', 'alpha'));
    await repo.insert({ ...row('e2', 'alpha', 'proj'), size_bytes: 12, last_used_at: '2026-01-02T00:00:00.000Z' });
    await repo.insert(row('e3', null));
    expect(await repo.get('e1')).toEqual(row('e1', 'alpha'));
    expect(await repo.get('e2')).toEqual({ ...row('e2', 'alpha', 'proj'), size_bytes: 12, last_used_at: '2026-01-02T00:00:00.000Z' });
    expect(await repo.get('e3')).toEqual(row('e3', null));
    expect((await repo.getByName(null, 'alpha'))?.id).toBe('e1');
    expect((await repo.getByName('proj', 'alpha'))?.id).toBe('e2');
    expect(await repo.getByName('other', 'alpha')).toBeUndefined();
  });

  it('refuses a name or id taken; unnamed ones never clash', async () => {
    const repo = new ExtensionsRepo(await open());
    await repo.insert(row('e1', 'alpha'));
    await repo.insert(row('e2', null));
    await repo.insert(row('e3', null));
    await expect(repo.insert(row('e4', 'alpha'))).rejects.toBeInstanceOf(UniqueViolation);
    await expect(repo.insert(row('e1', 'beta'))).rejects.toBeInstanceOf(UniqueViolation);
    await repo.insert(row('e5', 'alpha', 'proj'));
  });

  it('marks uses and removes', async () => {
    const repo = new ExtensionsRepo(await open());
    await repo.insert(row('e1', 'alpha'));
    await repo.markUsed('e1', new Date('2026-03-02T00:00:00.000Z'));
    expect((await repo.get('e1'))?.last_used_at).toBe('2026-03-02T00:00:00.000Z');
    await repo.remove('e1');
    expect(await repo.get('e1')).toBeUndefined();
    await repo.insert(row('e2', 'alpha'));
  });

  it('pages oldest first with the same filters as profiles', async () => {
    const repo = new ExtensionsRepo(await open());
    for (const [id, name] of [['a1', 'Ext_1'], ['b2', 'extX1'], ['c3', null]] as const) await repo.insert(row(id, name));
    const list = (q: Partial<Parameters<ExtensionsRepo['list']>[0]>) => repo.list({ projectId: null, offset: 0, limit: 10, ...q });
    expect(await list({ limit: 2 })).toEqual({ rows: [row('a1', 'Ext_1'), row('b2', 'extX1')], hasMore: true });
    expect((await list({ offset: 2, limit: 2 })).hasMore).toBe(false);
    expect((await list({ name: 'ext_1' })).rows.map((r) => r.id)).toEqual(['a1']);
    expect((await list({ query: 'EXT_' })).rows.map((r) => r.id)).toEqual(['a1']);
    expect((await list({ query: 'c3' })).rows.map((r) => r.id)).toEqual(['c3']);
    expect((await list({ projectId: 'proj' })).rows).toEqual([]);
  });
});
