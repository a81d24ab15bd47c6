// Browser pools: each pool's id, name and config. Which browsers a pool holds is live state (host/pools/pools.ts);
// a session's `pool_id` in the browsers table says which pool it belonged to.
import type { BrowserPoolConfig } from '../../api/types.js';
import type { Db } from './sqlite/open.js';
import { unique } from './sqlite/database.js';
import { likePattern } from './sql.js';

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

const COLUMNS = 'id, project_id, name, config, created_at';

export class PoolsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(`INSERT INTO browser_pools (${COLUMNS}) VALUES (@id, @project_id, @name, @config, @created_at)`),
      byId: db.prepare<[string], StoredRow>(`SELECT ${COLUMNS} FROM browser_pools WHERE id = ?`),
      byName: db.prepare<[string, string], StoredRow>(`SELECT ${COLUMNS} FROM browser_pools WHERE ifnull(project_id, '') = ? AND name = ?`),
      all: db.prepare<[], StoredRow>(`SELECT ${COLUMNS} FROM browser_pools ORDER BY seq`),
      update: db.prepare(`UPDATE browser_pools SET name = @name, config = @config WHERE id = @id`),
      remove: db.prepare(`DELETE FROM browser_pools WHERE id = ?`),
    };
  }

  /** Throws UniqueViolation when the name is taken in the project. */
  insert(row: PoolRow): void {
    unique(() => this.stmts.insert.run({ ...row, config: JSON.stringify(row.config) }));
  }

  get(id: string): PoolRow | undefined {
    const row = this.stmts.byId.get(id);
    return row && fromStored(row);
  }

  getByName(projectId: string | null, name: string): PoolRow | undefined {
    const row = this.stmts.byName.get(projectId ?? '', name);
    return row && fromStored(row);
  }

  all(): PoolRow[] {
    return this.stmts.all.all().map(fromStored);
  }

  /** Throws UniqueViolation when the new name is taken in the project. */
  update(id: string, name: string | null, config: StoredPoolConfig): void {
    unique(() => this.stmts.update.run({ id, name, config: JSON.stringify(config) }));
  }

  remove(id: string): void {
    this.stmts.remove.run(id);
  }

  /** One page of a project's pools, oldest first; `query` matches names (case-insensitive) or an exact id. */
  list(q: PoolListQuery): { rows: PoolRow[]; hasMore: boolean } {
    const where = [`ifnull(project_id, '') = @project`];
    const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
    if (q.name !== undefined) {
      where.push('name = @name');
      params.name = q.name;
    }
    if (q.query) {
      where.push(`(id = @id OR lower(ifnull(name, '')) LIKE @query ESCAPE '\\')`);
      params.id = q.query;
      params.query = likePattern(q.query);
    }
    const rows = this.db
      .prepare<Record<string, unknown>, StoredRow>(
        `SELECT ${COLUMNS} FROM browser_pools WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit OFFSET @offset`,
      )
      .all(params);
    return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
  }
}

function fromStored(row: StoredRow): PoolRow {
  return { ...row, config: JSON.parse(row.config) as StoredPoolConfig };
}
