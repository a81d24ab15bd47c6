// Kept browsers: until when each is kept and why. Kept in the database so that every process of a cluster
// lists and shows them alike; the host running the session holds the live side (host/session).
import type { BrowserKeepReason } from '../../api/types.js';
import type { Queryable } from './database.js';
import { inList, sql } from './sql.js';

export interface BrowserKeep {
  browser_id: string;
  until: string;
  reason: BrowserKeepReason;
  kept_at: string;
}

type Stored = Omit<BrowserKeep, 'reason'> & { reason: string };

export class BrowserKeepsRepo {
  constructor(private readonly db: Queryable) {}

  /** Keeps `browser_id` until `until`; a browser kept before gets the new end and reason. */
  async set(keep: BrowserKeep): Promise<void> {
    await this.db.run(sql`INSERT INTO browser_keeps (browser_id, until, reason, kept_at)
      VALUES (${keep.browser_id}, ${keep.until}, ${JSON.stringify(keep.reason)}, ${keep.kept_at})
      ON CONFLICT (browser_id) DO UPDATE SET until = excluded.until, reason = excluded.reason, kept_at = excluded.kept_at`);
  }

  async get(browserId: string): Promise<BrowserKeep | undefined> {
    const row = await this.db.get<Stored>(sql`SELECT browser_id, until, reason, kept_at FROM browser_keeps WHERE browser_id = ${browserId}`);
    return row && fromStored(row);
  }

  /** The keep of each of these browsers that has one, in one query. */
  async forEach(browserIds: readonly string[]): Promise<Map<string, BrowserKeep>> {
    if (!browserIds.length) return new Map();
    const rows = await this.db.all<Stored>(sql`SELECT browser_id, until, reason, kept_at FROM browser_keeps WHERE browser_id ${inList(browserIds)}`);
    return new Map(rows.map((row) => [row.browser_id, fromStored(row)]));
  }
}

function fromStored(row: Stored): BrowserKeep {
  return { ...row, reason: JSON.parse(row.reason) as BrowserKeepReason };
}
