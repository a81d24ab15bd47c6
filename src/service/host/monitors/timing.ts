// When things happen for a check: its next scheduled run, the wait before a retry, and whether a maintenance
// window holds its alerts. Every function takes the instant it reasons about; none reads a clock.
import { createRequire } from 'node:module';
import type { MaintenanceWindow, MonitorSchedule, RetryPolicy } from '../../../api/schemas/monitors.js';

/** croner, loaded when monitors are first used rather than by every service start. */
const croner = () => createRequire(import.meta.url)('croner') as typeof import('croner');

/** Throws with croner's words for a pattern or time zone it does not take. */
export function checkCron(pattern: string, timezone?: string): void {
  const { Cron } = croner();
  new Cron(pattern, { paused: true, ...(timezone ? { timezone } : {}) }).stop();
}

/** The first occurrence strictly after `after`, or null when a cron pattern has none left. */
export function nextOccurrence(schedule: MonitorSchedule, after: Date): Date | null {
  if ('every_seconds' in schedule) return new Date(after.getTime() + schedule.every_seconds * 1000);
  const { Cron } = croner();
  const job = new Cron(schedule.cron, { paused: true, ...(schedule.timezone ? { timezone: schedule.timezone } : {}) });
  try {
    return job.nextRun(after);
  } finally {
    job.stop();
  }
}

/**
 * The next regular run after one due at `due` that started at `now`. An interval keeps its phase; runs missed
 * while the service was down are not made up one by one: the next is the first slot after now.
 */
export function nextAfterRun(schedule: MonitorSchedule, due: Date, now: Date): Date | null {
  if ('every_seconds' in schedule) {
    const step = schedule.every_seconds * 1000;
    const missed = Math.max(0, Math.floor((now.getTime() - due.getTime()) / step));
    return new Date(due.getTime() + (missed + 1) * step);
  }
  return nextOccurrence(schedule, now);
}

/** The wait before retry number `retry` (1 for the first retry). */
export function retryDelayMs(policy: RetryPolicy, retry: number): number {
  const strategy = policy.strategy ?? 'fixed';
  if (strategy === 'immediate') return 0;
  const base = (policy.delay_seconds ?? 10) * 1000;
  if (strategy === 'fixed') return base;
  const cap = (policy.max_delay_seconds ?? 600) * 1000;
  return Math.min(cap, base * 2 ** (retry - 1));
}

/** Whether a window holds `check`'s alerts at `at`. A recurring window is open when its last start is within its duration. */
export function inMaintenance(windows: readonly MaintenanceWindow[], check: string, at: Date): boolean {
  return windows.some((w) => {
    if (w.checks && !w.checks.includes(check)) return false;
    if ('start' in w) return Date.parse(w.start) <= at.getTime() && at.getTime() < Date.parse(w.end);
    const opened = nextOccurrence({ cron: w.cron, ...(w.timezone ? { timezone: w.timezone } : {}) }, new Date(at.getTime() - w.duration_minutes * 60_000));
    return opened !== null && opened.getTime() <= at.getTime();
  });
}
