// What keeps kept runs from going stale or piling up without end, swept periodically by the process that does
// the database's once-per-database work (the one process, or a cluster's leader):
//  - a run left `running` by a runner that died (killed CI job, lost machine) would stay running forever: once
//    nothing has come for it (no result, artifact or finish) for `staleAfterMs` it is ended as `interrupted`,
//    at its last activity, with a summary of the results it has, which it keeps;
//  - runs whose last activity is older than the retention are deleted with their files.
// Both work in bounded batches, so a sweep that finds a year of runs to delete holds the database a little at
// a time and leaves the rest to the next sweep.
import type { ResultCount, RunSummaryRow, RunsRepo } from '../../store/runs-repo.js';
import type { ArtifactFiles } from './artifact-files.js';

export const DEFAULT_RUNS_STALE_AFTER_MS = 6 * 3_600_000;
export const DEFAULT_RUNS_RETENTION_DAYS = 90;
const DEFAULT_INTERVAL_MS = 5 * 60_000;
/** Runs per statement: a run may hold thousands of results, each deleted with it. */
const BATCH = 25;
/** Batches per sweep; what is left waits for the next one. */
const MAX_BATCHES = 40;
const DAY_MS = 86_400_000;

export interface RunUpkeepDeps {
  repo: RunsRepo;
  files: ArtifactFiles;
  now: () => Date;
  /** A running run with nothing new for this long is ended as interrupted (default 6 h; 0: never). */
  staleAfterMs?: number;
  /** Runs whose last activity is older than this many days are deleted (default 90; 0: kept forever). */
  retentionDays?: number;
  /** How often the sweep runs (default 5 min). */
  intervalMs?: number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

export interface SweepOutcome {
  interrupted: number;
  deleted: number;
}

export class RunUpkeep {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<SweepOutcome> | undefined;
  private closed = false;
  readonly staleAfterMs: number;
  readonly retentionDays: number;

  constructor(private readonly deps: RunUpkeepDeps) {
    this.staleAfterMs = deps.staleAfterMs ?? DEFAULT_RUNS_STALE_AFTER_MS;
    this.retentionDays = deps.retentionDays ?? DEFAULT_RUNS_RETENTION_DAYS;
    if (!(this.staleAfterMs >= 0)) throw new Error('the runs stale bound must be 0 (never) or more milliseconds');
    if (!(Number.isInteger(this.retentionDays) && this.retentionDays >= 0)) throw new Error('the runs retention must be a whole number of days, 0 keeping runs forever');
  }

  /** Sweeps now (a restart finds what died while the service was down) and then every interval. */
  start(): void {
    // A cluster host that leads again calls it again: one timer is enough.
    if (this.timer || this.closed) return;
    const tick = () => void this.sweep().catch((err: unknown) => this.deps.log.warn({ err: (err as Error).message }, 'runs could not be swept'));
    this.timer = setInterval(tick, this.deps.intervalMs ?? DEFAULT_INTERVAL_MS);
    this.timer.unref();
    tick();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
  }

  /** One sweep; one already under way is joined, never run beside. */
  sweep(): Promise<SweepOutcome> {
    return (this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = undefined)));
  }

  private async sweepOnce(): Promise<SweepOutcome> {
    const now = this.deps.now().getTime();
    const interrupted = this.staleAfterMs > 0 ? await this.endIdle(new Date(now - this.staleAfterMs).toISOString()) : 0;
    const deleted = this.retentionDays > 0 ? await this.deleteExpired(new Date(now - this.retentionDays * DAY_MS).toISOString()) : 0;
    if (interrupted || deleted) this.deps.log.info({ interrupted, deleted }, 'runs swept: idle runs ended as interrupted, runs past retention deleted');
    return { interrupted, deleted };
  }

  private async endIdle(cutoff: string): Promise<number> {
    const { repo } = this.deps;
    let ended = 0;
    for (let batch = 0; batch < MAX_BATCHES && !this.closed; batch++) {
      const idle = await repo.idleRuns(cutoff, BATCH);
      const counts = await repo.resultCounts(idle.map((r) => r.id));
      for (const run of idle) {
        // A run that got a result since it was read is not idle any more: the store checks again.
        const summary = summaryOf(counts.filter((c) => c.run_id === run.id));
        if (await repo.endIdle(run.id, cutoff, { status: 'interrupted', summary, finished_at: run.active_at })) ended++;
      }
      // Runs that were not ended are no longer idle, so the next batch never reads them again.
      if (idle.length < BATCH) break;
    }
    return ended;
  }

  private async deleteExpired(cutoff: string): Promise<number> {
    const { repo, files } = this.deps;
    let deleted = 0;
    for (let batch = 0; batch < MAX_BATCHES && !this.closed; batch++) {
      const ids = await repo.expiredRuns(cutoff, BATCH);
      // Files first, as a delete does (Runs.delete): rows left by a sweep cut off are found by the next.
      for (const id of ids) await files.removeRun(id);
      deleted += await repo.deleteRuns(ids);
      if (ids.length < BATCH) break;
    }
    return deleted;
  }
}

/** What the runner's summary would have said of the results that arrived (flaky ones are not also passed). */
export function summaryOf(counts: ResultCount[]): RunSummaryRow {
  const sum = (pick: (c: ResultCount) => boolean) => counts.filter(pick).reduce((n, c) => n + c.n, 0);
  return {
    total: sum(() => true),
    passed: sum((c) => c.status === 'passed' && !c.flaky),
    failed: sum((c) => c.status === 'failed'),
    errored: sum((c) => c.status === 'error'),
    flaky: sum((c) => c.status === 'passed' && c.flaky),
  };
}
