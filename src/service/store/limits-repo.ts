// The org's limits: one row, read on every create, so it is kept in memory and written through.
import type { OrgLimits } from '../../api/types.js';
import type { Db } from './db.js';

export class LimitsRepo {
  private current: OrgLimits;

  constructor(private readonly db: Db) {
    const row = db.prepare<[], OrgLimits>(`SELECT max_concurrent_sessions, max_pooled_sessions FROM org_limits WHERE id = 1`).get();
    this.current = row ?? { max_concurrent_sessions: null, max_pooled_sessions: null };
  }

  get(): OrgLimits {
    return { ...this.current };
  }

  /** Sets the given fields (null removes a limit) and returns the result. */
  set(fields: Partial<OrgLimits>): OrgLimits {
    const next = { ...this.current, ...fields };
    this.db
      .prepare(
        `INSERT INTO org_limits (id, max_concurrent_sessions, max_pooled_sessions) VALUES (1, @max_concurrent_sessions, @max_pooled_sessions)
         ON CONFLICT (id) DO UPDATE SET max_concurrent_sessions = excluded.max_concurrent_sessions, max_pooled_sessions = excluded.max_pooled_sessions`,
      )
      .run(next);
    this.current = next;
    return this.get();
  }
}
