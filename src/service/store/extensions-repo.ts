// Uploaded extensions: id, name, size and checksum of the uploaded zip. The zip and its unpacked copy are
// files under <dataDir>/extensions/ (host/extensions/extensions.ts).
import type { Db } from './sqlite/open.js';
import { unique } from './sqlite/database.js';
import { listNamed, type NamedListQuery } from './profiles-repo.js';

export interface ExtensionRow {
  id: string;
  project_id: string | null;
  name: string | null;
  created_at: string;
  size_bytes: number;
  checksum: string;
  last_used_at: string | null;
}

const COLUMNS = 'id, project_id, name, created_at, size_bytes, checksum, last_used_at';

export class ExtensionsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO extensions (${COLUMNS}) VALUES (@id, @project_id, @name, @created_at, @size_bytes, @checksum, @last_used_at)`,
      ),
      byId: db.prepare<[string], ExtensionRow>(`SELECT ${COLUMNS} FROM extensions WHERE id = ?`),
      byName: db.prepare<[string, string], ExtensionRow>(`SELECT ${COLUMNS} FROM extensions WHERE ifnull(project_id, '') = ? AND name = ?`),
      used: db.prepare(`UPDATE extensions SET last_used_at = @at WHERE id = @id`),
      remove: db.prepare(`DELETE FROM extensions WHERE id = ?`),
    };
  }

  /** Throws UniqueViolation when the name is taken in the project. */
  insert(row: ExtensionRow): void {
    unique(() => this.stmts.insert.run(row));
  }

  get(id: string): ExtensionRow | undefined {
    return this.stmts.byId.get(id);
  }

  getByName(projectId: string | null, name: string): ExtensionRow | undefined {
    return this.stmts.byName.get(projectId ?? '', name);
  }

  markUsed(id: string, at: Date): void {
    this.stmts.used.run({ id, at: at.toISOString() });
  }

  remove(id: string): void {
    this.stmts.remove.run(id);
  }

  list(q: NamedListQuery): { rows: ExtensionRow[]; hasMore: boolean } {
    return listNamed<ExtensionRow>(this.db, 'extensions', COLUMNS, q);
  }
}
