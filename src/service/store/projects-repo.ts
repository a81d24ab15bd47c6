// Projects: named scopes inside the organisation. Soft-deleted, and only when empty; a live name is unique
// (case-insensitively). Resources of a project are rows of any table with a `project_id` column.
import type { ProjectStatus } from '../../api/types.js';
import { newId } from '../ids.js';
import type { Db } from './sqlite/open.js';
import { UniqueViolation } from './unique.js';
import { unique } from './sqlite/database.js';

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

const COLUMNS = 'id, name, status, created_at, updated_at, deleted_at';
/** Tables whose `project_id` is not "a resource living in the project". */
const NOT_RESOURCES = new Set(['projects', 'project_limits', 'api_keys', 'audit_logs']);

export class NameTakenError extends Error {}

export class ProjectsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      byId: db.prepare<[string], ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE id = ?`),
      liveByName: db.prepare<[string], ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE name = ? COLLATE NOCASE AND deleted_at IS NULL`),
      insert: db.prepare(`INSERT INTO projects (${COLUMNS}) VALUES (@id, @name, @status, @created_at, @updated_at, @deleted_at)`),
      update: db.prepare(`UPDATE projects SET name = @name, status = @status, updated_at = @updated_at WHERE id = @id`),
      softDelete: db.prepare(`UPDATE projects SET deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`),
      deleteKeys: db.prepare(`UPDATE api_keys SET deleted_at = ? WHERE project_id = ? AND deleted_at IS NULL`),
      deleteLimits: db.prepare(`DELETE FROM project_limits WHERE project_id = ?`),
    };
  }

  create(name: string, now: Date): ProjectRow {
    const at = now.toISOString();
    const row: ProjectRow = { id: newId(), name, status: 'active', created_at: at, updated_at: at, deleted_at: null };
    this.write(name, () => this.stmts.insert.run(row));
    return row;
  }

  /** A live project by id, else by name. */
  find(idOrName: string): ProjectRow | undefined {
    const byId = this.stmts.byId.get(idOrName);
    if (byId && !byId.deleted_at) return byId;
    return this.stmts.liveByName.get(idOrName);
  }

  /** By id, deleted ones included. */
  get(id: string): ProjectRow | undefined {
    return this.stmts.byId.get(id);
  }

  list(q: { name?: string; query?: string; offset: number; limit: number }): { rows: ProjectRow[]; hasMore: boolean } {
    const where = ['deleted_at IS NULL'];
    const params: Record<string, unknown> = { limit: q.limit + 1, offset: q.offset };
    if (q.name !== undefined) {
      where.push('name = @name COLLATE NOCASE');
      params.name = q.name;
    }
    if (q.query) {
      where.push('instr(lower(name), @query) > 0');
      params.query = q.query.toLowerCase();
    }
    const rows = this.db
      .prepare<Record<string, unknown>, ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit OFFSET @offset`)
      .all(params);
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  update(row: ProjectRow, fields: { name?: string; status?: ProjectStatus }, now: Date): ProjectRow {
    const next: ProjectRow = { ...row, ...fields, updated_at: now.toISOString() };
    this.write(next.name, () => this.stmts.update.run(next));
    return next;
  }

  /**
   * Soft-deletes an empty project, and with it the keys scoped to it (they could reach nothing any more)
   * and its limits. Checked and done in one transaction, so nothing can land in between.
   * Returns what is still in the project when it is not empty.
   */
  softDelete(id: string, now: Date): ProjectResources[] {
    return this.db.transaction(() => {
      const left = this.resources(id);
      if (left.length) return left;
      const at = now.toISOString();
      this.stmts.softDelete.run(at, at, id);
      this.stmts.deleteKeys.run(at, id);
      this.stmts.deleteLimits.run(id);
      return [];
    })();
  }

  /**
   * Live rows in the project, per table. Every table with a `project_id` column counts (rows with a
   * `deleted_at` only while it is null), so resource kinds added later are covered without a change here.
   */
  resources(projectId: string): ProjectResources[] {
    const out: ProjectResources[] = [];
    const tables = this.db.prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all();
    for (const { name } of tables) {
      if (NOT_RESOURCES.has(name)) continue;
      const columns = new Set(this.db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${name.replace(/'/g, "''")}')`).all().map((c) => c.name));
      if (!columns.has('project_id')) continue;
      const live = columns.has('deleted_at') ? ' AND deleted_at IS NULL' : '';
      const { n } = this.db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM "${name.replace(/"/g, '""')}" WHERE project_id = ?${live}`).get(projectId)!;
      if (n > 0) out.push({ table: name, count: n });
    }
    return out;
  }

  /** Runs a write that may hit the live-name index, turning that into NameTakenError. */
  private write(name: string, run: () => unknown): void {
    try {
      unique(run);
    } catch (err) {
      if (err instanceof UniqueViolation) throw new NameTakenError(`a project named '${name}' already exists`);
      throw err;
    }
  }
}
