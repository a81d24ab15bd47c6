// Invocations of deployed actions, and the events (logs and states) deployments and invocations stream.
import type { Db } from './sqlite/open.js';
import { likePattern } from './sql.js';

export type InvocationStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface InvocationRow {
  id: string;
  project_id: string | null;
  deployment_id: string;
  app_name: string;
  version: string;
  action_name: string;
  status: InvocationStatus;
  status_reason: string | null;
  payload: string | null;
  output: string | null;
  started_at: string;
  started_ms: number;
  finished_at: string | null;
}

export interface InvocationListQuery {
  projectId: string | null;
  appName?: string;
  actionName?: string;
  deploymentId?: string;
  status?: InvocationStatus;
  version?: string;
  sinceMs?: number;
  query?: string;
  offset: number;
  limit: number;
}

/** A stored event of a deployment or invocation, as its stream sends it. */
export interface AppEventRow {
  seq: number;
  ts_ms: number;
  /** The event's JSON. */
  event: string;
}

const COLUMNS = 'id, project_id, deployment_id, app_name, version, action_name, status, status_reason, payload, output, started_at, started_ms, finished_at';

/** Events kept per deployment or invocation; older ones are dropped (a chatty action must not fill the disk). */
export const EVENTS_KEPT = 5000;

export class InvocationsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO invocations (${COLUMNS}) VALUES (@id, @project_id, @deployment_id, @app_name, @version, @action_name, @status, @status_reason, @payload, @output, @started_at, @started_ms, @finished_at)`,
      ),
      byId: db.prepare<[string], InvocationRow>(`SELECT ${COLUMNS} FROM invocations WHERE id = ?`),
      start: db.prepare(`UPDATE invocations SET status = 'running' WHERE id = ? AND status = 'queued'`),
      finish: db.prepare(
        `UPDATE invocations SET status = @status, status_reason = @reason, output = @output, finished_at = @at WHERE id = @id AND status IN ('queued', 'running')`,
      ),
      unfinished: db.prepare<[], InvocationRow>(`SELECT ${COLUMNS} FROM invocations WHERE status IN ('queued', 'running') ORDER BY seq`),
      addEvent: db.prepare(`INSERT INTO app_events (owner_id, ts_ms, event) VALUES (?, ?, ?)`),
      trimEvents: db.prepare(`DELETE FROM app_events WHERE owner_id = ? AND seq <= (SELECT seq FROM app_events WHERE owner_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`),
      events: db.prepare<[string, number], AppEventRow>(`SELECT seq, ts_ms, event FROM app_events WHERE owner_id = ? AND ts_ms >= ? ORDER BY seq`),
    };
  }

  insert(row: InvocationRow): void {
    this.stmts.insert.run(row);
  }

  get(id: string): InvocationRow | undefined {
    return this.stmts.byId.get(id);
  }

  /** queued → running; false when it is no longer queued (cancelled meanwhile). */
  markRunning(id: string): boolean {
    return this.stmts.start.run(id).changes === 1;
  }

  /** Ends an unfinished invocation; false when it had already ended (the first end wins). */
  finish(id: string, status: 'succeeded' | 'failed', reason: string | null, output: string | null, at: Date): boolean {
    return this.stmts.finish.run({ id, status, reason, output, at: at.toISOString() }).changes === 1;
  }

  unfinished(): InvocationRow[] {
    return this.stmts.unfinished.all();
  }

  list(q: InvocationListQuery): { rows: InvocationRow[]; hasMore: boolean } {
    const where = [`ifnull(project_id, '') = @project`];
    const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
    const exact: [keyof InvocationListQuery, string][] = [
      ['appName', 'app_name'],
      ['actionName', 'action_name'],
      ['deploymentId', 'deployment_id'],
      ['status', 'status'],
      ['version', 'version'],
    ];
    for (const [key, column] of exact) {
      if (q[key] === undefined) continue;
      where.push(`${column} = @${column}`);
      params[column] = q[key];
    }
    if (q.sinceMs !== undefined) {
      where.push('started_ms >= @since');
      params.since = q.sinceMs;
    }
    if (q.query) {
      where.push(`(lower(id) LIKE @query ESCAPE '\\' OR lower(app_name) LIKE @query ESCAPE '\\' OR lower(action_name) LIKE @query ESCAPE '\\')`);
      params.query = likePattern(q.query);
    }
    const rows = this.db
      .prepare<Record<string, unknown>, InvocationRow>(`SELECT ${COLUMNS} FROM invocations WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT @limit OFFSET @offset`)
      .all(params);
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /** Appends an event of `ownerId` (a deployment or invocation id), keeping the newest EVENTS_KEPT. */
  addEvent(ownerId: string, tsMs: number, event: object): number {
    const seq = Number(this.stmts.addEvent.run(ownerId, tsMs, JSON.stringify(event)).lastInsertRowid);
    if (seq % 500 === 0) this.stmts.trimEvents.run(ownerId, ownerId, EVENTS_KEPT);
    return seq;
  }

  /** Stored events of `ownerId` from `sinceMs` on, oldest first. */
  events(ownerId: string, sinceMs: number): AppEventRow[] {
    return this.stmts.events.all(ownerId, sinceMs);
  }
}
