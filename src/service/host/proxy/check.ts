// The health check of a custom proxy: a real request through it to a target URL. https:// targets go
// through a CONNECT tunnel and a TLS handshake with the target (what a browser does), http:// ones as an
// absolute-form GET to the proxy. Any answer from the target counts as reachable; a 407, a refused tunnel
// or a gateway error from the proxy, a connection failure or a timeout does not.
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { describeUpstream, explainStatus, openTunnel, proxyAuthorization, proxyTarget, requestModule, type Upstream } from './upstream.js';

export interface CheckResult {
  ok: boolean;
  /** What happened, for `status_detail`: the target's status, or why it failed. */
  detail: string;
  /** The proxy server's address as connected to. */
  ipAddress?: string;
}

/** Statuses a proxy answers with itself when it cannot reach the target. */
const GATEWAY_FAILURES = new Set([502, 503, 504]);

export async function checkProxy(up: Upstream, url: URL, timeoutMs: number): Promise<CheckResult> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    return await (url.protocol === 'https:' ? throughTunnel(up, url, timeoutMs, deadline.signal) : plainRequest(up, url, deadline.signal));
  } catch (err) {
    const message = deadline.signal.aborted ? `no answer within ${timeoutMs} ms` : (err as Error).message;
    return { ok: false, detail: `${url.origin} through ${describeUpstream(up)}: ${message}` };
  } finally {
    clearTimeout(timer);
  }
}

async function throughTunnel(up: Upstream, url: URL, timeoutMs: number, signal: AbortSignal): Promise<CheckResult> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || 443);
  const tunnel = await openTunnel(up, host, port, timeoutMs);
  if (tunnel.head.length) tunnel.socket.unshift(tunnel.head);
  // The target's certificate is not the proxy's health: a reachable site with a bad certificate still
  // shows the proxy works (the browser judges certificates for itself).
  const secure = tls.connect({ socket: tunnel.socket, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: false });
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        createConnection: () => secure,
        host,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { host: url.host, connection: 'close' },
        signal,
      });
      req.once('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.once('error', reject);
      req.end();
    });
    return { ok: true, detail: `${url.origin} answered ${status} through ${describeUpstream(up)}`, ipAddress: tunnel.remoteAddress };
  } finally {
    secure.destroy();
  }
}

function plainRequest(up: Upstream, url: URL, signal: AbortSignal): Promise<CheckResult> {
  return new Promise((resolve, reject) => {
    const auth = proxyAuthorization(up);
    const req = requestModule(up).request({
      ...proxyTarget(up),
      method: 'GET',
      path: url.href,
      headers: { host: url.host, connection: 'close', ...(auth ? { 'proxy-authorization': auth } : {}) },
      agent: false,
      signal,
    });
    req.once('response', (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      const ipAddress = res.socket.remoteAddress;
      req.destroy();
      if (status === 407 || GATEWAY_FAILURES.has(status)) {
        resolve({ ok: false, detail: `${explainStatus(up, status)} for ${url.origin}`, ipAddress });
      } else {
        resolve({ ok: true, detail: `${url.origin} answered ${status} through ${describeUpstream(up)}`, ipAddress });
      }
    });
    req.once('error', (err) => reject(new Error(`could not reach the proxy: ${err.message}`)));
    req.end();
  });
}
