// Browser pools: each pool's id, name and config. Which browsers a pool holds is live state (host/pools/pools.ts);
// a session's `pool_id` in the browsers table says which pool it belonged to.
import type { BrowserPoolConfig } from '../../api/types.js';
import type { Queryable } from './database.js';
import { join, likePattern, raw, sql } from './sql.js';

/**
 * The stored config; `name` lives in its own column (unique per project). `profile_id` and `extension_ids`
 * are the resolved ids of the config's `profile` and `extensions` (host/pools/resources.ts).
 */
export type StoredPoolConfig = Omit<BrowserPoolConfig, 'name'> & { profile_id?: string; extension_ids?: string[] };

export interface PoolRow {
  id: string;
  project_id: string | null;
  name: string | null;
  config: StoredPoolConfig;
  created_at: string;
}

type StoredRow = Omit<PoolRow, 'config'> & { config: string };

export interface PoolListQuery {
  projectId: string | null;
  name?: string;
  query?: string;
  offset: number;
  limit: number;
}

const COLUMNS = raw('id, project_id, name, config, created_at');

export class PoolsRepo {
  constructor(private readonly db: Queryable) {}

  /** Throws UniqueViolation when the name is taken in the project. */
  async insert(row: PoolRow): Promise<void> {
    await this.db.run(sql`INSERT INTO browser_pools (${COLUMNS})
      VALUES (${row.id}, ${row.project_id}, ${row.name}, ${JSON.stringify(row.config)}, ${row.created_at})`);
  }

  async get(id: string): Promise<PoolRow | undefined> {
    const row = await this.db.get<StoredRow>(sql`SELECT ${COLUMNS} FROM browser_pools WHERE id = ${id}`);
    return row && fromStored(row);
  }

  async getByName(projectId: string | null, name: string): Promise<PoolRow | undefined> {
    const row = await this.db.get<StoredRow>(
      sql`SELECT ${COLUMNS} FROM browser_pools WHERE coalesce(project_id, '') = ${projectId ?? ''} AND name = ${name}`,
    );
    return row && fromStored(row);
  }

  async all(): Promise<PoolRow[]> {
    return (await this.db.all<StoredRow>(sql`SELECT ${COLUMNS} FROM browser_pools ORDER BY seq`)).map(fromStored);
  }

  /** Throws UniqueViolation when the new name is taken in the project. */
  async update(id: string, name: string | null, config: StoredPoolConfig): Promise<void> {
    await this.db.run(sql`UPDATE browser_pools SET name = ${name}, config = ${JSON.stringify(config)} WHERE id = ${id}`);
  }

  async remove(id: string): Promise<void> {
    await this.db.run(sql`DELETE FROM browser_pools WHERE id = ${id}`);
  }

  /** One page of a project's pools, oldest first; `query` matches names (case-insensitive) or an exact id. */
  async list(q: PoolListQuery): Promise<{ rows: PoolRow[]; hasMore: boolean }> {
    const where = [sql`coalesce(project_id, '') = ${q.projectId ?? ''}`];
    if (q.name !== undefined) where.push(sql`name = ${q.name}`);
    if (q.query) where.push(sql`(id = ${q.query} OR lower(coalesce(name, '')) LIKE ${likePattern(q.query)} ESCAPE '\\')`);
    const rows = await this.db.all<StoredRow>(
      sql`SELECT ${COLUMNS} FROM browser_pools WHERE ${join(where, ' AND ')} ORDER BY seq LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
  }
}

function fromStored(row: StoredRow): PoolRow {
  return { ...row, config: JSON.parse(row.config) as StoredPoolConfig };
}
