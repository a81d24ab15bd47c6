// The audit log: one row per mutating request (never a body). Read newest first within a time window,
// by keyset on (ts_ms, seq) so pages stay stable while new records arrive.
import type { Database } from './database.js';
import { join, likePattern, raw, sql, type Sql } from './sql.js';

export interface AuditRecord {
  seq: number;
  ts_ms: number;
  timestamp: string;
  method: string;
  path: string;
  route: string;
  status: number;
  duration_ms: number;
  client_ip: string;
  domain: string;
  user_agent: string;
  api_key_id: string | null;
  project_id: string | null;
  request_id: string;
}

export interface AuditQuery {
  /** Inclusive start and exclusive end, Unix milliseconds. */
  startMs: number;
  endMs: number;
  method?: string;
  excludeMethods?: string[];
  /** Records whose path is this path or below it. */
  path?: string;
  route?: string;
  status?: number;
  apiKeyId?: string;
  projectId?: string;
  /** `api_key` (authenticated requests) or `none`. */
  authStrategy?: string;
  /** The API group: the first segment of the path (`browsers`, `org`, ...). */
  service?: string;
  /** Free text over path, key id, client IP and status; `searchUserIds` are ORed into it. */
  search?: string;
  searchUserIds?: string[];
  /** Continue after this record (the last one of the previous page). */
  after?: { tsMs: number; seq: number };
  /** Only records written up to this one: an export's snapshot, which later records cannot shift. */
  maxSeq?: number;
  limit: number;
}

const WRITTEN = raw('ts_ms, timestamp, method, path, route, status, duration_ms, client_ip, domain, user_agent, api_key_id, project_id, request_id');
const COLUMNS = sql`seq, ${WRITTEN}`;

/**
 * Records written in one statement at most: 13 values each stays under either database's limit on
 * parameters (PostgreSQL's 65,535).
 */
const BATCH = 500;

export class AuditRepo {
  /**
   * Inserts under way, each settled either way. Reads wait for them, so a request that got its answer is
   * in any list made after it (as when the write was synchronous), and close() waits so none is lost.
   */
  private readonly writing = new Set<Promise<void>>();
  /** Records asked for in this turn of the event loop, written together by the next write. */
  private queued: { record: Omit<AuditRecord, 'seq'>; done: (err?: unknown) => void }[] = [];

  constructor(private readonly db: Database) {}

  /**
   * Every request writes a record: the ones of one event-loop turn go in one multi-row INSERT, in the order
   * asked (a burst of 16 pool acquires wrote 16 statements, a third of their queries).
   */
  insert(r: Omit<AuditRecord, 'seq'>): Promise<void> {
    const write = new Promise<void>((resolve, reject) => {
      if (!this.queued.length) setImmediate(() => void this.writeQueued());
      this.queued.push({ record: r, done: (err) => (err === undefined ? resolve() : reject(err)) });
    });
    const settled = write.then(
      () => undefined,
      () => undefined, // the caller hears of the failure through `write`
    );
    this.writing.add(settled);
    void settled.then(() => this.writing.delete(settled));
    return write;
  }

  private async writeQueued(): Promise<void> {
    const queued = this.queued;
    this.queued = [];
    // One statement after another: on PostgreSQL, statements on two connections would take their seq in
    // whichever order the server ran them.
    for (let i = 0; i < queued.length; i += BATCH) {
      const batch = queued.slice(i, i + BATCH);
      const rows = batch.map(({ record: r }) => sql`(${r.ts_ms}, ${r.timestamp}, ${r.method}, ${r.path}, ${r.route}, ${r.status}, ${r.duration_ms},
        ${r.client_ip}, ${r.domain}, ${r.user_agent}, ${r.api_key_id}, ${r.project_id}, ${r.request_id})`);
      try {
        await this.db.run(sql`INSERT INTO audit_logs (${WRITTEN}) VALUES ${join(rows, ', ')}`);
        batch.forEach((q) => q.done());
      } catch (err) {
        batch.forEach((q) => q.done(err ?? new Error('audit insert failed')));
      }
    }
  }

  /** Resolves once no insert is under way (for shutdown: later ones are waited for too). */
  async settled(): Promise<void> {
    while (this.writing.size) await this.caughtUp();
  }

  /** Waits for the inserts begun before this call only, so a steady stream of writes cannot hold a read. */
  private caughtUp(): Promise<unknown> {
    return Promise.all([...this.writing]);
  }

  /** The position of the newest record written so far (0 before the first). */
  async lastSeq(): Promise<number> {
    await this.caughtUp();
    const row = await this.db.get<{ seq: number | null }>(sql`SELECT max(seq) AS seq FROM audit_logs`);
    return Number(row?.seq ?? 0);
  }

  async list(q: AuditQuery): Promise<{ rows: AuditRecord[]; hasMore: boolean }> {
    await this.caughtUp();
    const where: Sql[] = [sql`ts_ms >= ${q.startMs}`, sql`ts_ms < ${q.endMs}`];
    if (q.method !== undefined) where.push(sql`method = ${q.method}`);
    if (q.route !== undefined) where.push(sql`route = ${q.route}`);
    if (q.status !== undefined) where.push(sql`status = ${q.status}`);
    if (q.apiKeyId !== undefined) where.push(sql`api_key_id = ${q.apiKeyId}`);
    if (q.projectId !== undefined) where.push(sql`project_id = ${q.projectId}`);
    if (q.excludeMethods?.length) where.push(sql`method NOT IN (${join(q.excludeMethods.map((m) => sql`${m}`), ', ')})`);
    if (q.path !== undefined) where.push(pathUnder(q.path.replace(/\/+$/, '') || '/'));
    if (q.service !== undefined) where.push(pathUnder(`/${q.service}`));
    if (q.authStrategy !== undefined) {
      if (q.authStrategy === 'api_key') where.push(sql`api_key_id IS NOT NULL`);
      else if (q.authStrategy === 'none') where.push(sql`api_key_id IS NULL`);
      else where.push(sql`1 = 0`);
    }
    const anyOf: Sql[] = [];
    if (q.search) {
      // Key ids and IPs match as typed: replace() finds a substring case-sensitively on both databases
      // (LIKE would not on SQLite).
      const s = q.search;
      anyOf.push(
        sql`lower(path) LIKE ${likePattern(s)} ESCAPE '\\'`,
        sql`replace(coalesce(api_key_id, ''), ${s}, '') <> coalesce(api_key_id, '')`,
        sql`replace(client_ip, ${s}, '') <> client_ip`,
        sql`CAST(status AS TEXT) = ${s}`,
      );
    }
    if (q.searchUserIds?.length) anyOf.push(sql`api_key_id IN (${join(q.searchUserIds.map((id) => sql`${id}`), ', ')})`);
    if (anyOf.length) where.push(sql`(${join(anyOf, ' OR ')})`);
    if (q.maxSeq !== undefined) where.push(sql`seq <= ${q.maxSeq}`);
    if (q.after) where.push(sql`(ts_ms < ${q.after.tsMs} OR (ts_ms = ${q.after.tsMs} AND seq < ${q.after.seq}))`);
    const rows = await this.db.all<AuditRecord>(
      sql`SELECT ${COLUMNS} FROM audit_logs WHERE ${join(where, ' AND ')} ORDER BY ts_ms DESC, seq DESC LIMIT ${q.limit + 1}`,
    );
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }
}

/** The record's path is `path` itself, below it, or it with a query string (compared exactly, by prefix). */
function pathUnder(path: string): Sql {
  const prefixLength = [...path].length + 1;
  return sql`(path = ${path} OR substr(path, 1, ${prefixLength}) IN (${`${path}/`}, ${`${path}?`}))`;
}
