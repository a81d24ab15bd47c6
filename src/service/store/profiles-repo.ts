// Browser profiles: id, name and times. The state itself is files under <dataDir>/profiles/<id>/ (host/profiles/profiles.ts);
// which sessions loaded a profile is in the browsers table (`profile_id`, `profile_save_changes`).
import type { Queryable } from './database.js';
import { inList, join, likePattern, raw, sql, type Sql } from './sql.js';

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

const COLUMNS = raw('id, project_id, name, created_at, updated_at, last_used_at');

export class ProfilesRepo {
  constructor(private readonly db: Queryable) {}

  /** Throws UniqueViolation when the name is taken in the project. */
  async insert(row: ProfileRow): Promise<void> {
    await this.db.run(sql`INSERT INTO profiles (${COLUMNS})
      VALUES (${row.id}, ${row.project_id}, ${row.name}, ${row.created_at}, ${row.updated_at}, ${row.last_used_at})`);
  }

  get(id: string): Promise<ProfileRow | undefined> {
    return this.db.get<ProfileRow>(sql`SELECT ${COLUMNS} FROM profiles WHERE id = ${id}`);
  }

  /** Those of these profiles that exist, in one query. */
  async getMany(ids: readonly string[]): Promise<Map<string, ProfileRow>> {
    const rows = await this.db.all<ProfileRow>(sql`SELECT ${COLUMNS} FROM profiles WHERE id ${inList(ids)}`);
    return new Map(rows.map((row) => [row.id, row]));
  }

  getByName(projectId: string | null, name: string): Promise<ProfileRow | undefined> {
    return this.db.get<ProfileRow>(sql`SELECT ${COLUMNS} FROM profiles WHERE coalesce(project_id, '') = ${projectId ?? ''} AND name = ${name}`);
  }

  /** Throws UniqueViolation when the name is taken in the project. */
  async rename(id: string, name: string, at: Date): Promise<void> {
    await this.db.run(sql`UPDATE profiles SET name = ${name}, updated_at = ${at.toISOString()} WHERE id = ${id}`);
  }

  /** The stored state changed (a session wrote it back). */
  async markUpdated(id: string, at: Date): Promise<void> {
    await this.db.run(sql`UPDATE profiles SET updated_at = ${at.toISOString()} WHERE id = ${id}`);
  }

  async markUsed(id: string, at: Date): Promise<void> {
    await this.db.run(sql`UPDATE profiles SET last_used_at = ${at.toISOString()} WHERE id = ${id}`);
  }

  async remove(id: string): Promise<void> {
    await this.db.run(sql`DELETE FROM profiles WHERE id = ${id}`);
  }

  /** The active session that holds the profile read-write, if any. */
  async writerOf(id: string): Promise<string | undefined> {
    const row = await this.db.get<{ id: string }>(
      sql`SELECT id FROM browsers WHERE profile_id = ${id} AND profile_save_changes = 1 AND deleted_at IS NULL`,
    );
    return row?.id;
  }

  list(q: NamedListQuery): Promise<{ rows: ProfileRow[]; hasMore: boolean }> {
    return listNamed<ProfileRow>(this.db, raw('profiles'), COLUMNS, q);
  }
}

/** One page of a project's named resources (profiles, extensions), oldest first, and whether more follow. */
export async function listNamed<T>(db: Queryable, table: Sql, columns: Sql, q: NamedListQuery): Promise<{ rows: T[]; hasMore: boolean }> {
  const where = [sql`coalesce(project_id, '') = ${q.projectId ?? ''}`];
  if (q.name !== undefined) where.push(sql`lower(name) = lower(${q.name})`);
  if (q.query) {
    const pattern = likePattern(q.query);
    where.push(sql`(lower(id) LIKE ${pattern} ESCAPE '\\' OR lower(coalesce(name, '')) LIKE ${pattern} ESCAPE '\\')`);
  }
  const rows = await db.all<T>(
    sql`SELECT ${columns} FROM ${table} WHERE ${join(where, ' AND ')} ORDER BY seq LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
  );
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}
