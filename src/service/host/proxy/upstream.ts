// Talking to an upstream (custom) proxy: a CONNECT tunnel, or a plain HTTP request in absolute form, with
// Basic proxy credentials added here. Shared by the per-session forwarder and the proxy check. Errors name
// the proxy by host:port only; the credentials never appear in a message.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { ProxyProtocol } from '../../../api/types.js';

/** Where a session's traffic goes: an upstream proxy, with the credentials in plaintext (memory only). */
export interface Upstream {
  /** The proxy record it came from (for presentation and logs). */
  proxyId: string;
  protocol: ProxyProtocol;
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** The proxy's bypass_hosts: destinations reached directly (see bypass.ts). */
  bypass?: string[];
}

export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    /** The proxy's HTTP status, when it answered with one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export function describeUpstream(up: Upstream): string {
  return `${up.protocol}://${up.host.includes(':') ? `[${up.host}]` : up.host}:${up.port}`;
}

/** The Proxy-Authorization value, or undefined for a proxy without credentials. */
export function proxyAuthorization(up: Upstream): string | undefined {
  if (up.username === undefined && up.password === undefined) return undefined;
  return `Basic ${Buffer.from(`${up.username ?? ''}:${up.password ?? ''}`, 'utf8').toString('base64')}`;
}

/** Request options that reach the proxy itself (TLS to the proxy for `https` proxies). */
export function proxyTarget(up: Upstream) {
  return {
    host: up.host,
    port: up.port,
    ...(up.protocol === 'https' ? { servername: net.isIP(up.host) ? undefined : up.host } : {}),
  };
}

export function requestModule(up: Upstream): typeof http | typeof https {
  return up.protocol === 'https' ? https : http;
}

/** What a 407 or a gateway error from the proxy means, for messages. */
export function explainStatus(up: Upstream, status: number): string {
  if (status === 407) return `the proxy ${describeUpstream(up)} rejected the credentials (407)`;
  return `the proxy ${describeUpstream(up)} answered ${status}`;
}

/**
 * Opens a tunnel to `host:port` through the upstream proxy (HTTP CONNECT), or straight to it when there is
 * no upstream. Resolves the connected socket, any bytes that came after the proxy's answer, and the
 * address of the machine connected to.
 */
export function openTunnel(
  up: Upstream | null,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<{ socket: net.Socket; head: Buffer; remoteAddress?: string }> {
  if (!up) {
    return new Promise((resolve, reject) => {
      // Nagle off, as on every hop of a session's traffic: a tunnel carries a TLS handshake's small writes.
      const socket = net.connect({ host, port, noDelay: true });
      const timer = setTimeout(() => socket.destroy(new Error(`connecting to ${host}:${port} timed out`)), timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve({ socket, head: Buffer.alloc(0), remoteAddress: socket.remoteAddress });
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(new UpstreamError(`could not connect to ${host}:${port}: ${err.message}`));
      });
    });
  }
  return new Promise((resolve, reject) => {
    const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const auth = proxyAuthorization(up);
    const req = requestModule(up).request({
      ...proxyTarget(up),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...(auth ? { 'proxy-authorization': auth } : {}) },
      timeout: timeoutMs,
    });
    req.once('connect', (res, socket, head) => {
      if (res.statusCode === 200) {
        // The tunnel outlives the connect timeout: it is idle as long as the page keeps it.
        socket.setTimeout(0);
        resolve({ socket, head, remoteAddress: socket.remoteAddress });
        return;
      }
      socket.destroy();
      reject(new UpstreamError(`${explainStatus(up, res.statusCode ?? 0)} to CONNECT ${authority}`, res.statusCode));
    });
    req.once('timeout', () => req.destroy(new Error('timed out')));
    req.once('error', (err) => reject(new UpstreamError(`could not reach the proxy ${describeUpstream(up)}: ${err.message}`)));
    req.end();
  });
}
