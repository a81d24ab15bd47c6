// What bench/monitor-tick.ts deploys and seeds: 1,000 checks in 10 suites of 100 through MonitorsRepo.deploy,
// the first 10 of each suite on an hourly cron (the 100 that fall due together at the top of the hour), the
// others on an hourly interval spread over the hour; and each check's recent runs, recorded the way the
// scheduler records them (a claim, then finish).
import type { MonitorCheckSpec } from '../src/api/schemas/monitors.js';
import { HEALTHY } from '../src/service/host/monitors/policy.js';
import type { Database } from '../src/service/store/database.js';
import { MonitorsRepo, type CheckRow } from '../src/service/store/monitors-repo.js';
import { inList, sql } from '../src/service/store/sql.js';

export const SUITES = 10;
export const PER_SUITE = 100;
/** Of each suite, how many run on the hourly cron. */
const CRON_PER_SUITE = 10;
const HOUR = 3_600_000;

export interface Deployed {
  /** The 100 hourly cron checks. */
  cron: string[];
  all: string[];
}

/**
 * Deploys the suites with every check's first run after `now` (the steady state: nothing due); the cron ones
 * at the next top of the hour, the interval ones spread over the hour before it.
 */
export async function deployChecks(repo: MonitorsRepo, now: Date): Promise<Deployed> {
  const nextHour = Math.floor(now.getTime() / HOUR) * HOUR + HOUR;
  const out: Deployed = { cron: [], all: [] };
  for (let s = 0; s < SUITES; s++) {
    const name = `suite-${s}`;
    const checks = Array.from({ length: PER_SUITE }, (_, k) => {
      const spec: MonitorCheckSpec = {
        name: `check-${String(k).padStart(3, '0')}`,
        file: `checks/check-${k}.yaml`,
        schedule: k < CRON_PER_SUITE ? { cron: '0 * * * *' } : { every_seconds: 3600 },
        timeout_seconds: 120,
        retries: { count: 1, delay_seconds: 30 },
        alert: { after_failures: 2 },
        tags: ['bench', name],
      };
      return { id: `${name}-${k}`, spec };
    });
    const firstDue = (spec: MonitorCheckSpec) => {
      const k = Number(spec.name.slice(6));
      if (k < CRON_PER_SUITE) return new Date(nextHour).toISOString();
      // Spread over the hour, all of it after `now` and before the top of the hour.
      const span = nextHour - now.getTime();
      return new Date(now.getTime() + 1 + Math.floor(((s * PER_SUITE + k) / (SUITES * PER_SUITE)) * (span - 2))).toISOString();
    };
    await repo.deploy(
      { id: `s${s}`, project_id: null, name, version: 1, settings: {}, bundle: `s${s}/1`, deployed_at: now.toISOString() },
      checks,
      firstDue,
      HEALTHY,
    );
    out.all.push(...checks.map((c) => c.id));
    out.cron.push(...checks.filter((c) => 'cron' in c.spec.schedule).map((c) => c.id));
  }
  return out;
}

/**
 * Puts the cron checks where the top of the hour `top` finds them: due at it, unclaimed, first attempt. No repo
 * method does only this (a trigger marks the run manual), so the benchmark writes it itself, untimed.
 */
export async function makeDue(db: Database, ids: readonly string[], top: string): Promise<void> {
  await db.run(sql`UPDATE monitor_checks SET due_at = ${top}, next_run_at = ${top}, attempt = 1, due_reason = 'schedule',
    running_since = NULL, running_owner = NULL WHERE id ${inList(ids)}`);
}

/**
 * Records `perCheck` finished runs on every check, as the scheduler does (claim, then finish with the run),
 * `parallel` checks at a time; the checks keep their due time. Runs a minute apart, one in seven failed.
 */
export async function seedRecentRuns(repo: MonitorsRepo, perCheck: number, parallel: number, now: Date): Promise<number> {
  const checks = await repo.allChecks();
  let next = 0;
  let seeded = 0;
  const worker = async () => {
    for (let c: CheckRow | undefined; (c = checks[next++]); ) {
      for (let r = 0; r < perCheck; r++) {
        const at = new Date(now.getTime() - (perCheck - r) * 60_000).toISOString();
        const claimed = { ...c, due_at: c.due_at, attempt: 1 };
        if (!(await repo.claim(claimed, 'bench-seed', at))) throw new Error(`could not claim ${c.id} to seed its runs`);
        const failed = (r + c.name.length) % 7 === 0;
        await repo.finish(
          c.id,
          'bench-seed',
          { due_at: c.due_at, next_run_at: c.next_run_at, attempt: 1, health: c.health, due_reason: 'schedule' },
          {
            id: `${c.id}-run-${r}`,
            check_id: c.id,
            run_id: `run-${c.id}-${r}`,
            status: failed ? 'failed' : 'passed',
            attempt: 1,
            started_at: at,
            duration_ms: 1500 + ((r * 37) % 900),
            message: failed ? "expect text 'ok' on page: timed out after 5000 ms" : null,
          },
        );
        seeded++;
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return seeded;
}
