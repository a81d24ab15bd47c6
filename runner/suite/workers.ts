// `--workers N`: a bounded queue over the selected scenarios on one target. Scenarios that lease from a
// pool are also bounded by the pool's size, so surplus ones wait here for a running one to give its
// browser back instead of waiting on the service's acquire and timing out.
import type { CloudClient } from '../../src/api/client.js';
import type { Plan } from '../../src/scenario/index.js';

export interface QueueOptions<T> {
  workers: number;
  /** The pool an item leases from, if any. */
  poolOf(item: T): string | undefined;
  /** How many items of one pool may run at once. */
  poolCapacity(pool: string): number;
  /** Checked before each start: false stops starting new items (--bail, Ctrl-C); running ones finish. */
  canStart(): boolean;
}

/**
 * Runs `run` over `items` with at most `workers` at once, starting the first waiting item whose pool has
 * room (so a pool-bound backlog never idles a worker that could run something else). Resolves with the
 * items never started; rejects with the first error `run` threw, once everything running has finished.
 */
export function runQueue<T>(items: T[], opts: QueueOptions<T>, run: (item: T) => Promise<void>): Promise<T[]> {
  const waiting = [...items];
  const leased = new Map<string, number>();
  let active = 0;
  let failure: { error: unknown } | undefined;

  return new Promise((resolve, reject) => {
    const pump = () => {
      while (active < opts.workers && !failure && opts.canStart()) {
        const next = waiting.findIndex((item) => {
          const pool = opts.poolOf(item);
          return pool === undefined || (leased.get(pool) ?? 0) < opts.poolCapacity(pool);
        });
        if (next < 0) break;
        const [item] = waiting.splice(next, 1) as [T];
        const pool = opts.poolOf(item);
        if (pool !== undefined) leased.set(pool, (leased.get(pool) ?? 0) + 1);
        active++;
        run(item)
          .catch((error: unknown) => {
            failure ??= { error };
          })
          .finally(() => {
            active--;
            if (pool !== undefined) leased.set(pool, leased.get(pool)! - 1);
            pump();
          });
      }
      if (active > 0) return;
      if (failure) reject(failure.error);
      else resolve(waiting);
    };
    pump();
  });
}

/** The pool a scenario leases its browser from (`browser: { pool }`), read off its setup steps. */
export function poolOfPlan(plan: Plan): string | undefined {
  for (const step of plan.steps) {
    if (step.phase !== 'setup') continue;
    for (const op of step.operations) {
      // A name known only at run time (a secret) cannot be counted against ahead of time.
      if (op.op === 'acquire_browser' && 'pool' in op && !op.pool.includes('{{')) return op.pool;
    }
  }
  return undefined;
}

/**
 * The size of each named pool on the target. A pool that cannot be read (missing, no permission) gets no
 * cap here: its scenarios then fail on their own acquire with the service's message.
 */
export async function poolSizes(client: CloudClient, pools: Iterable<string>, signal: AbortSignal): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const pool of new Set(pools)) {
    try {
      const res = await client.request<{ browser_pool_config?: { size?: number } }>('GET', `/browser_pools/${encodeURIComponent(pool)}`, { signal, maxRetries: 1 });
      const size = res.data?.browser_pool_config?.size;
      // A pool of size 0 still gets one slot: its scenarios wait on the service (and time out) rather than here forever.
      if (typeof size === 'number') sizes.set(pool, Math.max(1, size));
    } catch {
      // left uncapped, see above
    }
  }
  return sizes;
}
