// Uploaded extensions: id, name, size and checksum of the uploaded zip. The zip and its unpacked copy are
// files under <dataDir>/extensions/ (host/extensions/extensions.ts).
import type { Queryable } from './database.js';
import { listNamed, type NamedListQuery } from './profiles-repo.js';
import { raw, sql } from './sql.js';

export interface ExtensionRow {
  id: string;
  project_id: string | null;
  name: string | null;
  created_at: string;
  size_bytes: number;
  checksum: string;
  last_used_at: string | null;
}

const COLUMNS = raw('id, project_id, name, created_at, size_bytes, checksum, last_used_at');

export class ExtensionsRepo {
  constructor(private readonly db: Queryable) {}

  /** Throws UniqueViolation when the name is taken in the project. */
  async insert(row: ExtensionRow): Promise<void> {
    await this.db.run(sql`INSERT INTO extensions (${COLUMNS})
      VALUES (${row.id}, ${row.project_id}, ${row.name}, ${row.created_at}, ${row.size_bytes}, ${row.checksum}, ${row.last_used_at})`);
  }

  get(id: string): Promise<ExtensionRow | undefined> {
    return this.db.get<ExtensionRow>(sql`SELECT ${COLUMNS} FROM extensions WHERE id = ${id}`);
  }

  getByName(projectId: string | null, name: string): Promise<ExtensionRow | undefined> {
    return this.db.get<ExtensionRow>(sql`SELECT ${COLUMNS} FROM extensions WHERE coalesce(project_id, '') = ${projectId ?? ''} AND name = ${name}`);
  }

  async markUsed(id: string, at: Date): Promise<void> {
    await this.db.run(sql`UPDATE extensions SET last_used_at = ${at.toISOString()} WHERE id = ${id}`);
  }

  async remove(id: string): Promise<void> {
    await this.db.run(sql`DELETE FROM extensions WHERE id = ${id}`);
  }

  list(q: NamedListQuery): Promise<{ rows: ExtensionRow[]; hasMore: boolean }> {
    return listNamed<ExtensionRow>(this.db, raw('extensions'), COLUMNS, q);
  }
}
