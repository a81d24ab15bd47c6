// PagerDuty's Events API v2 (or anything that speaks it). One incident per check: the dedup_key is the
// check's, so a reminder adds to the open incident instead of opening another, and `recovered` resolves it.
import type { Alert, Channel } from '../alert.js';
import { postJson, type SendContext } from './http.js';
import { alertLinks, httpUrl } from './links.js';

type PagerDutyChannel = Extract<Channel, { type: 'pagerduty' }>;

const SUMMARY_MAX = 1024;

export interface PagerDutyEvent {
  routing_key: string;
  event_action: 'trigger' | 'resolve';
  dedup_key: string;
  payload?: {
    summary: string;
    source: string;
    severity: 'critical' | 'error' | 'warning' | 'info';
    timestamp: string;
    component: string;
    group: string;
    class: string;
    custom_details: Record<string, unknown>;
  };
  client?: string;
  client_url?: string;
  links?: Array<{ href: string; text: string }>;
  images?: Array<{ src: string; href?: string; alt: string }>;
}

export function dedupKey(alert: Alert): string {
  return `bcs-check-${alert.check.id}`;
}

/** The event for `alert`; its routing_key is the channel's (the caller keeps it out of anything logged). */
export function pagerDutyEvent(alert: Alert, routingKey: string): PagerDutyEvent {
  const base = { routing_key: routingKey, dedup_key: dedupKey(alert) };
  // A resolve needs nothing else; PagerDuty ignores a payload on it.
  if (alert.kind === 'recovered') return { ...base, event_action: 'resolve' };
  const links = alertLinks(alert);
  const run = links.find((l) => l.kind === 'run');
  const screenshot = links.find((l) => l.kind === 'screenshot');
  return {
    ...base,
    event_action: 'trigger',
    payload: {
      summary: alert.summary.length > SUMMARY_MAX ? `${alert.summary.slice(0, SUMMARY_MAX - 1)}…` : alert.summary,
      source: sourceOf(alert),
      severity: alert.kind === 'degraded' ? 'warning' : 'critical',
      timestamp: alert.at,
      component: alert.check.name,
      group: alert.check.suite,
      class: alert.kind,
      custom_details: {
        alert_id: alert.id,
        check: alert.check,
        status: alert.status,
        consecutive_failures: alert.consecutive_failures,
        failing_since: alert.failing_since,
        ...(alert.failure ? { failing_step: alert.failure.step, error: alert.failure.message } : {}),
        ...(alert.run ? { run_id: alert.run.id, run_url: alert.run.url, duration_ms: alert.run.duration_ms } : {}),
        ...(alert.kept_session ? { kept_session: alert.kept_session } : {}),
      },
    },
    client: 'bcs monitor',
    ...(run ? { client_url: run.url } : {}),
    links: links.filter((l) => l.kind !== 'screenshot').map((l) => ({ href: l.url, text: l.label })),
    images: screenshot ? [{ src: screenshot.url, ...(run ? { href: run.url } : {}), alt: screenshot.label }] : [],
  };
}

/** Where the check runs from, as PagerDuty's `source` wants a host: the service's, read off the run's URL. */
function sourceOf(alert: Alert): string {
  const url = httpUrl(alert.run?.console_url) ?? httpUrl(alert.run?.url);
  return url ? new URL(url).host : 'bcs-monitor';
}

export async function sendPagerDuty(channel: PagerDutyChannel, alert: Alert, ctx: SendContext): Promise<void> {
  await postJson(channel.url, JSON.stringify(pagerDutyEvent(alert, channel.routing_key)), { 'user-agent': 'bcs-monitor' }, ctx);
}
