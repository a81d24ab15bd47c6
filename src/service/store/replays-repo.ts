// Replay records and their markers. They outlive the session they recorded (and the service's
// restarts); the videos live beside the database, named by replay id.
import type { Marker } from '../../api/schemas/replays.js';
import type { Queryable } from './database.js';
import { raw, sql } from './sql.js';

export type { Marker };

export type ReplaySource = 'screencast' | 'x11grab';

/** Why a recording ended. */
export type ReplayEndReason = 'stopped' | 'max_duration' | 'session_ended' | 'recorder_exited' | 'service_restart';

export interface ReplayRow {
  id: string;
  browser_id: string;
  source: ReplaySource;
  framerate: number;
  max_duration_s: number;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  size_bytes: number | null;
  end_reason: ReplayEndReason | null;
  end_detail: string | null;
  recorder_pid: number | null;
}

const COLUMNS = raw(`id, browser_id, source, framerate, max_duration_s, started_at, finished_at, duration_ms, size_bytes,
  end_reason, end_detail, recorder_pid`);

export class ReplaysRepo {
  constructor(private readonly db: Queryable) {}

  async insert(row: ReplayRow): Promise<void> {
    await this.db.run(sql`INSERT INTO replays (${COLUMNS}) VALUES (${row.id}, ${row.browser_id}, ${row.source}, ${row.framerate},
      ${row.max_duration_s}, ${row.started_at}, ${row.finished_at}, ${row.duration_ms}, ${row.size_bytes}, ${row.end_reason},
      ${row.end_detail}, ${row.recorder_pid})`);
  }

  get(id: string): Promise<ReplayRow | undefined> {
    return this.db.get<ReplayRow>(sql`SELECT ${COLUMNS} FROM replays WHERE id = ${id}`);
  }

  /** A session's replays, oldest first. */
  listForBrowser(browserId: string): Promise<ReplayRow[]> {
    return this.db.all<ReplayRow>(sql`SELECT ${COLUMNS} FROM replays WHERE browser_id = ${browserId} ORDER BY started_at, id`);
  }

  /** Replays whose recording never finished: their service died while recording. */
  /** Replays not finished; with `hostId`, those of sessions that cluster host ran (others record on). */
  listUnfinished(hostId?: string): Promise<ReplayRow[]> {
    const onHost = hostId === undefined ? sql`` : sql` AND browser_id IN (SELECT id FROM browsers WHERE host_id = ${hostId})`;
    return this.db.all<ReplayRow>(sql`SELECT ${COLUMNS} FROM replays WHERE finished_at IS NULL${onHost} ORDER BY started_at, id`);
  }

  /** Records the end once; false when it had already finished. */
  async finish(
    id: string,
    end: { finished_at: string; duration_ms: number | null; size_bytes: number | null; end_reason: ReplayEndReason; end_detail: string | null },
  ): Promise<boolean> {
    const { changes } = await this.db.run(sql`UPDATE replays SET finished_at = ${end.finished_at}, duration_ms = ${end.duration_ms},
      size_bytes = ${end.size_bytes}, end_reason = ${end.end_reason}, end_detail = ${end.end_detail}, recorder_pid = NULL
      WHERE id = ${id} AND finished_at IS NULL`);
    return changes > 0;
  }

  async addMarker(replayId: string, marker: Marker): Promise<void> {
    await this.db.run(sql`INSERT INTO replay_markers (replay_id, name, offset_ms, created_at)
      VALUES (${replayId}, ${marker.name}, ${marker.offset_ms}, ${marker.created_at})`);
  }

  /** A replay's markers in time order (ties in the order they were added). */
  markers(replayId: string): Promise<Marker[]> {
    return this.db.all<Marker>(
      sql`SELECT name, offset_ms, created_at FROM replay_markers WHERE replay_id = ${replayId} ORDER BY offset_ms, seq`,
    );
  }

  /** Every marker of a session's replays, grouped by replay id, in one query for the list. */
  async markersByReplay(browserId: string): Promise<Map<string, Marker[]>> {
    const rows = await this.db.all<Marker & { replay_id: string }>(
      sql`SELECT m.replay_id, m.name, m.offset_ms, m.created_at FROM replay_markers m JOIN replays r ON r.id = m.replay_id
        WHERE r.browser_id = ${browserId} ORDER BY m.offset_ms, m.seq`,
    );
    const out = new Map<string, Marker[]>();
    for (const { replay_id, ...marker } of rows) {
      let list = out.get(replay_id);
      if (!list) out.set(replay_id, (list = []));
      list.push(marker);
    }
    return out;
  }
}
