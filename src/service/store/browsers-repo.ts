// Browser session records. Live process state lives in the session manager; this is what survives.
import type { Db } from './sqlite/open.js';
import { unique } from './sqlite/database.js';
import { likePattern } from './sql.js';
import type { BrowserEndReason, BrowserStatusFilter, Viewport } from '../../api/types.js';

export interface BrowserRow {
  id: string;
  project_id: string | null;
  name: string | null;
  tags: Record<string, string>;
  headless: boolean;
  stealth: boolean;
  kiosk_mode: boolean;
  timeout_seconds: number;
  viewport: Viewport | null;
  start_url: string | null;
  created_at: string;
  deleted_at: string | null;
  end_reason: BrowserEndReason | null;
  end_detail: string | null;
  pid: number | null;
  user_data_dir: string | null;
  sandboxed: boolean;
  /** The browser pool the session belongs to; null for on-demand sessions. */
  pool_id: string | null;
  /** The profile the session was started from, and whether its state is written back when it ends. */
  profile_id: string | null;
  profile_save_changes: boolean;
  /** The invocation of a deployed action the session was created for (its browsers end with it). */
  invocation_id: string | null;
  /** `network.private_hosts`: private destinations the session's egress lets through; null when not given. */
  private_hosts: string[] | null;
  /** The Chrome Enterprise policies the browser runs with; null for none. */
  chrome_policy: Record<string, unknown> | null;
}

type StoredRow = Omit<BrowserRow, 'tags' | 'viewport' | 'headless' | 'stealth' | 'kiosk_mode' | 'sandboxed' | 'profile_save_changes' | 'private_hosts' | 'chrome_policy'> & {
  private_hosts: string | null;
  chrome_policy: string | null;
  sandboxed: number;
  profile_save_changes: number;
  tags: string;
  viewport: string | null;
  headless: number;
  stealth: number;
  kiosk_mode: number;
};

export interface ListQuery {
  projectId: string | null;
  status: BrowserStatusFilter;
  query?: string;
  tags?: Record<string, string>;
  offset: number;
  limit: number;
}

const COLUMNS = `id, project_id, name, tags, headless, stealth, kiosk_mode, timeout_seconds, viewport, start_url,
  created_at, deleted_at, end_reason, end_detail, pid, user_data_dir, sandboxed, pool_id, profile_id, profile_save_changes, invocation_id, private_hosts, chrome_policy`;

export class BrowsersRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO browsers (${COLUMNS}) VALUES (@id, @project_id, @name, @tags, @headless, @stealth, @kiosk_mode,
          @timeout_seconds, @viewport, @start_url, @created_at, @deleted_at, @end_reason, @end_detail, @pid, @user_data_dir, @sandboxed, @pool_id,
          @profile_id, @profile_save_changes, @invocation_id, @private_hosts, @chrome_policy)`,
      ),
      byId: db.prepare<[string], StoredRow>(`SELECT ${COLUMNS} FROM browsers WHERE id = ?`),
      activeByName: db.prepare<[string, string], StoredRow>(
        `SELECT ${COLUMNS} FROM browsers WHERE ifnull(project_id, '') = ? AND name = ? AND deleted_at IS NULL`,
      ),
      active: db.prepare<[], StoredRow>(`SELECT ${COLUMNS} FROM browsers WHERE deleted_at IS NULL`),
      activeOfInvocation: db.prepare<[string], StoredRow>(`SELECT ${COLUMNS} FROM browsers WHERE invocation_id = ? AND deleted_at IS NULL ORDER BY seq`),
      end: db.prepare(
        `UPDATE browsers SET deleted_at = @at, end_reason = @reason, end_detail = @detail WHERE id = @id AND deleted_at IS NULL`,
      ),
      remove: db.prepare(`DELETE FROM browsers WHERE id = ?`),
      setProcess: db.prepare(`UPDATE browsers SET pid = @pid, user_data_dir = @user_data_dir WHERE id = @id`),
    };
  }

  /** Inserts a new active session; throws UniqueViolation when its name is taken. */
  insert(row: BrowserRow): void {
    unique(() => this.stmts.insert.run(toStored(row)));
  }

  get(id: string): BrowserRow | undefined {
    const row = this.stmts.byId.get(id);
    return row && fromStored(row);
  }

  getActiveByName(projectId: string | null, name: string): BrowserRow | undefined {
    const row = this.stmts.activeByName.get(projectId ?? '', name);
    return row && fromStored(row);
  }

  listActive(): BrowserRow[] {
    return this.stmts.active.all().map(fromStored);
  }

  /** Active sessions created for an invocation, oldest first. */
  activeOfInvocation(invocationId: string): BrowserRow[] {
    return this.stmts.activeOfInvocation.all(invocationId).map(fromStored);
  }

  setProcess(id: string, pid: number, userDataDir: string): void {
    this.stmts.setProcess.run({ id, pid, user_data_dir: userDataDir });
  }

  /** Records the end of a session once; returns false if it had already ended. */
  end(id: string, reason: BrowserEndReason, detail: string | null, at: Date): boolean {
    return this.stmts.end.run({ id, reason, detail, at: at.toISOString() }).changes > 0;
  }

  /** Removes a record that never became a session (its browser failed to launch). */
  remove(id: string): void {
    this.stmts.remove.run(id);
  }

  /**
   * The profile an active session has loaded (PATCH into one that had none), or none again. Throws
   * UniqueViolation when another active session holds the profile with save_changes.
   */
  setProfile(id: string, profileId: string | null, saveChanges: boolean): void {
    const stmt = this.db.prepare(`UPDATE browsers SET profile_id = @profileId, profile_save_changes = @save WHERE id = @id AND deleted_at IS NULL`);
    unique(() => stmt.run({ id, profileId, save: saveChanges ? 1 : 0 }));
  }

  /** Throws UniqueViolation when the new name is taken. Pools also set lease-scoped fields. */
  update(
    id: string,
    fields: { name?: string | null; tags?: Record<string, string>; timeout_seconds?: number; start_url?: string | null },
  ): void {
    const sets: string[] = [];
    const params: Record<string, unknown> = { id };
    if (fields.name !== undefined) {
      sets.push('name = @name');
      params.name = fields.name;
    }
    if (fields.tags !== undefined) {
      sets.push('tags = @tags');
      params.tags = JSON.stringify(fields.tags);
    }
    if (fields.timeout_seconds !== undefined) {
      sets.push('timeout_seconds = @timeout_seconds');
      params.timeout_seconds = fields.timeout_seconds;
    }
    if (fields.start_url !== undefined) {
      sets.push('start_url = @start_url');
      params.start_url = fields.start_url;
    }
    if (sets.length) {
      const stmt = this.db.prepare(`UPDATE browsers SET ${sets.join(', ')} WHERE id = @id`);
      unique(() => stmt.run(params));
    }
  }

  /** One page of sessions, oldest first, and whether more follow. */
  list(q: ListQuery): { rows: BrowserRow[]; hasMore: boolean } {
    const where = [`ifnull(project_id, '') = @project`];
    const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
    if (q.status === 'active') where.push('deleted_at IS NULL');
    if (q.status === 'deleted') where.push('deleted_at IS NOT NULL');
    if (q.query) {
      // As on the hosted API, the search also finds sessions by the id or name of the profile they loaded.
      where.push(`(lower(id) LIKE @query ESCAPE '\\' OR lower(ifnull(name, '')) LIKE @query ESCAPE '\\'
        OR lower(ifnull(profile_id, '')) LIKE @query ESCAPE '\\'
        OR profile_id IN (SELECT id FROM profiles WHERE lower(ifnull(name, '')) LIKE @query ESCAPE '\\')
        OR id IN (SELECT browser_id FROM browser_proxies WHERE lower(ifnull(proxy_id, '')) LIKE @query ESCAPE '\\'))`);
      params.query = likePattern(q.query);
    }
    Object.entries(q.tags ?? {}).forEach(([key, value], i) => {
      where.push(`json_extract(tags, @tagPath${i}) = @tagValue${i}`);
      params[`tagPath${i}`] = `$."${key.replace(/["\\]/g, (c) => `\\${c}`)}"`;
      params[`tagValue${i}`] = value;
    });
    const rows = this.db
      .prepare<Record<string, unknown>, StoredRow>(
        `SELECT ${COLUMNS} FROM browsers WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit OFFSET @offset`,
      )
      .all(params);
    const hasMore = rows.length > q.limit;
    return { rows: rows.slice(0, q.limit).map(fromStored), hasMore };
  }
}

function toStored(row: BrowserRow): StoredRow {
  return {
    ...row,
    tags: JSON.stringify(row.tags),
    viewport: row.viewport ? JSON.stringify(row.viewport) : null,
    headless: row.headless ? 1 : 0,
    stealth: row.stealth ? 1 : 0,
    kiosk_mode: row.kiosk_mode ? 1 : 0,
    sandboxed: row.sandboxed ? 1 : 0,
    profile_save_changes: row.profile_save_changes ? 1 : 0,
    private_hosts: row.private_hosts ? JSON.stringify(row.private_hosts) : null,
    chrome_policy: row.chrome_policy ? JSON.stringify(row.chrome_policy) : null,
  };
}

function fromStored(row: StoredRow): BrowserRow {
  return {
    ...row,
    tags: JSON.parse(row.tags) as Record<string, string>,
    viewport: row.viewport ? (JSON.parse(row.viewport) as Viewport) : null,
    headless: row.headless === 1,
    stealth: row.stealth === 1,
    kiosk_mode: row.kiosk_mode === 1,
    sandboxed: row.sandboxed === 1,
    profile_save_changes: row.profile_save_changes === 1,
    private_hosts: row.private_hosts ? (JSON.parse(row.private_hosts) as string[]) : null,
    chrome_policy: row.chrome_policy ? (JSON.parse(row.chrome_policy) as Record<string, unknown>) : null,
  };
}
