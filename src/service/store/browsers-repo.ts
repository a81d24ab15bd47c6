// Browser session records. Live process state lives in the session manager; this is what survives.
import type { Queryable } from './database.js';
import { join, likePattern, raw, sql, type Sql } from './sql.js';
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
  /** The cluster host that runs the session; null when one process serves the database. */
  host_id: string | null;
}

type Flag = 'headless' | 'stealth' | 'kiosk_mode' | 'sandboxed' | 'profile_save_changes';
type Json = 'tags' | 'viewport' | 'private_hosts' | 'chrome_policy';
type StoredRow = Omit<BrowserRow, Flag | Json> & Record<Flag, number> & { tags: string } & Record<Exclude<Json, 'tags'>, string | null>;

export interface ListQuery {
  projectId: string | null;
  status: BrowserStatusFilter;
  query?: string;
  tags?: Record<string, string>;
  /** Only browsers kept (browser_keeps) or only those not. */
  kept?: boolean;
  offset: number;
  limit: number;
}

export interface BrowserUpdate {
  name?: string | null;
  tags?: Record<string, string>;
  timeout_seconds?: number;
  start_url?: string | null;
}

const COLUMNS = raw(`id, project_id, name, tags, headless, stealth, kiosk_mode, timeout_seconds, viewport, start_url,
  created_at, deleted_at, end_reason, end_detail, pid, user_data_dir, sandboxed, pool_id, profile_id, profile_save_changes, invocation_id, private_hosts, chrome_policy, host_id`);

export class BrowsersRepo {
  constructor(private readonly db: Queryable) {}

  /** Inserts a new active session; throws UniqueViolation when its name (or its profile's write access) is taken. */
  async insert(row: BrowserRow): Promise<void> {
    const s = toStored(row);
    await this.db.run(sql`INSERT INTO browsers (${COLUMNS}) VALUES (${s.id}, ${s.project_id}, ${s.name}, ${s.tags}, ${s.headless},
      ${s.stealth}, ${s.kiosk_mode}, ${s.timeout_seconds}, ${s.viewport}, ${s.start_url}, ${s.created_at}, ${s.deleted_at},
      ${s.end_reason}, ${s.end_detail}, ${s.pid}, ${s.user_data_dir}, ${s.sandboxed}, ${s.pool_id}, ${s.profile_id},
      ${s.profile_save_changes}, ${s.invocation_id}, ${s.private_hosts}, ${s.chrome_policy}, ${s.host_id})`);
  }

  async get(id: string): Promise<BrowserRow | undefined> {
    const row = await this.db.get<StoredRow>(sql`SELECT ${COLUMNS} FROM browsers WHERE id = ${id}`);
    return row && fromStored(row);
  }

  async getActiveByName(projectId: string | null, name: string): Promise<BrowserRow | undefined> {
    const row = await this.db.get<StoredRow>(
      sql`SELECT ${COLUMNS} FROM browsers WHERE coalesce(project_id, '') = ${projectId ?? ''} AND name = ${name} AND deleted_at IS NULL`,
    );
    return row && fromStored(row);
  }

  /** Active sessions, oldest first; with `hostId`, those that cluster host runs (null: a single process's). */
  async listActive(hostId?: string | null): Promise<BrowserRow[]> {
    const onHost = hostId === undefined ? sql`` : hostId === null ? sql` AND host_id IS NULL` : sql` AND host_id = ${hostId}`;
    return (await this.db.all<StoredRow>(sql`SELECT ${COLUMNS} FROM browsers WHERE deleted_at IS NULL${onHost} ORDER BY seq`)).map(fromStored);
  }

  /** The ids of the pool browsers active now, on every host (a cluster's leader checks its pools' against them). */
  async activePoolMemberIds(): Promise<Set<string>> {
    const rows = await this.db.all<{ id: string }>(sql`SELECT id FROM browsers WHERE deleted_at IS NULL AND pool_id IS NOT NULL`);
    return new Set(rows.map((r) => r.id));
  }

  /** The host that runs (or ran) the session `id`, and whether it is still active; undefined when there is none. */
  async placement(id: string): Promise<{ host_id: string | null; active: boolean; project_id: string | null } | undefined> {
    const row = await this.db.get<{ host_id: string | null; deleted_at: string | null; project_id: string | null }>(
      sql`SELECT host_id, deleted_at, project_id FROM browsers WHERE id = ${id}`,
    );
    return row && { host_id: row.host_id, active: row.deleted_at === null, project_id: row.project_id };
  }

  /** Like `placement`, by the name of an active session in a project. */
  async placementByName(projectId: string | null, name: string): Promise<{ id: string; host_id: string | null } | undefined> {
    return this.db.get<{ id: string; host_id: string | null }>(
      sql`SELECT id, host_id FROM browsers WHERE coalesce(project_id, '') = ${projectId ?? ''} AND name = ${name} AND deleted_at IS NULL`,
    );
  }

  /**
   * On-demand sessions active now (pool browsers are counted by their pools' sizes), org-wide and in
   * `projectId`: what an admission across hosts checks, inside its lock.
   */
  async onDemandCounts(projectId: string | null): Promise<{ org: number; project: number }> {
    const row = await this.db.get<{ org: number | string; project: number | string }>(
      sql`SELECT count(*) AS org, count(CASE WHEN coalesce(project_id, '') = ${projectId ?? ''} THEN 1 END) AS project
        FROM browsers WHERE deleted_at IS NULL AND pool_id IS NULL`,
    );
    return { org: Number(row?.org ?? 0), project: Number(row?.project ?? 0) };
  }

  /** Active sessions created for an invocation, oldest first. */
  async activeOfInvocation(invocationId: string): Promise<BrowserRow[]> {
    const rows = await this.db.all<StoredRow>(
      sql`SELECT ${COLUMNS} FROM browsers WHERE invocation_id = ${invocationId} AND deleted_at IS NULL ORDER BY seq`,
    );
    return rows.map(fromStored);
  }

  async setProcess(id: string, pid: number, userDataDir: string): Promise<void> {
    await this.db.run(sql`UPDATE browsers SET pid = ${pid}, user_data_dir = ${userDataDir} WHERE id = ${id}`);
  }

  /** Records the end of a session once; returns false if it had already ended. */
  async end(id: string, reason: BrowserEndReason, detail: string | null, at: Date): Promise<boolean> {
    const { changes } = await this.db.run(
      sql`UPDATE browsers SET deleted_at = ${at.toISOString()}, end_reason = ${reason}, end_detail = ${detail} WHERE id = ${id} AND deleted_at IS NULL`,
    );
    return changes > 0;
  }

  /** Removes a record that never became a session (its browser failed to launch). */
  async remove(id: string): Promise<void> {
    await this.db.run(sql`DELETE FROM browsers WHERE id = ${id}`);
  }

  /**
   * The profile an active session has loaded (PATCH into one that had none), or none again. Throws
   * UniqueViolation when another active session holds the profile with save_changes.
   */
  async setProfile(id: string, profileId: string | null, saveChanges: boolean): Promise<void> {
    await this.db.run(
      sql`UPDATE browsers SET profile_id = ${profileId}, profile_save_changes = ${saveChanges} WHERE id = ${id} AND deleted_at IS NULL`,
    );
  }

  /** Throws UniqueViolation when the new name is taken. Pools also set lease-scoped fields. */
  /** Sets the given fields; returns the row as written (one round trip), undefined when there is none. */
  async update(id: string, fields: BrowserUpdate): Promise<BrowserRow | undefined> {
    const sets: Sql[] = [];
    if (fields.name !== undefined) sets.push(sql`name = ${fields.name}`);
    if (fields.tags !== undefined) sets.push(sql`tags = ${JSON.stringify(fields.tags)}`);
    if (fields.timeout_seconds !== undefined) sets.push(sql`timeout_seconds = ${fields.timeout_seconds}`);
    if (fields.start_url !== undefined) sets.push(sql`start_url = ${fields.start_url}`);
    if (!sets.length) return this.get(id);
    const row = await this.db.get<StoredRow>(sql`UPDATE browsers SET ${join(sets, ', ')} WHERE id = ${id} RETURNING ${COLUMNS}`);
    return row && fromStored(row);
  }

  /** One page of sessions, oldest first, and whether more follow. */
  async list(q: ListQuery): Promise<{ rows: BrowserRow[]; hasMore: boolean }> {
    const where = [sql`coalesce(project_id, '') = ${q.projectId ?? ''}`];
    if (q.status === 'active') where.push(sql`deleted_at IS NULL`);
    if (q.status === 'deleted') where.push(sql`deleted_at IS NOT NULL`);
    if (q.query) {
      const p = likePattern(q.query);
      // As on the hosted API, the search also finds sessions by the id or name of the profile they loaded.
      where.push(sql`(lower(id) LIKE ${p} ESCAPE '\\' OR lower(coalesce(name, '')) LIKE ${p} ESCAPE '\\'
        OR lower(coalesce(profile_id, '')) LIKE ${p} ESCAPE '\\'
        OR profile_id IN (SELECT id FROM profiles WHERE lower(coalesce(name, '')) LIKE ${p} ESCAPE '\\')
        OR id IN (SELECT browser_id FROM browser_proxies WHERE lower(coalesce(proxy_id, '')) LIKE ${p} ESCAPE '\\'))`);
    }
    if (q.kept !== undefined) where.push(sql`id ${raw(q.kept ? 'IN' : 'NOT IN')} (SELECT browser_id FROM browser_keeps)`);
    const tags = Object.entries(q.tags ?? {});
    for (const [key, value] of tags) where.push(hasTag(key, value));
    const query = sql`SELECT ${COLUMNS} FROM browsers WHERE ${join(where, ' AND ')} ORDER BY seq`;
    if (!tags.length) {
      const rows = (await this.db.all<StoredRow>(sql`${query} LIMIT ${q.limit + 1} OFFSET ${q.offset}`)).map(fromStored);
      return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
    }
    // The text test is exact for tags as this repository writes them; the rows are held to the parsed
    // tags as well, and paged after that, so no stray match can shift a page.
    const matching = (await this.db.all<StoredRow>(query)).map(fromStored).filter((row) => tags.every(([k, v]) => row.tags[k] === v));
    return { rows: matching.slice(q.offset, q.offset + q.limit), hasMore: matching.length > q.offset + q.limit };
  }
}

/**
 * Whether the stored tags hold `key: value`, without JSON functions (they differ between the databases):
 * tags are stored as JSON.stringify writes a flat object of strings, so the pair is the text `"key":"value"`
 * right after `{` or `,` (`{` is made `,` here so one needle covers the first pair too). A quote inside a
 * string is always escaped, so the needle cannot start inside one; `list` checks the parsed tags anyway.
 * `replace` compares case-sensitively on both databases (LIKE does not on SQLite).
 */
function hasTag(key: string, value: string): Sql {
  const text = sql`(',' || substr(tags, 2))`;
  return sql`replace(${text}, ${`,${JSON.stringify(key)}:${JSON.stringify(value)}`}, '') <> ${text}`;
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
