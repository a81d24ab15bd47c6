// Replay records and their markers. They outlive the session they recorded (and the service's
// restarts); the videos live beside the database, named by replay id.
import type { Marker } from '../../api/schemas/replays.js';
import type { Db } from './sqlite/open.js';

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

const COLUMNS = `id, browser_id, source, framerate, max_duration_s, started_at, finished_at, duration_ms, size_bytes,
  end_reason, end_detail, recorder_pid`;

export class ReplaysRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO replays (${COLUMNS}) VALUES (@id, @browser_id, @source, @framerate, @max_duration_s, @started_at,
          @finished_at, @duration_ms, @size_bytes, @end_reason, @end_detail, @recorder_pid)`,
      ),
      byId: db.prepare<[string], ReplayRow>(`SELECT ${COLUMNS} FROM replays WHERE id = ?`),
      byBrowser: db.prepare<[string], ReplayRow>(`SELECT ${COLUMNS} FROM replays WHERE browser_id = ? ORDER BY started_at, id`),
      unfinished: db.prepare<[], ReplayRow>(`SELECT ${COLUMNS} FROM replays WHERE finished_at IS NULL`),
      finish: db.prepare(
        `UPDATE replays SET finished_at = @finished_at, duration_ms = @duration_ms, size_bytes = @size_bytes,
          end_reason = @end_reason, end_detail = @end_detail, recorder_pid = NULL WHERE id = @id AND finished_at IS NULL`,
      ),
      addMarker: db.prepare(`INSERT INTO replay_markers (replay_id, name, offset_ms, created_at) VALUES (?, ?, ?, ?)`),
      markers: db.prepare<[string], Marker>(
        `SELECT name, offset_ms, created_at FROM replay_markers WHERE replay_id = ? ORDER BY offset_ms, seq`,
      ),
      browserMarkers: db.prepare<[string], Marker & { replay_id: string }>(
        `SELECT m.replay_id, m.name, m.offset_ms, m.created_at FROM replay_markers m JOIN replays r ON r.id = m.replay_id
          WHERE r.browser_id = ? ORDER BY m.offset_ms, m.seq`,
      ),
    };
  }

  insert(row: ReplayRow): void {
    this.stmts.insert.run(row);
  }

  get(id: string): ReplayRow | undefined {
    return this.stmts.byId.get(id);
  }

  /** A session's replays, oldest first. */
  listForBrowser(browserId: string): ReplayRow[] {
    return this.stmts.byBrowser.all(browserId);
  }

  /** Replays whose recording never finished: their service died while recording. */
  listUnfinished(): ReplayRow[] {
    return this.stmts.unfinished.all();
  }

  /** Records the end once; false when it had already finished. */
  finish(
    id: string,
    end: { finished_at: string; duration_ms: number | null; size_bytes: number | null; end_reason: ReplayEndReason; end_detail: string | null },
  ): boolean {
    return this.stmts.finish.run({ id, ...end }).changes > 0;
  }

  addMarker(replayId: string, marker: Marker): void {
    this.stmts.addMarker.run(replayId, marker.name, marker.offset_ms, marker.created_at);
  }

  /** A replay's markers in time order (ties in the order they were added). */
  markers(replayId: string): Marker[] {
    return this.stmts.markers.all(replayId);
  }

  /** Every marker of a session's replays, grouped by replay id, in one query for the list. */
  markersByReplay(browserId: string): Map<string, Marker[]> {
    const out = new Map<string, Marker[]>();
    for (const { replay_id, ...marker } of this.stmts.browserMarkers.all(browserId)) {
      let list = out.get(replay_id);
      if (!list) out.set(replay_id, (list = []));
      list.push(marker);
    }
    return out;
  }
}
