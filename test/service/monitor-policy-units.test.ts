// The alert policy and the scheduling arithmetic, without a clock: every instant is given.
import { describe, expect, it } from 'vitest';
import { applyRun, HEALTHY, type CheckHealth } from '../../src/service/host/monitors/policy.js';
import { inMaintenance, nextAfterRun, nextOccurrence, retryDelayMs } from '../../src/service/host/monitors/timing.js';
import { checkDirFor } from '../../src/service/host/monitors/check-launcher.js';
import type { AlertPolicy } from '../../src/api/schemas/monitors.js';

const T0 = Date.parse('2030-01-07T03:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

/** Feeds verdicts through the policy and returns the alerts raised, in order. */
function play(policy: AlertPolicy, runs: { passed: boolean; minute: number; ms?: number; muted?: boolean }[], start: CheckHealth = HEALTHY) {
  let health = start;
  const alerts: string[] = [];
  for (const r of runs) {
    const out = applyRun(health, { passed: r.passed, duration_ms: r.ms ?? 1000, at: at(r.minute) }, policy, r.muted ?? false);
    health = out.health;
    if (out.alert) alerts.push(out.alert.muted ? `${out.alert.kind}(muted)` : out.alert.kind);
  }
  return { alerts, health };
}

const fail = (minute: number, extra = {}) => ({ passed: false, minute, ...extra });
const pass = (minute: number, extra = {}) => ({ passed: true, minute, ...extra });

describe('alert policy', () => {
  it('alerts on the first failure by default, once, and on recovery', () => {
    const { alerts, health } = play({}, [pass(0), fail(1), fail(2), fail(3), pass(4), pass(5)]);
    expect(alerts).toEqual(['failing', 'recovered']);
    expect(health).toMatchObject({ status: 'passing', consecutive_failures: 0, alerted: false });
  });

  it('waits for N consecutive failures; a pass in between starts the count again', () => {
    const { alerts } = play({ after_failures: 3 }, [fail(0), fail(1), pass(2), fail(3), fail(4), fail(5), fail(6)]);
    expect(alerts).toEqual(['failing']);
    const early = play({ after_failures: 3 }, [fail(0), fail(1)]);
    expect(early.alerts).toEqual([]);
    expect(early.health).toMatchObject({ status: 'failing', consecutive_failures: 2, failing_since: at(0) });
  });

  it('alerts after M minutes failing, whichever of N or M comes first', () => {
    expect(play({ after_minutes: 10 }, [fail(0), fail(5), fail(9), fail(10)]).alerts).toEqual(['failing']);
    expect(play({ after_minutes: 10, after_failures: 2 }, [fail(0), fail(1)]).alerts).toEqual(['failing']);
    expect(play({ after_minutes: 10, after_failures: 5 }, [fail(0), fail(11)]).alerts).toEqual(['failing']);
  });

  it('reminds every K failing runs after the alert', () => {
    const { alerts } = play({ remind_every: 2 }, [fail(0), fail(1), fail(2), fail(3), fail(4), pass(5)]);
    expect(alerts).toEqual(['failing', 'reminder', 'reminder', 'recovered']);
  });

  it('says nothing on recovery when on_recovery is off, or when it never alerted', () => {
    expect(play({ on_recovery: false }, [fail(0), pass(1)]).alerts).toEqual(['failing']);
    expect(play({ after_failures: 3 }, [fail(0), fail(1), pass(2)]).alerts).toEqual([]);
  });

  it('marks a slow pass degraded once per spell, and recovers from it', () => {
    const { alerts, health } = play({ degraded_ms: 5000 }, [pass(0, { ms: 6000 }), pass(1, { ms: 7000 }), pass(2, { ms: 100 })]);
    expect(alerts).toEqual(['degraded', 'recovered']);
    expect(health.status).toBe('passing');
  });

  it('holds alerts back in a maintenance window and alerts on the first run after it if still failing', () => {
    const { alerts } = play({}, [fail(0, { muted: true }), fail(1, { muted: true }), fail(2), fail(3), pass(4)]);
    expect(alerts).toEqual(['failing(muted)', 'failing(muted)', 'failing', 'recovered']);
    // Failing and recovered inside the window: nothing is sent and nothing is owed.
    expect(play({}, [fail(0, { muted: true }), pass(1, { muted: true }), pass(2)]).alerts).toEqual(['failing(muted)']);
  });
});

describe('scheduling arithmetic', () => {
  it('keeps an interval in phase and skips slots missed while down', () => {
    const due = new Date(T0);
    expect(nextAfterRun({ every_seconds: 60 }, due, new Date(T0 + 5_000))!.toISOString()).toBe(at(1));
    expect(nextAfterRun({ every_seconds: 60 }, due, new Date(T0 + 10 * 60_000 + 5_000))!.toISOString()).toBe(at(11));
  });

  it('reads cron patterns in their time zone', () => {
    expect(nextOccurrence({ cron: '30 4 * * *' }, new Date(T0))!.toISOString()).toBe('2030-01-07T04:30:00.000Z');
    expect(nextOccurrence({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, new Date(T0))!.toISOString()).toBe('2030-01-07T08:00:00.000Z');
  });

  it('backs off as the strategy says, capped', () => {
    expect(retryDelayMs({ count: 3, strategy: 'immediate' }, 1)).toBe(0);
    expect(retryDelayMs({ count: 3, strategy: 'fixed', delay_seconds: 30 }, 3)).toBe(30_000);
    const exp = { count: 5, strategy: 'exponential' as const, delay_seconds: 10, max_delay_seconds: 45 };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(exp, n))).toEqual([10_000, 20_000, 40_000, 45_000]);
  });

  it('knows when a fixed or recurring maintenance window is open, and for which checks', () => {
    const fixed = [{ start: at(0), end: at(60), checks: ['login'] }];
    expect(inMaintenance(fixed, 'login', new Date(T0 + 30 * 60_000))).toBe(true);
    expect(inMaintenance(fixed, 'checkout', new Date(T0 + 30 * 60_000))).toBe(false);
    expect(inMaintenance(fixed, 'login', new Date(T0 + 60 * 60_000))).toBe(false);
    // Every day at 03:00 UTC for 2 hours.
    const nightly = [{ cron: '0 3 * * *', duration_minutes: 120 }];
    expect(inMaintenance(nightly, 'x', new Date(T0))).toBe(true);
    expect(inMaintenance(nightly, 'x', new Date(T0 + 119 * 60_000))).toBe(true);
    expect(inMaintenance(nightly, 'x', new Date(T0 + 120 * 60_000))).toBe(false);
    expect(inMaintenance(nightly, 'x', new Date(T0 - 60_000))).toBe(false);
  });
});

describe('where a check sees its suite', () => {
  it('is /check, unless the runner package it binds at its own path is there (a CI checkout in /check/...)', () => {
    expect(checkDirFor(['/opt/bcs', '/work/node_modules'])).toBe('/check');
    expect(checkDirFor(['/check/work/main'])).toBe('/check-1');
    expect(checkDirFor(['/check', '/check-1/x'])).toBe('/check-2');
    expect(checkDirFor(['/checkout/main'])).toBe('/check');
  });
});
