// What every human-facing channel shows of an alert, in one order: the same labels and links in Slack, in
// mail and in PagerDuty, so a person who got one can find the same thing in another.
import type { Alert, AlertKind } from '../alert.js';

export interface AlertLink {
  kind: 'run' | 'screenshot' | 'replay' | 'trace' | 'live_view';
  label: string;
  url: string;
}

export function kindLabel(kind: AlertKind): string {
  return kind.toUpperCase();
}

/** `[FAILING] Checkout fails at 'Pay'`, on one line (it becomes a mail subject). */
export function headline(alert: Alert): string {
  return `[${kindLabel(alert.kind)}] ${alert.summary}`.replace(/[\r\n]+/g, ' ');
}

/**
 * An http(s) URL as given, or undefined for anything else: the links come from the service, but a
 * `javascript:` or `data:` one in a mail's HTML or a chat message would be worse than none.
 */
export function httpUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

export function alertLinks(alert: Alert): AlertLink[] {
  const links: Array<AlertLink | undefined> = [
    link('run', 'Open the run', alert.run?.console_url),
    link('screenshot', 'Screenshot of the failing step', alert.failure?.screenshot_url),
    link('replay', 'Replay at the failing step', alert.failure?.replay_url),
    link('trace', 'Trace', alert.failure?.trace_url),
    alert.kept_session && link('live_view', `Live view of the kept browser (until ${alert.kept_session.until})`, alert.kept_session.live_view_url),
  ];
  return links.filter((l): l is AlertLink => l !== undefined);
}

function link(kind: AlertLink['kind'], label: string, url: string | undefined): AlertLink | undefined {
  const safe = httpUrl(url);
  return safe ? { kind, label, url: safe } : undefined;
}

/** The facts under the headline, as label/value pairs (each channel lays them out its own way). */
export function alertFacts(alert: Alert): Array<[string, string]> {
  const facts: Array<[string, string]> = [
    ['Check', `${alert.check.name} (suite ${alert.check.suite}, ${alert.check.file})`],
    ['Status', alert.status],
  ];
  if (alert.consecutive_failures > 0) facts.push(['Consecutive failures', String(alert.consecutive_failures)]);
  if (alert.failing_since) facts.push(['Failing since', alert.failing_since]);
  if (alert.failure?.step) facts.push(['Failing step', alert.failure.step]);
  if (alert.failure) facts.push(['Error', alert.failure.message]);
  if (alert.run) facts.push(['Run', `${alert.run.id} (${Math.round(alert.run.duration_ms / 100) / 10} s)`]);
  return facts;
}
