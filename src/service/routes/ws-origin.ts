import type { FastifyRequest } from 'fastify';

/**
 * The origin a client reaches the service by, which every URL in an answer starts with (cdp_ws_url, base_url,
 * live view, replay view): the configured public URL when there is one (behind a TLS proxy or a load
 * balancer the request's own scheme and Host are the proxy's view, not the client's), else the request's.
 */
export interface ClientOrigins {
  /** http:// or https:// and host. */
  http(req: FastifyRequest): string;
  /** ws:// or wss:// and host, for the CDP, BiDi and live view sockets. */
  ws(req: FastifyRequest): string;
}

export function clientOrigins(publicOrigin: string | undefined): ClientOrigins {
  const http = (req: FastifyRequest) => publicOrigin ?? `${req.protocol}://${req.host}`;
  return { http, ws: (req) => http(req).replace(/^http/, 'ws') };
}

/**
 * `url` as a public origin (`https://browsers.example.com`, a port allowed): http or https, with no path,
 * query, fragment or credentials, since every route of ours answers at the root of it.
 */
export function publicOriginOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`the public URL '${url}' is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`the public URL '${url}' must be http:// or https://`);
  if (parsed.username || parsed.password) throw new Error(`the public URL '${url}' must not carry credentials`);
  if ((parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search || parsed.hash) {
    throw new Error(`the public URL '${url}' must be an origin only (scheme, host, port): the service answers at its root`);
  }
  return parsed.origin;
}
