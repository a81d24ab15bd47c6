// Runs due checks. One scheduler ticks per database (the single process, or a cluster's leader), but it never
// relies on that: a run is claimed by a conditional UPDATE, so a due run starts once whoever ticks. A failed
// attempt with retries left comes back after its backoff; the last attempt's verdict goes through the alert
// policy. A claim whose owner is gone (a restart, a lost host) is given back and the attempt runs again.
import type { CheckRow, CheckRunRow, MonitorsRepo, SuiteRow } from '../../store/monitors-repo.js';
import { newId } from '../../ids.js';
import type { CheckAttempt } from './check-run.js';
import { applyRun } from './policy.js';
import { inMaintenance, nextAfterRun, retryDelayMs } from './timing.js';
import type { AlertKind } from './alert.js';

export interface RaisedAlert {
  check: CheckRow;
  suite: SuiteRow;
  kind: AlertKind;
  muted: boolean;
  attempt: CheckAttempt;
}

export interface SchedulerDeps {
  repo: MonitorsRepo;
  /** Runs one attempt of the check (its process, its report). */
  attempt(check: CheckRow, suite: SuiteRow, signal: AbortSignal): Promise<CheckAttempt>;
  /** Sends an alert the policy raised; resolves once it is sent (or recorded as muted). */
  alert(raised: RaisedAlert): Promise<void>;
  now: () => Date;
  /** Who holds the claims this scheduler makes: unique per process. */
  owner: string;
  /** Owners that may still be running what they claimed (a cluster's live hosts); others' claims are given back. */
  liveOwners?: () => Promise<readonly string[]>;
  /** Checks run at once by this scheduler. */
  concurrency: number;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** A claim older than the check's timeout and this is surely abandoned, whoever holds it. */
const CLAIM_GRACE_MS = 60_000;

export class MonitorScheduler {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly deps: SchedulerDeps) {}

  /** Ticks every `tickMs` from now; the first tick first gives back what a previous process left claimed. */
  start(tickMs: number): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => void this.tick(), tickMs);
    this.timer.unref?.();
    void this.tick();
  }

  /** One pass: abandoned claims given back, then due checks claimed and started up to the concurrency. */
  tick(): Promise<void> {
    return (this.ticking ??= this.pass().finally(() => (this.ticking = undefined)));
  }

  /** Checks running here now. */
  get active(): number {
    return this.running.size;
  }

  /** Resolves when nothing runs here (for tests and drains). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()].map((r) => r.done));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.ticking?.catch(() => {});
    for (const run of this.running.values()) run.controller.abort(new Error('the service is stopping'));
    await this.idle();
  }

  private async pass(): Promise<void> {
    if (this.closed) return;
    try {
      await this.reclaim();
      const free = this.deps.concurrency - this.running.size;
      if (free <= 0) return;
      const now = this.deps.now().toISOString();
      for (const check of await this.deps.repo.due(now, free)) {
        if (this.closed) return;
        if (await this.deps.repo.claim(check, this.deps.owner, now)) this.launch({ ...check, running_since: now, running_owner: this.deps.owner });
      }
    } catch (err) {
      this.deps.log.warn({ err }, 'monitor scheduler tick failed; the next tick tries again');
    }
  }

  private async reclaim(): Promise<void> {
    const now = this.deps.now();
    const live = (await this.deps.liveOwners?.()) ?? [this.deps.owner];
    for (const c of await this.deps.repo.runningChecks()) {
      if (c.running_owner === this.deps.owner && this.running.has(c.id)) continue;
      const timeoutMs = (c.spec.timeout_seconds ?? 300) * 1000;
      const stale = Date.parse(c.running_since!) + timeoutMs + CLAIM_GRACE_MS < now.getTime();
      // Our own claim with nothing running is left from a crash of this very owner id (a restart).
      const gone = c.running_owner === this.deps.owner || !live.includes(c.running_owner ?? '');
      if (!stale && !gone) continue;
      if (await this.deps.repo.release(c.id, c.running_owner!, now.toISOString())) {
        this.deps.log.warn({ check: c.name, suite: c.suite, owner: c.running_owner }, 'a check run was left by a process that stopped; running it again');
      }
    }
  }

  private launch(check: CheckRow): void {
    const controller = new AbortController();
    const done = this.runToEnd(check, controller.signal)
      .catch((err) => this.deps.log.warn({ err, check: check.name }, 'a check run failed to be recorded'))
      .finally(() => {
        this.running.delete(check.id);
        // A slot is free: whatever else is due need not wait for the next tick.
        if (!this.closed) void this.tick();
      });
    this.running.set(check.id, { controller, done });
  }

  private async runToEnd(check: CheckRow, signal: AbortSignal): Promise<void> {
    const suite = await this.deps.repo.getSuite(check.project_id, check.suite);
    if (!suite) return void (await this.deps.repo.release(check.id, this.deps.owner, this.deps.now().toISOString()));
    const attempt = await this.deps.attempt(check, suite, signal);
    if (signal.aborted) {
      // Stopped by the service's own shutdown: not the check's fault, and the next start runs it again.
      await this.deps.repo.release(check.id, this.deps.owner, this.deps.now().toISOString());
      return;
    }
    const now = this.deps.now();
    const retries = check.spec.retries ?? { count: 0 };
    const passed = attempt.status === 'passed';
    const row: CheckRunRow = {
      id: newId(),
      check_id: check.id,
      run_id: attempt.run_id,
      status: attempt.status,
      attempt: check.attempt,
      started_at: attempt.started_at,
      duration_ms: attempt.duration_ms,
      message: attempt.message ?? null,
    };
    const nextRegular = this.nextRegular(check, now);
    if (!passed && check.attempt <= retries.count) {
      const due = new Date(now.getTime() + retryDelayMs(retries, check.attempt)).toISOString();
      this.deps.log.info({ check: check.name, attempt: check.attempt, retry_at: due }, 'a check failed; retrying');
      await this.deps.repo.finish(check.id, this.deps.owner, { due_at: due, next_run_at: nextRegular, attempt: check.attempt + 1, health: check.health, due_reason: check.due_reason }, row);
      return;
    }
    const muted = inMaintenance(suite.settings.maintenance ?? [], check.name, now);
    const verdict = { passed, duration_ms: attempt.duration_ms, at: now.toISOString(), ...(attempt.kept_session ? { kept: attempt.kept_session } : {}) };
    const outcome = applyRun(check.health, verdict, check.spec.alert ?? {}, muted);
    const kept = await this.deps.repo.finish(
      check.id,
      this.deps.owner,
      { due_at: nextRegular, next_run_at: nextRegular, attempt: 1, health: outcome.health, due_reason: 'schedule' },
      row,
    );
    // A claim taken back meanwhile (this process was thought gone) is another run's to report.
    if (kept && outcome.alert) await this.deps.alert({ check: { ...check, health: outcome.health }, suite, kind: outcome.alert.kind, muted: outcome.alert.muted, attempt });
  }

  /** The check's next regular run: the one already set while it is ahead, else the first slot after now. */
  private nextRegular(check: CheckRow, now: Date): string | null {
    if (check.next_run_at && Date.parse(check.next_run_at) > now.getTime()) return check.next_run_at;
    const from = check.next_run_at ? new Date(check.next_run_at) : now;
    return nextAfterRun(check.spec.schedule, from, now)?.toISOString() ?? null;
  }
}
