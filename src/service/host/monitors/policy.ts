// The alert policy: what one finished check run does to the check's state and which alert it raises. Pure, so
// every rule (N in a row, M minutes, reminders, recovery, degraded, maintenance) is tested without a clock.
import type { AlertPolicy } from '../../../api/schemas/monitors.js';
import type { AlertKind } from './alert.js';
import type { CheckHealth, KeptBrowser } from '../../store/monitors-repo.js';

export type { CheckHealth, KeptBrowser };

export const HEALTHY: CheckHealth = { status: 'pending', consecutive_failures: 0, failing_since: null, alerted: false, runs_since_alert: 0 };

export interface RunVerdict {
  passed: boolean;
  duration_ms: number;
  /** When the run finished (ISO). */
  at: string;
  /** The browser this run kept at its failing step, if it kept one. */
  kept?: KeptBrowser;
}

export interface PolicyOutcome {
  health: CheckHealth;
  /** The alert to raise, if any; `muted` when a maintenance window holds it back. */
  alert?: { kind: AlertKind; muted: boolean };
}

export function applyRun(prev: CheckHealth, run: RunVerdict, policy: AlertPolicy, muted: boolean): PolicyOutcome {
  const out = run.passed ? passed(prev, run, policy, muted) : failed(prev, run, policy, muted);
  const kept = run.kept ?? (prev.kept && prev.kept.until > run.at ? prev.kept : undefined);
  if (kept) out.health = { ...out.health, kept };
  return out;
}

function passed(prev: CheckHealth, run: RunVerdict, policy: AlertPolicy, muted: boolean): PolicyOutcome {
  const degraded = policy.degraded_ms !== undefined && run.duration_ms > policy.degraded_ms;
  const health: CheckHealth = { status: degraded ? 'degraded' : 'passing', consecutive_failures: 0, failing_since: null, alerted: false, runs_since_alert: 0 };
  if (degraded) {
    // Degraded is told once per spell; a failing spell that ends slow has nothing to recover from yet.
    if (prev.status === 'degraded') return { health: { ...health, alerted: prev.alerted } };
    if (muted) return { health, alert: { kind: 'degraded', muted } };
    return { health: { ...health, alerted: true }, alert: { kind: 'degraded', muted } };
  }
  if (prev.alerted && (policy.on_recovery ?? true)) return { health, alert: { kind: 'recovered', muted } };
  return { health };
}

function failed(prev: CheckHealth, run: RunVerdict, policy: AlertPolicy, muted: boolean): PolicyOutcome {
  const wasFailing = prev.status === 'failing';
  const consecutive = (wasFailing ? prev.consecutive_failures : 0) + 1;
  const since = (wasFailing && prev.failing_since) || run.at;
  const health: CheckHealth = { status: 'failing', consecutive_failures: consecutive, failing_since: since, alerted: wasFailing && prev.alerted, runs_since_alert: 0 };
  if (health.alerted) {
    const sinceAlert = prev.runs_since_alert + 1;
    if (policy.remind_every !== undefined && sinceAlert >= policy.remind_every) {
      // A muted reminder still restarts the count: the window swallowed it, the next one comes K runs later.
      return { health, alert: { kind: 'reminder', muted } };
    }
    return { health: { ...health, runs_since_alert: sinceAlert } };
  }
  if (!thresholdMet(consecutive, since, run.at, policy)) return { health };
  // Held back by a maintenance window, the alert is not marked sent: the first run after the window alerts.
  if (muted) return { health, alert: { kind: 'failing', muted } };
  return { health: { ...health, alerted: true }, alert: { kind: 'failing', muted } };
}

/** N failures in a row, or M minutes failing: whichever the policy names is met first (N = 1 when it names neither). */
function thresholdMet(consecutive: number, since: string, at: string, policy: AlertPolicy): boolean {
  const byCount = policy.after_failures ?? (policy.after_minutes === undefined ? 1 : undefined);
  if (byCount !== undefined && consecutive >= byCount) return true;
  if (policy.after_minutes !== undefined && Date.parse(at) - Date.parse(since) >= policy.after_minutes * 60_000) return true;
  return false;
}
