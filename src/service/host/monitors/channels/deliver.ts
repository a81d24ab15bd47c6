// Sends one alert to one channel: each attempt bounded in time, up to three attempts (1 s, then 4 s apart,
// longer when the receiver asks with Retry-After, up to a cap), retried only when another attempt could
// succeed: a lost connection, a timeout, 429, 5xx, an SMTP 4xx. Never throws: a channel that cannot be
// reached must not stop the monitor, and the caller gets one line saying why, with no secret in it.
import { setTimeout as wait } from 'node:timers/promises';
import type { Alert, Channel } from '../alert.js';
import { systemResolve, type AllowAddress, type Resolve } from './egress.js';
import { sendEmail, isCertificateProblem, smtpDestination } from './email.js';
import { AttemptTimeout, ChannelConfigError, DestinationRefused, HttpStatusError, SendFailure } from './errors.js';
import { redactUrl, type SendContext } from './http.js';
import { sendPagerDuty } from './pagerduty.js';
import { sendSlack } from './slack.js';
import { sendWebhook } from './webhook.js';

export interface DeliveryDeps {
  /** The egress policy on resolved addresses (allowAddressUnder(service policy) in the service). */
  allowAddress: AllowAddress;
  /** Between attempts; tests pass one that records and returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Per attempt, DNS to the last byte. Default 10 s. */
  timeoutMs?: number;
  resolve?: Resolve;
  /** Milliseconds since the epoch: the webhook signature's timestamp, a Retry-After given as a date. */
  now?: () => number;
  /** CAs trusted beyond the system's. */
  ca?: string | string[];
}

export type DeliveryResult = { ok: true; attempts: number } | { ok: false; attempts: number; error: string };

export const MAX_ATTEMPTS = 3;
export const BACKOFF_MS = [1_000, 4_000] as const;
export const RETRY_AFTER_CAP_MS = 30_000;
export const DEFAULT_TIMEOUT_MS = 10_000;

export async function deliver(channel: Channel, alert: Alert, deps: DeliveryDeps): Promise<DeliveryResult> {
  const label = `alert channel '${String(channel.name)}' (${String(channel.type)})`;
  try {
    return await attempt(channel, alert, deps, label);
  } catch (err) {
    // Only a bug could bring us here; the contract (never throw, never show a secret) still holds.
    return { ok: false, attempts: 0, error: `${label}: internal error: ${clean(err instanceof Error ? err.message : String(err), channel)}` };
  }
}

async function attempt(channel: Channel, alert: Alert, deps: DeliveryDeps, label: string): Promise<DeliveryResult> {
  const ctx: SendContext = {
    allowAddress: deps.allowAddress,
    resolve: deps.resolve ?? systemResolve,
    timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    now: deps.now ?? Date.now,
    ca: deps.ca,
  };
  const sleep = deps.sleep ?? ((ms: number) => wait(ms));
  let attempts = 0;
  for (;;) {
    attempts++;
    let verdict: Verdict;
    try {
      await send(channel, alert, ctx);
      return { ok: true, attempts };
    } catch (err) {
      verdict = judge(channel, err, ctx.now());
    }
    if (!verdict.retryable || attempts >= MAX_ATTEMPTS) {
      return { ok: false, attempts, error: clean(`${label}: ${verdict.reason}${attempts > 1 ? ` (${attempts} attempts)` : ''}`, channel) };
    }
    const backoff = BACKOFF_MS[Math.min(attempts, BACKOFF_MS.length) - 1]!;
    try {
      await sleep(Math.max(backoff, Math.min(verdict.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS)));
    } catch {
      // A sleep that fails (an aborted timer at shutdown) ends the retries.
      return { ok: false, attempts, error: clean(`${label}: ${verdict.reason} (retries stopped)`, channel) };
    }
  }
}

function send(channel: Channel, alert: Alert, ctx: SendContext): Promise<void> {
  switch (channel.type) {
    case 'webhook':
      return sendWebhook(channel, alert, ctx);
    case 'slack':
      return sendSlack(channel, alert, ctx);
    case 'email':
      return sendEmail(channel, alert, ctx);
    case 'pagerduty':
      return sendPagerDuty(channel, alert, ctx);
    default:
      return Promise.reject(new ChannelConfigError(`unknown channel type '${(channel as { type?: unknown }).type}'`));
  }
}

interface Verdict {
  reason: string;
  retryable: boolean;
  retryAfterMs?: number;
}

function judge(channel: Channel, err: unknown, nowMs: number): Verdict {
  if (err instanceof DestinationRefused || err instanceof ChannelConfigError) return { reason: err.message, retryable: false };
  if (err instanceof AttemptTimeout) return { reason: err.message, retryable: true };
  if (err instanceof HttpStatusError) {
    return { reason: err.reason((text) => clean(text, channel)), retryable: err.retryable, retryAfterMs: retryAfterMs(err.retryAfter, nowMs) };
  }
  if (err instanceof SendFailure) return { reason: err.message, retryable: err.retryable };
  const e: Error & { code?: string } = err instanceof Error ? err : new Error(String(err));
  const destination = channel.type === 'email' ? smtpDestination(channel) : redactUrl(channel.url);
  const detail = e.message.replace(/\s+/g, ' ').trim() || e.code || e.name;
  if (isCertificateProblem(e)) return { reason: `${destination}: TLS failed: ${detail}`, retryable: false };
  return { reason: `could not reach ${destination}: ${detail}`, retryable: true };
}

/** Retry-After as delta-seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** `text` with the channel's secrets, and the parts of its URL that may be one, replaced by [redacted]. */
function clean(text: string, channel: Channel): string {
  let out = text;
  for (const secret of secretsOf(channel)) out = out.split(secret).join('[redacted]');
  return out;
}

function secretsOf(channel: Channel): string[] {
  const secrets: Array<string | undefined> = [];
  if (channel.type === 'email') secrets.push(channel.smtp?.password);
  else if ('url' in channel) {
    secrets.push(...urlSecrets(channel.url));
    if (channel.type === 'webhook') secrets.push(channel.secret);
    if (channel.type === 'pagerduty') secrets.push(channel.routing_key);
  }
  // Longest first, so a secret containing another is replaced whole.
  return [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4))].sort((a, b) => b.length - a.length);
}

/** A Slack URL's token path, a query's token, userinfo: each whole, decoded too, and its long parts alone. */
function urlSecrets(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [String(url)];
  }
  const parts = [u.pathname.length > 1 ? u.pathname : '', u.search.slice(1), u.username, u.password];
  for (const segment of u.pathname.split('/')) if (segment.length >= 10) parts.push(segment);
  for (const value of u.searchParams.values()) if (value.length >= 6) parts.push(value);
  return parts.flatMap((p) => [p, decoded(p)]);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
