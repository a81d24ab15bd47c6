// Telemetry events and per-session capture settings. Capture must never wait on the disk, so events are
// queued in memory and written in one transaction per flush (every 100 ms, or at once when 500 are
// waiting); readers flush first, so a read always sees everything captured before it.
import type { TelemetryCategory, TelemetryEnvelope } from '../../api/types.js';
import type { Db } from './sqlite/open.js';

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

const FLUSH_EVERY_MS = 100;
const FLUSH_AT = 500;

type Row = { browser_id: string; seq: number; ts: number; category: string; event: string };

export class TelemetryRepo {
  private queue: Row[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly stmts;
  private readonly insertAll: (rows: Row[]) => void;
  /** Flushes done and events written; for the benchmark and tests. */
  readonly stats = { flushes: 0, written: 0, maxFlushMs: 0 };

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT OR IGNORE INTO telemetry_events (browser_id, seq, ts, category, event) VALUES (@browser_id, @seq, @ts, @category, @event)`,
      ),
      getSettings: db.prepare<[string], { categories: string | null; export_destination: string | null }>(
        `SELECT categories, export_destination FROM telemetry_settings WHERE browser_id = ?`,
      ),
      putSettings: db.prepare(
        `INSERT INTO telemetry_settings (browser_id, categories, export_destination) VALUES (@id, @categories, @dest)
         ON CONFLICT (browser_id) DO UPDATE SET categories = excluded.categories, export_destination = excluded.export_destination`,
      ),
      between: db.prepare<[string, number, number, number], Row>(
        `SELECT seq, event FROM telemetry_events WHERE browser_id = ? AND seq > ? AND seq < ? ORDER BY seq LIMIT ?`,
      ),
    };
    this.insertAll = db.transaction((rows: Row[]) => {
      for (const row of rows) this.stmts.insert.run(row);
    });
  }

  add(browserId: string, env: TelemetryEnvelope): void {
    this.queue.push({ browser_id: browserId, seq: env.seq, ts: env.event.ts, category: env.event.category, event: JSON.stringify(env.event) });
    if (this.queue.length >= FLUSH_AT) {
      // Off the emitting call stack: a CDP event handler never pays for a disk write.
      setImmediate(() => this.flush());
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_EVERY_MS);
      this.timer.unref();
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.queue.length || !this.db.open) return;
    const rows = this.queue;
    this.queue = [];
    const started = performance.now();
    this.insertAll(rows);
    this.stats.flushes++;
    this.stats.written += rows.length;
    this.stats.maxFlushMs = Math.max(this.stats.maxFlushMs, performance.now() - started);
  }

  settings(browserId: string): StoredSettings | undefined {
    const row = this.stmts.getSettings.get(browserId);
    if (!row) return undefined;
    return { categories: row.categories ? (JSON.parse(row.categories) as string[]) : null, export_destination: row.export_destination };
  }

  saveSettings(browserId: string, settings: StoredSettings): void {
    this.stmts.putSettings.run({
      id: browserId,
      categories: settings.categories ? JSON.stringify(settings.categories) : null,
      dest: settings.export_destination,
    });
  }

  /** One page of events and whether more match beyond it. */
  list(q: EventQuery): { events: TelemetryEnvelope[]; hasMore: boolean } {
    this.flush();
    const where = ['browser_id = @browserId'];
    const params: Record<string, unknown> = { browserId: q.browserId, limit: q.limit + 1 };
    if (q.cursor !== undefined) {
      where.push(q.order === 'asc' ? 'seq >= @cursor' : 'seq <= @cursor');
      params.cursor = q.cursor;
    }
    if (q.sinceUs !== undefined) {
      where.push('ts >= @since');
      params.since = q.sinceUs;
    }
    if (q.untilUs !== undefined) {
      where.push('ts < @until');
      params.until = q.untilUs;
    }
    if (q.categories?.length) {
      where.push(`category IN (${q.categories.map((_, i) => `@c${i}`).join(', ')})`);
      q.categories.forEach((c, i) => (params[`c${i}`] = c));
    }
    const rows = this.db
      .prepare<Record<string, unknown>, Row>(
        `SELECT seq, event FROM telemetry_events WHERE ${where.join(' AND ')} ORDER BY seq ${q.order === 'asc' ? 'ASC' : 'DESC'} LIMIT @limit`,
      )
      .all(params);
    const hasMore = rows.length > q.limit;
    return { events: rows.slice(0, q.limit).map(toEnvelope), hasMore };
  }

  /** Events with afterSeq < seq < beforeSeq, oldest first: the part of a resume the memory ring no longer holds. */
  between(browserId: string, afterSeq: number, beforeSeq: number, limit: number): TelemetryEnvelope[] {
    this.flush();
    return this.stmts.between.all(browserId, afterSeq, beforeSeq, limit).map(toEnvelope);
  }
}

function toEnvelope(row: Pick<Row, 'seq' | 'event'>): TelemetryEnvelope {
  return { seq: row.seq, event: JSON.parse(row.event) as TelemetryEnvelope['event'] };
}
