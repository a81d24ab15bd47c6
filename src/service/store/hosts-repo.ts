// The browser hosts of a cluster (PostgreSQL only: a cluster's processes share one database). Each host
// registers, then heartbeats its load; a host whose heartbeat stops is declared gone by whichever process
// looks first, and its sessions end with it. Every time here is the database's clock (now()), so machines
// whose clocks differ still agree on who is late.
import type { Database } from './database.js';
import { inList, raw, sql } from './sql.js';

export interface HostLoad {
  /** Sessions running on the host now (on-demand and pooled). */
  sessions: number;
  /** Creates waiting there for a free slot. */
  queued: number;
  standbyReady: number;
  draining: boolean;
  /** Whether the host holds the leader lock (it runs pools, apps and login flows). */
  leader: boolean;
}

export interface HostRow {
  id: string;
  url: string;
  max_sessions: number | null;
  /** Active sessions the database records for the host: exact, where the heartbeat's count may lag. */
  sessions: number;
  queued: number;
  standby_ready: number;
  draining: boolean;
  leader: boolean;
  /** Milliseconds since its last heartbeat, by the database's clock. */
  silent_ms: number;
}

interface StoredRow {
  id: string;
  url: string;
  max_sessions: number | null;
  sessions: string | number;
  queued: number;
  standby_ready: number;
  draining: number;
  leader: number;
  silent_ms: string | number;
}

/** What a host's end left behind: the sessions that were running on it. */
export interface LostHost {
  id: string;
  sessionIds: string[];
}

export class HostsRepo {
  constructor(private readonly db: Database) {
    if (db.dialect !== 'postgres') throw new Error('a cluster keeps its hosts in PostgreSQL (--database-url)');
  }

  /** Adds the host, or brings it back under the same id (a restart): alive, heartbeat now. */
  async register(id: string, url: string, maxSessions: number | null): Promise<void> {
    await this.db.run(sql`INSERT INTO hosts (id, url, max_sessions) VALUES (${id}, ${url}, ${maxSessions})
      ON CONFLICT (id) DO UPDATE SET url = excluded.url, max_sessions = excluded.max_sessions, sessions = 0, queued = 0,
        standby_ready = 0, draining = 0, leader = 0, started_at = now(), heartbeat_at = now(), gone_at = NULL`);
  }

  /** Records the host's load and that it lives; false when it was declared gone meanwhile (it must not serve on). */
  async heartbeat(id: string, load: HostLoad): Promise<boolean> {
    const { changes } = await this.db.run(sql`UPDATE hosts SET heartbeat_at = now(), sessions = ${load.sessions}, queued = ${load.queued},
      standby_ready = ${load.standbyReady}, draining = ${load.draining ? 1 : 0}, leader = ${load.leader ? 1 : 0} WHERE id = ${id} AND gone_at IS NULL`);
    return changes > 0;
  }

  /** Hosts heard from within `freshMs`, not gone, with the sessions each runs by the database's count. */
  async live(freshMs: number): Promise<HostRow[]> {
    const rows = await this.db.all<StoredRow>(sql`SELECT h.id, h.url, h.max_sessions, h.queued, h.standby_ready, h.draining, h.leader,
        (SELECT count(*) FROM browsers b WHERE b.host_id = h.id AND b.deleted_at IS NULL) AS sessions,
        (extract(epoch FROM now() - h.heartbeat_at) * 1000)::bigint AS silent_ms
      FROM hosts h WHERE h.gone_at IS NULL AND h.heartbeat_at > now() - ${raw(`interval '${Math.max(1, Math.round(freshMs))} milliseconds'`)}
      ORDER BY h.id`);
    return rows.map((r) => ({
      id: r.id,
      url: r.url,
      max_sessions: r.max_sessions,
      sessions: Number(r.sessions),
      queued: r.queued,
      standby_ready: r.standby_ready,
      draining: r.draining === 1,
      leader: r.leader === 1,
      silent_ms: Number(r.silent_ms),
    }));
  }

  /**
   * Declares gone every host silent for longer than `silentMs`, and ends the sessions they ran with
   * `host_lost`, in one transaction: whichever process runs it first does the work, the others find none.
   */
  async reapSilent(silentMs: number, at: Date): Promise<LostHost[]> {
    return this.db.transaction(async (tx) => {
      const gone = await tx.all<{ id: string }>(sql`UPDATE hosts SET gone_at = now()
        WHERE gone_at IS NULL AND heartbeat_at < now() - ${raw(`interval '${Math.max(1, Math.round(silentMs))} milliseconds'`)} RETURNING id`);
      if (!gone.length) return [];
      const ended = await tx.all<{ id: string; host_id: string }>(sql`UPDATE browsers SET deleted_at = ${at.toISOString()}, end_reason = 'host_lost',
          end_detail = 'the browser host running this session stopped answering; the session ended with it'
        WHERE deleted_at IS NULL AND host_id ${inList(gone.map((g) => g.id))} RETURNING id, host_id`);
      return gone.map(({ id }) => ({ id, sessionIds: ended.filter((e) => e.host_id === id).map((e) => e.id) }));
    });
  }

  /** A host stopping cleanly leaves: no replica places on it or routes to it from now on. */
  async leave(id: string): Promise<void> {
    await this.db.run(sql`UPDATE hosts SET gone_at = now(), leader = 0 WHERE id = ${id} AND gone_at IS NULL`);
  }
}
