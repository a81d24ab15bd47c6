// Keeping a browser for someone to look at (POST /browsers/{id}/keep): a failed check leaves its session at the
// failing step for a bounded time. The record says until when and why (every process of a cluster shows it);
// the host running the session stops timing it out and ends it at the keep's end. A kept browser is a live
// session like any other: it holds its place against the concurrency limits until it ends.
import type { BrowserKeepParams, BrowserKept } from '../../../api/types.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import type { BrowserKeep, BrowserKeepsRepo } from '../../store/browser-keeps-repo.js';
import { DomainError, notFound } from '../errors.js';
import type { SessionManager } from '../session/index.js';

export interface KeeperDeps {
  keeps: BrowserKeepsRepo;
  sessions: Pick<SessionManager, 'get' | 'keep'>;
  now: () => Date;
}

export class BrowserKeeper {
  constructor(private readonly deps: KeeperDeps) {}

  /** Keeps the session `row` (found in the caller's project) for `params.seconds` from now. */
  async keep(row: BrowserRow, params: BrowserKeepParams, idOrName: string): Promise<void> {
    const { keeps, sessions, now } = this.deps;
    const live = sessions.get(row.id);
    if (!live || live.ending) throw notFound('browser', idOrName);
    // A pool's browser goes back to its pool on release and counts through the pool's size: keeping one
    // would hold a lease nobody releases.
    if (row.pool_id !== null) {
      throw new DomainError('conflict', 'pool_browser', `browser '${idOrName}' belongs to a pool: release it to its pool; only browsers created with POST /browsers can be kept`);
    }
    const at = now();
    const until = new Date(at.getTime() + params.seconds * 1000);
    await keeps.set({ browser_id: row.id, until: until.toISOString(), reason: params.reason ?? {}, kept_at: at.toISOString() });
    // Ended while the record was written: the keep row stays, the session is gone as any ended one.
    if (!sessions.keep(row.id, until)) throw notFound('browser', idOrName);
  }

  /** The `kept` field of each of these sessions that has one. */
  async presentForEach(ids: readonly string[]): Promise<Map<string, BrowserKept>> {
    const found = await this.deps.keeps.forEach(ids);
    return new Map([...found].map(([id, keep]) => [id, present(keep)]));
  }
}

function present(keep: BrowserKeep): BrowserKept {
  return { until: keep.until, reason: keep.reason };
}
