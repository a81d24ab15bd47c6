// Telemetry events and per-session capture settings. Capture must never wait on the database, so events are
// queued in memory and written in one transaction per flush (every 100 ms, or at once when 500 are
// waiting); readers flush first, so a read always sees everything captured before it.
import type { TelemetryCategory, TelemetryEnvelope } from '../../api/types.js';
import type { Database } from './database.js';
import { inList, join, raw, sql } from './sql.js';

export interface StoredSettings {
  categories: string[] | null;
  export_destination: string | null;
}

export interface EventQuery {
  browserId: string;
  categories?: TelemetryCategory[];
  /** Unix microseconds, inclusive. */
  sinceUs?: number;
  /** Unix microseconds, exclusive. */
  untilUs?: number;
  order: 'asc' | 'desc';
  /** A seq cursor: asc reads seq >= cursor, desc reads seq <= cursor. */
  cursor?: number;
  limit: number;
}

export interface TelemetryRepoOptions {
  /** Where failed flushes and dropped events are told (a flush is never awaited by capture, so it cannot throw). */
  log?: { warn(obj: object, msg: string): void };
  /** Events waiting for the database past which new ones are dropped; see MAX_QUEUED. */
  maxQueued?: number;
}

const FLUSH_EVERY_MS = 100;
const FLUSH_AT = 500;
/** Rows per INSERT statement: one round trip each on PostgreSQL, well under both databases' parameter limits. */
const ROWS_PER_INSERT = 100;
/**
 * When the database falls behind capture, events wait in memory; past this many, new ones are dropped
 * (counted in stats.dropped) rather than letting memory grow without end.
 */
const MAX_QUEUED = 200_000;

type Row = { browser_id: string; seq: number; ts: number; category: string; event: string };

export class TelemetryRepo {
  private queue: Row[] = [];
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  /** The flush that will take what is queued now and has not started yet (it waits for `last`). */
  private waiting: Promise<void> | undefined;
  /** The latest flush started or waiting: flushes run one at a time, in order, so writes never pile up. */
  private last: Promise<void> = Promise.resolve();
  /** Whether drops were logged since the queue last had room. */
  private dropping = false;
  private readonly maxQueued: number;
  /** Flushes done, events written and dropped, failed flushes; for the benchmark and tests. */
  readonly stats = { flushes: 0, written: 0, maxFlushMs: 0, dropped: 0, failedFlushes: 0 };

  constructor(
    private readonly db: Database,
    private readonly options: TelemetryRepoOptions = {},
  ) {
    this.maxQueued = options.maxQueued ?? MAX_QUEUED;
  }

  add(browserId: string, env: TelemetryEnvelope): void {
    if (this.queue.length >= this.maxQueued) {
      this.stats.dropped++;
      if (!this.dropping) {
        this.dropping = true;
        this.options.log?.warn({ queued: this.queue.length }, 'telemetry events are dropped: the database is not keeping up with capture');
      }
      return;
    }
    this.dropping = false;
    this.queue.push({ browser_id: browserId, seq: env.seq, ts: env.event.ts, category: env.event.category, event: JSON.stringify(env.event) });
    if (this.queue.length >= FLUSH_AT) {
      // Off the emitting call stack: a CDP event handler never pays for a write.
      this.immediate ??= setImmediate(() => {
        this.immediate = undefined;
        void this.flush();
      });
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_EVERY_MS);
      this.timer.unref();
    }
  }

  /**
   * Writes everything queued before the call; resolves once it is in the database. Never rejects: a failed
   * write is logged and its events are lost, as capture cannot wait for the database to come back.
   */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.waiting) {
      this.waiting = this.last.then(() => {
        this.waiting = undefined;
        const rows = this.queue;
        this.queue = [];
        return this.write(rows);
      });
      this.last = this.waiting;
    }
    return this.waiting;
  }

  private async write(rows: Row[]): Promise<void> {
    if (!rows.length) return;
    const started = performance.now();
    try {
      await this.db.transaction(async (tx) => {
        for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
          const values = rows.slice(i, i + ROWS_PER_INSERT).map((r) => sql`(${r.browser_id}, ${r.seq}, ${r.ts}, ${r.category}, ${r.event})`);
          await tx.run(sql`INSERT INTO telemetry_events (browser_id, seq, ts, category, event) VALUES ${join(values, ', ')}
            ON CONFLICT (browser_id, seq) DO NOTHING`);
        }
      });
    } catch (err) {
      this.stats.failedFlushes++;
      this.options.log?.warn({ events: rows.length, err: (err as Error).message }, 'could not write telemetry events; they are lost');
      return;
    }
    this.stats.flushes++;
    this.stats.written += rows.length;
    this.stats.maxFlushMs = Math.max(this.stats.maxFlushMs, performance.now() - started);
  }

  /** The stored settings of each of these browsers that has any, in one query. */
  async settingsOf(browserIds: readonly string[]): Promise<Map<string, StoredSettings>> {
    const rows = await this.db.all<{ browser_id: string; categories: string | null; export_destination: string | null }>(
      sql`SELECT browser_id, categories, export_destination FROM telemetry_settings WHERE browser_id ${inList(browserIds)}`,
    );
    return new Map(
      rows.map((row) => [
        row.browser_id,
        { categories: row.categories ? (JSON.parse(row.categories) as string[]) : null, export_destination: row.export_destination },
      ]),
    );
  }

  async saveSettings(browserId: string, settings: StoredSettings): Promise<void> {
    const categories = settings.categories ? JSON.stringify(settings.categories) : null;
    await this.db.run(sql`INSERT INTO telemetry_settings (browser_id, categories, export_destination)
      VALUES (${browserId}, ${categories}, ${settings.export_destination})
      ON CONFLICT (browser_id) DO UPDATE SET categories = excluded.categories, export_destination = excluded.export_destination`);
  }

  /** One page of events and whether more match beyond it. */
  async list(q: EventQuery): Promise<{ events: TelemetryEnvelope[]; hasMore: boolean }> {
    await this.flush();
    const where = [sql`browser_id = ${q.browserId}`];
    if (q.cursor !== undefined) where.push(q.order === 'asc' ? sql`seq >= ${q.cursor}` : sql`seq <= ${q.cursor}`);
    if (q.sinceUs !== undefined) where.push(sql`ts >= ${q.sinceUs}`);
    if (q.untilUs !== undefined) where.push(sql`ts < ${q.untilUs}`);
    if (q.categories?.length) where.push(sql`category IN (${join(q.categories.map((c) => sql`${c}`), ', ')})`);
    const rows = await this.db.all<Pick<Row, 'seq' | 'event'>>(
      sql`SELECT seq, event FROM telemetry_events WHERE ${join(where, ' AND ')}
        ORDER BY seq ${raw(q.order === 'asc' ? 'ASC' : 'DESC')} LIMIT ${q.limit + 1}`,
    );
    const hasMore = rows.length > q.limit;
    return { events: rows.slice(0, q.limit).map(toEnvelope), hasMore };
  }

  /** Events with afterSeq < seq < beforeSeq, oldest first: the part of a resume the memory ring no longer holds. */
  async between(browserId: string, afterSeq: number, beforeSeq: number, limit: number): Promise<TelemetryEnvelope[]> {
    await this.flush();
    const rows = await this.db.all<Pick<Row, 'seq' | 'event'>>(
      sql`SELECT seq, event FROM telemetry_events WHERE browser_id = ${browserId} AND seq > ${afterSeq} AND seq < ${beforeSeq}
        ORDER BY seq LIMIT ${limit}`,
    );
    return rows.map(toEnvelope);
  }
}

function toEnvelope(row: Pick<Row, 'seq' | 'event'>): TelemetryEnvelope {
  return { seq: row.seq, event: JSON.parse(row.event) as TelemetryEnvelope['event'] };
}
