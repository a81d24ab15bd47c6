// The unified concurrency limit: on-demand sessions plus pool reservations (the sum of pool sizes) may not
// exceed `max_concurrent_sessions`. Standby browsers are not sessions and do not count. Every check runs
// synchronously right before the thing it admits is counted, so parallel requests cannot overshoot.
import { ServiceError } from '../errors.js';
import type { LimitsRepo } from '../store/limits-repo.js';

export interface Usage {
  onDemand(): number;
  /** The sum of all pool sizes. */
  reserved(): number;
}

export class ConcurrencyLimit {
  constructor(
    private readonly repo: LimitsRepo,
    private readonly usage: Usage,
  ) {}

  /** Throws 429 unless one more on-demand session fits; `onDemand` counts those running or starting. */
  admitSession(onDemand = this.usage.onDemand()): void {
    this.check(onDemand, this.usage.reserved(), 1, 'create a browser session');
  }

  /** Throws 429 unless pools may reserve `extra` more browsers. */
  admitReservation(extra: number): void {
    if (extra > 0) this.check(this.usage.onDemand(), this.usage.reserved(), extra, `reserve ${extra} more pooled browser${extra === 1 ? '' : 's'}`);
  }

  private check(onDemand: number, reserved: number, extra: number, what: string): void {
    const limit = this.repo.get().max_concurrent_sessions;
    if (limit === null || onDemand + reserved + extra <= limit) return;
    throw new ServiceError(
      429,
      'concurrency_limit_exceeded',
      `cannot ${what}: max_concurrent_sessions is ${limit} and ${onDemand + reserved} are in use ` +
        `(${onDemand} on-demand session${onDemand === 1 ? '' : 's'}, ${reserved} reserved by browser pools); ` +
        'end sessions, shrink or delete a pool, or raise the limit with PATCH /org/limits',
    );
  }
}
