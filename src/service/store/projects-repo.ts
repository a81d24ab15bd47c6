// Projects: named scopes inside the organisation. Soft-deleted, and only when empty; a live name is unique
// (case-insensitively). Resources of a project are rows of any table with a `project_id` column.
import type { ProjectStatus } from '../../api/types.js';
import { newId } from '../ids.js';
import type { Database, Queryable } from './database.js';
import { join, likePattern, raw, sql, type Sql } from './sql.js';
import { UniqueViolation } from './unique.js';

export interface ProjectRow {
  id: string;
  name: string;
  status: ProjectStatus;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** What keeps a project from being deleted: live rows per table. */
export interface ProjectResources {
  table: string;
  count: number;
}

const COLUMNS = raw('id, name, status, created_at, updated_at, deleted_at');
/** Tables whose `project_id` is not "a resource living in the project". */
const NOT_RESOURCES = new Set(['projects', 'project_limits', 'api_keys', 'audit_logs']);

export class NameTakenError extends Error {}

export class ProjectsRepo {
  constructor(private readonly db: Database) {}

  /** Throws NameTakenError when a live project has the name (case-insensitively). */
  async create(name: string, now: Date): Promise<ProjectRow> {
    const at = now.toISOString();
    const row: ProjectRow = { id: newId(), name, status: 'active', created_at: at, updated_at: at, deleted_at: null };
    await named(name, this.db.run(sql`INSERT INTO projects (${COLUMNS})
      VALUES (${row.id}, ${row.name}, ${row.status}, ${row.created_at}, ${row.updated_at}, ${row.deleted_at})`));
    return row;
  }

  /** A live project by id, else by name (case-insensitively); one query, as auth runs it on requests. */
  find(idOrName: string): Promise<ProjectRow | undefined> {
    return this.db.get<ProjectRow>(sql`SELECT ${COLUMNS} FROM projects
      WHERE deleted_at IS NULL AND (id = ${idOrName} OR lower(name) = lower(${idOrName}))
      ORDER BY CASE WHEN id = ${idOrName} THEN 0 ELSE 1 END LIMIT 1`);
  }

  /** By id, deleted ones included. */
  get(id: string): Promise<ProjectRow | undefined> {
    return this.db.get<ProjectRow>(sql`SELECT ${COLUMNS} FROM projects WHERE id = ${id}`);
  }

  async list(q: { name?: string; query?: string; offset: number; limit: number }): Promise<{ rows: ProjectRow[]; hasMore: boolean }> {
    const where: Sql[] = [sql`deleted_at IS NULL`];
    if (q.name !== undefined) where.push(sql`lower(name) = lower(${q.name})`);
    if (q.query) where.push(sql`lower(name) LIKE ${likePattern(q.query)} ESCAPE '\\'`);
    const rows = await this.db.all<ProjectRow>(
      sql`SELECT ${COLUMNS} FROM projects WHERE ${join(where, ' AND ')} ORDER BY seq LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /** Throws NameTakenError when the new name is another live project's. */
  async update(row: ProjectRow, fields: { name?: string; status?: ProjectStatus }, now: Date): Promise<ProjectRow> {
    const next: ProjectRow = { ...row, ...fields, updated_at: now.toISOString() };
    await named(next.name, this.db.run(sql`UPDATE projects SET name = ${next.name}, status = ${next.status}, updated_at = ${next.updated_at} WHERE id = ${next.id}`));
    return next;
  }

  /**
   * Soft-deletes an empty project, and with it the keys scoped to it (they could reach nothing any more)
   * and its limits. Checked and done in one transaction, so nothing can land in between.
   * Returns what is still in the project when it is not empty.
   */
  softDelete(id: string, now: Date): Promise<ProjectResources[]> {
    return this.db.transaction(async (tx) => {
      // On PostgreSQL, two deletes (or a delete and an update) of one project take turns; SQLite's
      // transaction already holds the only connection.
      if (tx.dialect === 'postgres') await tx.get(sql`SELECT id FROM projects WHERE id = ${id} FOR UPDATE`);
      const left = await resourcesIn(tx, id);
      if (left.length) return left;
      const at = now.toISOString();
      await tx.run(sql`UPDATE projects SET deleted_at = ${at}, updated_at = ${at} WHERE id = ${id} AND deleted_at IS NULL`);
      await tx.run(sql`UPDATE api_keys SET deleted_at = ${at} WHERE project_id = ${id} AND deleted_at IS NULL`);
      await tx.run(sql`DELETE FROM project_limits WHERE project_id = ${id}`);
      return [];
    });
  }

  /**
   * Live rows in the project, per table. Every table with a `project_id` column counts (rows with a
   * `deleted_at` only while it is null), so resource kinds added later are covered without a change here.
   */
  resources(projectId: string): Promise<ProjectResources[]> {
    return resourcesIn(this.db, projectId);
  }
}

async function resourcesIn(db: Queryable, projectId: string): Promise<ProjectResources[]> {
  const tables = (await projectColumns(db)).filter((t) => !NOT_RESOURCES.has(t.table) && t.columns.has('project_id'));
  if (!tables.length) return [];
  // One query for every table; table names come from the schema itself, never from a request.
  const counts = tables.map(({ table, columns }) => {
    const live = columns.has('deleted_at') ? raw(' AND deleted_at IS NULL') : raw('');
    return sql`SELECT CAST(${table} AS TEXT) AS name, count(*) AS n FROM ${raw(`"${table.replace(/"/g, '""')}"`)} WHERE project_id = ${projectId}${live}`;
  });
  const rows = await db.all<{ name: string; n: number }>(join(counts, ' UNION ALL '));
  return rows
    .map((r) => ({ table: r.name, count: Number(r.n) }))
    .filter((r) => r.count > 0)
    .sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
}

/**
 * Which tables have `project_id` / `deleted_at`. The one place that asks each database about its own
 * schema, in its own catalogue (SQLite's sqlite_master, PostgreSQL's information_schema).
 */
async function projectColumns(db: Queryable): Promise<{ table: string; columns: Set<string> }[]> {
  const rows =
    db.dialect === 'postgres'
      ? await db.all<{ t: string; c: string }>(sql`SELECT table_name AS t, column_name AS c FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name IN ('project_id', 'deleted_at')`)
      : await db.all<{ t: string; c: string }>(sql`SELECT m.name AS t, c.name AS c FROM sqlite_master m, pragma_table_info(m.name) c
          WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND c.name IN ('project_id', 'deleted_at')`);
  const byTable = new Map<string, Set<string>>();
  for (const { t, c } of rows) byTable.set(t, (byTable.get(t) ?? new Set()).add(c));
  return [...byTable].map(([table, columns]) => ({ table, columns }));
}

/** Awaits a write that may hit the live-name index, turning that into NameTakenError. */
async function named(name: string, write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (err instanceof UniqueViolation) throw new NameTakenError(`a project named '${name}' already exists`);
    throw err;
  }
}
