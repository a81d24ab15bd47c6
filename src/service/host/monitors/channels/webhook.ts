// The generic webhook: the alert itself as JSON. With a secret, each delivery is signed the way Stripe signs
// its events, so a receiver can tell it came from us and refuse a replay: the signature covers a timestamp
// and the exact bytes of the body (`${t}.${body}`), and a receiver checks the timestamp is recent.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Alert, Channel } from '../alert.js';
import { postJson, type SendContext } from './http.js';

export const SIGNATURE_HEADER = 'X-Bcs-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

type WebhookChannel = Extract<Channel, { type: 'webhook' }>;

/** The hex HMAC-SHA256 of `${t}.${rawBody}` under `secret`. */
function hmac(secret: string, t: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
}

/** The X-Bcs-Signature value for `rawBody` sent at `nowSeconds`: `t=<unix seconds>,v1=<hex>`. */
export function signatureHeader(secret: string, rawBody: string | Buffer, nowSeconds: number): string {
  const t = Math.floor(nowSeconds);
  return `t=${t},v1=${hmac(secret, t, rawBody)}`;
}

/**
 * Whether `header` (X-Bcs-Signature as received) signs `rawBody` (the body's bytes as received, before any
 * JSON parsing) under `secret`, at a time within `toleranceSeconds` of `nowSeconds`. Any `v1` may match (a
 * sender rotating secrets may send one per secret); the comparison takes the same time whatever matches.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  rawBody: string | Buffer,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  if (!header) return false;
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && value && /^\d+$/.test(value)) t = Number(value);
    else if (key === 'v1' && value) candidates.push(value);
  }
  if (t === undefined || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmac(secret, t, rawBody), 'hex');
  let ok = false;
  for (const candidate of candidates) {
    // timingSafeEqual wants equal lengths; a malformed candidate is simply not a match.
    if (!/^[0-9a-f]{64}$/i.test(candidate)) continue;
    if (timingSafeEqual(Buffer.from(candidate, 'hex'), expected)) ok = true;
  }
  return ok;
}

export function webhookHeaders(channel: WebhookChannel, alert: Alert, body: string, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': 'bcs-monitor', 'x-bcs-alert-id': alert.id };
  if (channel.secret) headers[SIGNATURE_HEADER.toLowerCase()] = signatureHeader(channel.secret, body, nowMs / 1000);
  return headers;
}

export async function sendWebhook(channel: WebhookChannel, alert: Alert, ctx: SendContext): Promise<void> {
  const body = JSON.stringify(alert);
  // Signed per attempt: a retry carries a fresh timestamp, and the receiver drops a repeat by X-Bcs-Alert-Id.
  await postJson(channel.url, body, webhookHeaders(channel, alert, body, ctx.now()), ctx);
}
