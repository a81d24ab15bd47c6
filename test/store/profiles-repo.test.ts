// ProfilesRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import type { Database } from '../../src/service/store/database.js';
import { ProfilesRepo, type ProfileRow } from '../../src/service/store/profiles-repo.js';
import { sql } from '../../src/service/store/sql.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const row = (id: string, name: string | null, projectId: string | null = null): ProfileRow => ({
  id,
  project_id: projectId,
  name,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  last_used_at: null,
});

/** A session record holding `profileId`, read-write when `save`. */
async function browser(db: Database, id: string, profileId: string, save: boolean, deleted = false): Promise<void> {
  await db.run(sql`INSERT INTO browsers (id, headless, stealth, kiosk_mode, timeout_seconds, created_at, deleted_at, profile_id, profile_save_changes)
    VALUES (${id}, ${true}, ${false}, ${false}, ${60}, ${'2026-01-01T00:00:00.000Z'}, ${deleted ? '2026-01-02T00:00:00.000Z' : null}, ${profileId}, ${save})`);
}

describeStores('ProfilesRepo', (open) => {
  it('keeps every column as given, by id and by name within its project', async () => {
    const repo = new ProfilesRepo(await open());
    await repo.insert(row('p1', 'alpha'));
    await repo.insert({ ...row('p2', 'alpha', 'proj'), last_used_at: '2026-01-03T00:00:00.000Z' });
    await repo.insert(row('p3', null));
    expect(await repo.get('p1')).toEqual(row('p1', 'alpha'));
    expect(await repo.get('p2')).toEqual({ ...row('p2', 'alpha', 'proj'), last_used_at: '2026-01-03T00:00:00.000Z' });
    expect(await repo.get('p3')).toEqual(row('p3', null));
    expect((await repo.getByName(null, 'alpha'))?.id).toBe('p1');
    expect((await repo.getByName('proj', 'alpha'))?.id).toBe('p2');
    expect(await repo.getByName('other', 'alpha')).toBeUndefined();
    expect(await repo.getByName(null, 'ALPHA')).toBeUndefined();
    expect(await repo.get('nope')).toBeUndefined();
    expect(await repo.getMany(['p3', 'nope', 'p1'])).toEqual(new Map([['p1', row('p1', 'alpha')], ['p3', row('p3', null)]]));
  });

  it('refuses a name taken in the project on insert and rename; unnamed ones never clash', async () => {
    const repo = new ProfilesRepo(await open());
    await repo.insert(row('p1', 'alpha'));
    await repo.insert(row('p2', 'beta'));
    await repo.insert(row('p3', null));
    await repo.insert(row('p4', null));
    await expect(repo.insert(row('p5', 'alpha'))).rejects.toBeInstanceOf(UniqueViolation);
    await expect(repo.insert(row('p1', 'other'))).rejects.toBeInstanceOf(UniqueViolation);
    await expect(repo.rename('p2', 'alpha', new Date('2026-02-01T00:00:00.000Z'))).rejects.toBeInstanceOf(UniqueViolation);
    await repo.rename('p2', 'gamma', new Date('2026-02-01T00:00:00.000Z'));
    expect(await repo.get('p2')).toEqual({ ...row('p2', 'gamma'), updated_at: '2026-02-01T00:00:00.000Z' });
  });

  it('marks updates and uses, and removes', async () => {
    const repo = new ProfilesRepo(await open());
    await repo.insert(row('p1', 'alpha'));
    await repo.markUpdated('p1', new Date('2026-03-01T00:00:00.000Z'));
    await repo.markUsed('p1', new Date('2026-03-02T00:00:00.000Z'));
    expect(await repo.get('p1')).toEqual({ ...row('p1', 'alpha'), updated_at: '2026-03-01T00:00:00.000Z', last_used_at: '2026-03-02T00:00:00.000Z' });
    await repo.remove('p1');
    expect(await repo.get('p1')).toBeUndefined();
    expect(await repo.getByName(null, 'alpha')).toBeUndefined();
  });

  it('names the active session that holds a profile read-write', async () => {
    const db = await open();
    const repo = new ProfilesRepo(db);
    await repo.insert(row('p1', 'alpha'));
    await browser(db, 'b-ro', 'p1', false);
    await browser(db, 'b-gone', 'p1', true, true);
    expect(await repo.writerOf('p1')).toBeUndefined();
    await browser(db, 'b-rw', 'p1', true);
    expect(await repo.writerOf('p1')).toBe('b-rw');
    expect(await repo.writerOf('p2')).toBeUndefined();
  });

  it('pages oldest first; the name filter is exact but case-insensitive, the query a substring of name or id', async () => {
    const repo = new ProfilesRepo(await open());
    for (const [id, name] of [['a1', 'Shop_1'], ['b2', 'shopX1'], ['c3', 'other'], ['d4', null]] as const) await repo.insert(row(id, name));
    await repo.insert(row('e5', 'shop_1', 'proj'));
    const list = (q: Partial<Parameters<ProfilesRepo['list']>[0]>) => repo.list({ projectId: null, offset: 0, limit: 10, ...q });
    expect((await list({ limit: 2 })).rows.map((r) => r.id)).toEqual(['a1', 'b2']);
    expect((await list({ limit: 2 })).hasMore).toBe(true);
    expect(await list({ offset: 2, limit: 2 })).toEqual({ rows: [row('c3', 'other'), row('d4', null)], hasMore: false });
    expect((await list({ name: 'SHOP_1' })).rows.map((r) => r.id)).toEqual(['a1']);
    expect((await list({ name: 'shop' })).rows).toEqual([]);
    expect((await list({ query: 'SHOP_' })).rows.map((r) => r.id)).toEqual(['a1']);
    expect((await list({ query: 'shop' })).rows.map((r) => r.id)).toEqual(['a1', 'b2']);
    expect((await list({ query: 'D4' })).rows.map((r) => r.id)).toEqual(['d4']);
    expect((await list({ query: '%' })).rows).toEqual([]);
    expect((await list({ projectId: 'proj' })).rows.map((r) => r.id)).toEqual(['e5']);
    expect((await list({ projectId: 'none' })).rows).toEqual([]);
  });
});
