// ProjectsRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { NameTakenError, ProjectsRepo } from '../../src/service/store/projects-repo.js';
import { ApiKeysRepo } from '../../src/service/store/api-keys-repo.js';
import { PoolsRepo } from '../../src/service/store/pools-repo.js';
import { sql } from '../../src/service/store/sql.js';
import type { Database } from '../../src/service/store/database.js';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const LATER = new Date('2026-03-02T10:00:00.000Z');

const addProxy = (db: Database, id: string, projectId: string, deletedAt: string | null = null) =>
  db.run(sql`INSERT INTO proxies (id, project_id, type, protocol, created_at, deleted_at) VALUES (${id}, ${projectId}, 'custom', 'http', ${NOW.toISOString()}, ${deletedAt})`);

describeStores('ProjectsRepo', (open) => {
  it('creates, finds by id or by name (case-insensitively) and updates', async () => {
    const repo = new ProjectsRepo(await open());
    const p = await repo.create('Staging', NOW);
    expect(p).toEqual({ id: p.id, name: 'Staging', status: 'active', created_at: NOW.toISOString(), updated_at: NOW.toISOString(), deleted_at: null });
    expect(await repo.get(p.id)).toEqual(p);
    expect(await repo.find(p.id)).toEqual(p);
    expect(await repo.find('STAGING')).toEqual(p);
    expect(await repo.find('missing')).toBeUndefined();
    const next = await repo.update(p, { name: 'Prod', status: 'archived' }, LATER);
    expect(next).toEqual({ ...p, name: 'Prod', status: 'archived', updated_at: LATER.toISOString() });
    expect(await repo.get(p.id)).toEqual(next);
  });

  it('prefers the project whose id it is over one named so', async () => {
    const repo = new ProjectsRepo(await open());
    const a = await repo.create('first', NOW);
    const b = await repo.create(a.id, NOW);
    expect((await repo.find(a.id))?.id).toBe(a.id);
    expect((await repo.find(a.id.toUpperCase()))?.id).toBe(b.id);
  });

  it('refuses a live name taken (any case), on create and update; a deleted one is free again', async () => {
    const repo = new ProjectsRepo(await open());
    const a = await repo.create('alpha', NOW);
    const b = await repo.create('beta', NOW);
    await expect(repo.create('ALPHA', NOW)).rejects.toBeInstanceOf(NameTakenError);
    await expect(repo.update(b, { name: 'Alpha' }, NOW)).rejects.toThrow("a project named 'Alpha' already exists");
    expect(await repo.softDelete(a.id, LATER)).toEqual([]);
    const again = await repo.create('Alpha', NOW);
    expect(again.id).not.toBe(a.id);
    expect(await repo.find(a.id)).toBeUndefined();
    expect(await repo.get(a.id)).toMatchObject({ deleted_at: LATER.toISOString(), updated_at: LATER.toISOString() });
  });

  it('lists live projects oldest first, by name or substring (wildcards literal), in pages', async () => {
    const repo = new ProjectsRepo(await open());
    for (const name of ['Shop_1', 'shopX1', 'other', 'gone']) await repo.create(name, NOW);
    await repo.softDelete((await repo.find('gone'))!.id, NOW);
    const names = async (q: { name?: string; query?: string; offset?: number; limit?: number }) => {
      const page = await repo.list({ offset: 0, limit: 10, ...q });
      return [page.rows.map((r) => r.name), page.hasMore];
    };
    expect(await names({})).toEqual([['Shop_1', 'shopX1', 'other'], false]);
    expect(await names({ limit: 2 })).toEqual([['Shop_1', 'shopX1'], true]);
    expect(await names({ offset: 2, limit: 2 })).toEqual([['other'], false]);
    expect(await names({ name: 'OTHER' })).toEqual([['other'], false]);
    expect(await names({ query: 'SHOP_' })).toEqual([['Shop_1'], false]);
    expect(await names({ query: 'hop' })).toEqual([['Shop_1', 'shopX1'], false]);
    expect(await names({ query: 'gone' })).toEqual([[], false]);
  });

  it('deletes only an empty project, and with it its keys and limits', async () => {
    const db = await open();
    const repo = new ProjectsRepo(db);
    const keys = new ApiKeysRepo(db);
    const p = await repo.create('busy', NOW);
    const other = await repo.create('other', NOW);
    await new PoolsRepo(db).insert({ id: 'pool', project_id: p.id, name: null, config: { size: 1 } as never, created_at: NOW.toISOString() });
    await addProxy(db, 'x1', p.id);
    await addProxy(db, 'x2', p.id);
    await addProxy(db, 'x3', p.id, NOW.toISOString());
    await addProxy(db, 'x4', other.id);
    const key = await keys.add('bcs_project-key-0000000000', { name: 'scoped', projectId: p.id, now: NOW });
    const otherKey = await keys.add('bcs_other-key-000000000000', { name: 'other', projectId: other.id, now: NOW });
    await db.run(sql`INSERT INTO project_limits (project_id, max_concurrent_sessions) VALUES (${p.id}, 3)`);

    const left = [{ table: 'browser_pools', count: 1 }, { table: 'proxies', count: 2 }];
    expect(await repo.resources(p.id)).toEqual(left);
    expect(await repo.softDelete(p.id, LATER)).toEqual(left);
    expect((await repo.find(p.id))?.deleted_at).toBeNull();

    await new PoolsRepo(db).remove('pool');
    await db.run(sql`UPDATE proxies SET deleted_at = ${NOW.toISOString()} WHERE project_id = ${p.id}`);
    expect(await repo.resources(p.id)).toEqual([]);
    expect(await repo.softDelete(p.id, LATER)).toEqual([]);
    expect(await repo.find(p.id)).toBeUndefined();
    expect((await keys.get(key.id))?.deleted_at).toBe(LATER.toISOString());
    expect((await keys.get(otherKey.id))?.deleted_at).toBeNull();
    expect(await db.get(sql`SELECT project_id FROM project_limits WHERE project_id = ${p.id}`)).toBeUndefined();
    expect(await repo.resources(other.id)).toEqual([{ table: 'proxies', count: 1 }]);
  });
});
