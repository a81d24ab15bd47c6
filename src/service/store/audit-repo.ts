// The audit log: one row per mutating request (never a body). Read newest first within a time window,
// by keyset on (ts_ms, seq) so pages stay stable while new records arrive.
import type { Db } from './sqlite/open.js';

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

const COLUMNS =
  'seq, ts_ms, timestamp, method, path, route, status, duration_ms, client_ip, domain, user_agent, api_key_id, project_id, request_id';

export class AuditRepo {
  private readonly insertStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO audit_logs (${COLUMNS.replace('seq, ', '')})
       VALUES (@ts_ms, @timestamp, @method, @path, @route, @status, @duration_ms, @client_ip, @domain, @user_agent, @api_key_id, @project_id, @request_id)`,
    );
  }

  insert(record: Omit<AuditRecord, 'seq'>): void {
    this.insertStmt.run(record);
  }

  /** The position of the newest record written so far (0 before the first). */
  lastSeq(): number {
    return this.db.prepare<[], { seq: number | null }>(`SELECT max(seq) AS seq FROM audit_logs`).get()!.seq ?? 0;
  }

  list(q: AuditQuery): { rows: AuditRecord[]; hasMore: boolean } {
    const where = ['ts_ms >= @start', 'ts_ms < @end'];
    const params: Record<string, unknown> = { start: q.startMs, end: q.endMs, limit: q.limit + 1 };
    const equal = (column: string, value: unknown) => {
      if (value === undefined) return;
      where.push(`${column} = @${column}`);
      params[column] = value;
    };
    equal('method', q.method);
    equal('route', q.route);
    equal('status', q.status);
    equal('api_key_id', q.apiKeyId);
    equal('project_id', q.projectId);
    if (q.excludeMethods?.length) {
      where.push(`method NOT IN (${q.excludeMethods.map((_, i) => `@x${i}`).join(', ')})`);
      q.excludeMethods.forEach((m, i) => (params[`x${i}`] = m));
    }
    if (q.path !== undefined) {
      where.push(`(${pathUnder('@path')})`);
      params.path = q.path.replace(/\/+$/, '') || '/';
    }
    if (q.service !== undefined) {
      where.push(`(${pathUnder('@service')})`);
      params.service = `/${q.service}`;
    }
    if (q.authStrategy !== undefined) {
      if (q.authStrategy === 'api_key') where.push('api_key_id IS NOT NULL');
      else if (q.authStrategy === 'none') where.push('api_key_id IS NULL');
      else where.push('0');
    }
    const anyOf: string[] = [];
    if (q.search) {
      anyOf.push(
        `instr(lower(path), @search) > 0`,
        `instr(ifnull(api_key_id, ''), @searchRaw) > 0`,
        `instr(client_ip, @searchRaw) > 0`,
        `CAST(status AS TEXT) = @searchRaw`,
      );
      params.search = q.search.toLowerCase();
      params.searchRaw = q.search;
    }
    if (q.searchUserIds?.length) {
      anyOf.push(`api_key_id IN (${q.searchUserIds.map((_, i) => `@u${i}`).join(', ')})`);
      q.searchUserIds.forEach((id, i) => (params[`u${i}`] = id));
    }
    if (anyOf.length) where.push(`(${anyOf.join(' OR ')})`);
    if (q.maxSeq !== undefined) {
      where.push('seq <= @maxSeq');
      params.maxSeq = q.maxSeq;
    }
    if (q.after) {
      where.push('(ts_ms < @afterTs OR (ts_ms = @afterTs AND seq < @afterSeq))');
      params.afterTs = q.after.tsMs;
      params.afterSeq = q.after.seq;
    }
    const rows = this.db
      .prepare<Record<string, unknown>, AuditRecord>(`SELECT ${COLUMNS} FROM audit_logs WHERE ${where.join(' AND ')} ORDER BY ts_ms DESC, seq DESC LIMIT @limit`)
      .all(params);
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }
}

/** SQL: the record's path is `param` itself, below it, or it with a query string. */
function pathUnder(param: string): string {
  return `path = ${param} OR substr(path, 1, length(${param}) + 1) IN (${param} || '/', ${param} || '?')`;
}
