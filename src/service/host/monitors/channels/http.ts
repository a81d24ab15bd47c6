// One guarded JSON POST, for the channels that speak HTTP. No redirects are followed (a 3xx could lead past
// the policy's check to somewhere else), the connection goes only to an address the policy allows (see
// egress.ts), and the whole attempt, DNS to the last byte of the answer, is bounded by one timer.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { allowedAddresses, guardedLookup, type AllowAddress, type Resolve } from './egress.js';
import { AttemptTimeout, ChannelConfigError, HttpStatusError } from './errors.js';

/** What every sender gets for one attempt. */
export interface SendContext {
  allowAddress: AllowAddress;
  resolve: Resolve;
  timeoutMs: number;
  /** Milliseconds since the epoch (signatures' timestamps). */
  now: () => number;
  /** CAs trusted beyond the system's (an internal CA; tests' self-signed receivers). */
  ca?: string | string[];
}

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The start of the body (receivers' answers are small; the rest is read and dropped). */
  body: string;
}

const KEPT_BODY_BYTES = 16 * 1024;

/** The URL as safe to show: scheme and host only, since tokens ride in paths (Slack) and queries alike. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.length > 1 || u.search ? '/…' : '/'}`;
  } catch {
    return '(invalid URL)';
  }
}

export function extraCa(ca: string | string[] | undefined): string[] | undefined {
  return ca === undefined ? undefined : [...rootCertificates, ...(Array.isArray(ca) ? ca : [ca])];
}

/** POSTs `body` as JSON; resolves on a 2xx answer, throws HttpStatusError on any other. */
export async function postJson(url: string, body: string, headers: Record<string, string>, ctx: SendContext): Promise<PostAnswer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ChannelConfigError('the URL is not a valid URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new ChannelConfigError(`${redactUrl(url)} is not an http(s) URL`);
  const secure = target.protocol === 'https:';
  const port = Number(target.port) || (secure ? 443 : 80);
  const destination = redactUrl(url);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeout(destination, ctx.timeoutMs)), ctx.timeoutMs);
  try {
    // A literal address never reaches a lookup (net connects to it directly), so it is checked here.
    if (isIP(host)) await allowedAddresses(host, port, ctx.allowAddress, ctx.resolve);
    controller.signal.throwIfAborted();
    return await new Promise<PostAnswer>((resolve, reject) => {
      const payload = Buffer.from(body);
      const request = (secure ? https : http).request(
        {
          method: 'POST',
          protocol: target.protocol,
          hostname: host,
          port,
          path: `${target.pathname}${target.search}`,
          headers: { 'content-type': 'application/json', 'content-length': String(payload.length), ...headers },
          // A basic-auth userinfo in the URL is sent as the Authorization header, as fetch would.
          auth: target.username ? `${decoded(target.username)}:${decoded(target.password)}` : undefined,
          // No connection reuse: each alert is rare, and a kept socket would skip the lookup's check.
          agent: false,
          lookup: guardedLookup(port, ctx.allowAddress, ctx.resolve),
          signal: controller.signal,
          ...(secure ? { ca: extraCa(ctx.ca), servername: isIP(host) ? undefined : host } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on('data', (chunk: Buffer) => {
            if (kept < KEPT_BODY_BYTES) chunks.push(chunk.subarray(0, KEPT_BODY_BYTES - kept));
            kept += chunk.length;
          });
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve({ status, headers: res.headers, body: text });
            else reject(new HttpStatusError(destination, status, res.statusMessage ?? '', header(res.headers['retry-after']), text));
          });
        },
      );
      request.on('error', (err) => reject(controller.signal.aborted ? controller.signal.reason : err));
      request.end(payload);
    });
  } catch (err) {
    // An abort surfaces as an AbortError from http; the timer's reason is what happened.
    if (controller.signal.aborted) throw controller.signal.reason;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
