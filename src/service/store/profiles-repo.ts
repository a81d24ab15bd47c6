// Browser profiles: id, name and times. The state itself is files under <dataDir>/profiles/<id>/ (host/profiles/profiles.ts);
// which sessions loaded a profile is in the browsers table (`profile_id`, `profile_save_changes`).
import type { Db } from './sqlite/open.js';
import { unique } from './sqlite/database.js';
import { likePattern } from './sql.js';

export interface ProfileRow {
  id: string;
  project_id: string | null;
  name: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
}

export interface NamedListQuery {
  projectId: string | null;
  /** Exact name, case-insensitive. */
  name?: string;
  /** Substring of the name or id, case-insensitive. */
  query?: string;
  offset: number;
  limit: number;
}

const COLUMNS = 'id, project_id, name, created_at, updated_at, last_used_at';

export class ProfilesRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(`INSERT INTO profiles (${COLUMNS}) VALUES (@id, @project_id, @name, @created_at, @updated_at, @last_used_at)`),
      byId: db.prepare<[string], ProfileRow>(`SELECT ${COLUMNS} FROM profiles WHERE id = ?`),
      byName: db.prepare<[string, string], ProfileRow>(`SELECT ${COLUMNS} FROM profiles WHERE ifnull(project_id, '') = ? AND name = ?`),
      rename: db.prepare(`UPDATE profiles SET name = @name, updated_at = @at WHERE id = @id`),
      updated: db.prepare(`UPDATE profiles SET updated_at = @at WHERE id = @id`),
      used: db.prepare(`UPDATE profiles SET last_used_at = @at WHERE id = @id`),
      remove: db.prepare(`DELETE FROM profiles WHERE id = ?`),
      writer: db.prepare<[string], { id: string }>(
        `SELECT id FROM browsers WHERE profile_id = ? AND profile_save_changes = 1 AND deleted_at IS NULL`,
      ),
    };
  }

  /** Throws UniqueViolation when the name is taken in the project. */
  insert(row: ProfileRow): void {
    unique(() => this.stmts.insert.run(row));
  }

  get(id: string): ProfileRow | undefined {
    return this.stmts.byId.get(id);
  }

  getByName(projectId: string | null, name: string): ProfileRow | undefined {
    return this.stmts.byName.get(projectId ?? '', name);
  }

  /** Throws UniqueViolation when the name is taken in the project. */
  rename(id: string, name: string, at: Date): void {
    unique(() => this.stmts.rename.run({ id, name, at: at.toISOString() }));
  }

  /** The stored state changed (a session wrote it back). */
  markUpdated(id: string, at: Date): void {
    this.stmts.updated.run({ id, at: at.toISOString() });
  }

  markUsed(id: string, at: Date): void {
    this.stmts.used.run({ id, at: at.toISOString() });
  }

  remove(id: string): void {
    this.stmts.remove.run(id);
  }

  /** The active session that holds the profile read-write, if any. */
  writerOf(id: string): string | undefined {
    return this.stmts.writer.get(id)?.id;
  }

  list(q: NamedListQuery): { rows: ProfileRow[]; hasMore: boolean } {
    return listNamed<ProfileRow>(this.db, 'profiles', COLUMNS, q);
  }
}

/** One page of a project's named resources (profiles, extensions), oldest first, and whether more follow. */
export function listNamed<T>(db: Db, table: string, columns: string, q: NamedListQuery): { rows: T[]; hasMore: boolean } {
  const where = [`ifnull(project_id, '') = @project`];
  const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
  if (q.name !== undefined) {
    where.push('name = @name COLLATE NOCASE');
    params.name = q.name;
  }
  if (q.query) {
    where.push(`(lower(id) LIKE @query ESCAPE '\\' OR lower(ifnull(name, '')) LIKE @query ESCAPE '\\')`);
    params.query = likePattern(q.query);
  }
  const rows = db
    .prepare<Record<string, unknown>, T>(`SELECT ${columns} FROM ${table} WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit OFFSET @offset`)
    .all(params);
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}
