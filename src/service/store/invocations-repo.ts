// Invocations of deployed actions, and the events (logs and states) deployments and invocations stream.
import type { Database } from './database.js';
import { join, likePattern, raw, sql, type Sql } from './sql.js';

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

const COLUMNS = raw('id, project_id, deployment_id, app_name, version, action_name, status, status_reason, payload, output, started_at, started_ms, finished_at');

/** Events kept per deployment or invocation; older ones are dropped (a chatty action must not fill the disk). */
export const EVENTS_KEPT = 5000;
/** How often (in event seqs) an owner's old events are trimmed: a delete per event would double the writes. */
const TRIM_EVERY = 500;

export class InvocationsRepo {
  constructor(
    private readonly db: Database,
    /** Events kept per owner (tests keep fewer). */
    private readonly eventsKept = EVENTS_KEPT,
  ) {}

  async insert(row: InvocationRow): Promise<void> {
    await this.db.run(sql`INSERT INTO invocations (${COLUMNS}) VALUES (${row.id}, ${row.project_id}, ${row.deployment_id}, ${row.app_name},
      ${row.version}, ${row.action_name}, ${row.status}, ${row.status_reason}, ${row.payload}, ${row.output}, ${row.started_at}, ${row.started_ms}, ${row.finished_at})`);
  }

  get(id: string): Promise<InvocationRow | undefined> {
    return this.db.get<InvocationRow>(sql`SELECT ${COLUMNS} FROM invocations WHERE id = ${id}`);
  }

  /** queued → running; false when it is no longer queued (cancelled meanwhile). */
  async markRunning(id: string): Promise<boolean> {
    return (await this.db.run(sql`UPDATE invocations SET status = 'running' WHERE id = ${id} AND status = 'queued'`)).changes === 1;
  }

  /** Ends an unfinished invocation; false when it had already ended (the first end wins). */
  async finish(id: string, status: 'succeeded' | 'failed', reason: string | null, output: string | null, at: Date): Promise<boolean> {
    const { changes } = await this.db.run(sql`UPDATE invocations SET status = ${status}, status_reason = ${reason}, output = ${output}, finished_at = ${at.toISOString()}
      WHERE id = ${id} AND status IN ('queued', 'running')`);
    return changes === 1;
  }

  unfinished(): Promise<InvocationRow[]> {
    return this.db.all<InvocationRow>(sql`SELECT ${COLUMNS} FROM invocations WHERE status IN ('queued', 'running') ORDER BY seq`);
  }

  /** Newest first; `query` matches ids, app and action names (case-insensitive). */
  async list(q: InvocationListQuery): Promise<{ rows: InvocationRow[]; hasMore: boolean }> {
    const where: Sql[] = [sql`coalesce(project_id, '') = ${q.projectId ?? ''}`];
    const exact: [keyof InvocationListQuery, string][] = [
      ['appName', 'app_name'],
      ['actionName', 'action_name'],
      ['deploymentId', 'deployment_id'],
      ['status', 'status'],
      ['version', 'version'],
    ];
    for (const [key, column] of exact) if (q[key] !== undefined) where.push(sql`${raw(column)} = ${q[key]}`);
    if (q.sinceMs !== undefined) where.push(sql`started_ms >= ${q.sinceMs}`);
    if (q.query) {
      const p = likePattern(q.query);
      where.push(sql`(lower(id) LIKE ${p} ESCAPE '\\' OR lower(app_name) LIKE ${p} ESCAPE '\\' OR lower(action_name) LIKE ${p} ESCAPE '\\')`);
    }
    const rows = await this.db.all<InvocationRow>(
      sql`SELECT ${COLUMNS} FROM invocations WHERE ${join(where, ' AND ')} ORDER BY seq DESC LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /** Appends an event of `ownerId` (a deployment or invocation id), keeping about the newest `eventsKept`; its seq. */
  async addEvent(ownerId: string, tsMs: number, event: object): Promise<number> {
    const added = await this.db.get<{ seq: number }>(
      sql`INSERT INTO app_events (owner_id, ts_ms, event) VALUES (${ownerId}, ${tsMs}, ${JSON.stringify(event)}) RETURNING seq`,
    );
    const seq = Number(added!.seq);
    if (seq % Math.min(TRIM_EVERY, this.eventsKept) === 0) {
      await this.db.run(sql`DELETE FROM app_events WHERE owner_id = ${ownerId}
        AND seq <= (SELECT seq FROM app_events WHERE owner_id = ${ownerId} ORDER BY seq DESC LIMIT 1 OFFSET ${this.eventsKept})`);
    }
    return seq;
  }

  /** Stored events of `ownerId` from `sinceMs` on, oldest first. */
  events(ownerId: string, sinceMs: number): Promise<AppEventRow[]> {
    return this.db.all<AppEventRow>(sql`SELECT seq, ts_ms, event FROM app_events WHERE owner_id = ${ownerId} AND ts_ms >= ${sinceMs} ORDER BY seq`);
  }
}
