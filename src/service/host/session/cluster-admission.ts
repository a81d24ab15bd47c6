// In a cluster, each host counts only its own sessions, so the org and project limits are held where every
// host's sessions are: a create's record is written inside one database lock, under which the active
// on-demand sessions of every host and the pools' sizes are counted. Parallel creates on different hosts
// (through different replicas) queue on the lock, so exactly as many are admitted as the limit allows.
import type { Database } from '../../store/database.js';
import { BrowsersRepo, type BrowserRow } from '../../store/browsers-repo.js';
import { PoolsRepo } from '../../store/pools-repo.js';
import { lockNamed } from '../../store/row-lock.js';
import type { LimitsRepo } from '../../store/limits-repo.js';
import { ConcurrencyLimit } from './limits.js';

export const ADMISSION_LOCK = 'bcs.admission';

export class ClusterAdmission {
  constructor(
    private readonly db: Database,
    private readonly limits: Pick<LimitsRepo, 'sessionCaps'>,
  ) {}

  /** Writes the record of a new session; an on-demand one only if it fits the limits (else 429, nothing written). */
  async insert(row: BrowserRow): Promise<void> {
    // A pool's browsers were admitted when the pool reserved them (its size); they are not counted again.
    if (row.pool_id !== null) return new BrowsersRepo(this.db).insert(row);
    // Read before the lock: caps change rarely, and the lock is held for as short a time as it can be.
    const caps = await this.limits.sessionCaps(row.project_id);
    await this.db.transaction(async (tx) => {
      await lockNamed(tx, ADMISSION_LOCK);
      const browsers = new BrowsersRepo(tx);
      const [counts, pools] = await Promise.all([browsers.onDemandCounts(row.project_id), new PoolsRepo(tx).all()]);
      const usage = {
        onDemand: (projectId?: string) => (projectId === undefined ? counts.org : counts.project),
        reserved: (projectId?: string) => pools.filter((p) => projectId === undefined || p.project_id === projectId).reduce((n, p) => n + p.config.size, 0),
      };
      new ConcurrencyLimit(this.limits, usage).admitSession(caps, row.project_id);
      await browsers.insert(row);
    });
  }
}
