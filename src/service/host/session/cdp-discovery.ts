// Chromium's DevTools discovery documents (`/json/version`, `/json/list`, `/json/protocol`), read from the
// session's own DevTools server and handed on with every address in them pointing at the authenticated
// proxy instead (cdp-proxy.ts), so discovery clients find targets they can reach and never learn
// Chromium's port. The server's address is taken from the launch's WebSocket endpoint as it is, host and
// port alike, so this works wherever that endpoint leads.
import { DomainError } from '../errors.js';

export type DiscoveryDocument = 'version' | 'list' | 'protocol';

/** Where the proxy serves a DevTools path of Chromium's (`/devtools/page/{id}`) for the client asking. */
export interface ProxyAddress {
  /** The `ws://` or `wss://` URL a client connects to. */
  webSocketUrl(devtoolsPath: string): string;
  /** What a DevTools frontend takes in its `ws` or `wss` parameter: the same address without the scheme. */
  frontendParam(devtoolsPath: string): { name: 'ws' | 'wss'; value: string };
}

/** How long Chromium's own server may take to answer; it is local, so only a browser in trouble is slow. */
const FETCH_TIMEOUT_MS = 15_000;

/** Chromium's answer as text, or a 503 when its DevTools server does not give one. */
export async function fetchDiscovery(wsEndpoint: string, doc: DiscoveryDocument): Promise<string> {
  const server = new URL(wsEndpoint);
  const url = `http://${server.host}/json/${doc}`;
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch {
    throw unreachable(doc);
  }
  const text = await res.text().catch(() => undefined);
  if (!res.ok || text === undefined) throw unreachable(doc);
  return text;
}

function unreachable(doc: DiscoveryDocument): DomainError {
  return new DomainError('unavailable', 'browser_unreachable', `the browser's DevTools server gave no answer to /json/${doc}; the browser may be ending`);
}

/**
 * `/json/version` or `/json/list` with each `webSocketDebuggerUrl` and `devtoolsFrontendUrl` rewritten for
 * `address`; other fields are Chromium's as they came. An address that names no target the proxy
 * serves is left out rather than handed on.
 */
export function rewriteDiscovery(doc: 'version' | 'list', text: string, address: ProxyAddress): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Only a browser in trouble answers anything else; what it said is not passed on.
    throw unreachable(doc);
  }
  if (doc === 'version') return rewriteTarget(body, address);
  return Array.isArray(body) ? body.map((target) => rewriteTarget(target, address)) : body;
}

function rewriteTarget(target: unknown, address: ProxyAddress): unknown {
  if (!target || typeof target !== 'object') return target;
  const out = { ...(target as Record<string, unknown>) };
  if ('webSocketDebuggerUrl' in out) {
    const path = targetPath(out.webSocketDebuggerUrl);
    if (path) out.webSocketDebuggerUrl = address.webSocketUrl(path);
    else delete out.webSocketDebuggerUrl;
  }
  if ('devtoolsFrontendUrl' in out) {
    const frontend = frontendUrl(out.devtoolsFrontendUrl, address);
    if (frontend) out.devtoolsFrontendUrl = frontend;
    else delete out.devtoolsFrontendUrl;
  }
  return out;
}

/** The DevTools path of one of Chromium's WebSocket URLs (`ws://127.0.0.1:PORT/devtools/page/ID`). */
function targetPath(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const path = new URL(value).pathname;
    return /^\/devtools\/(?:browser|page)\/[A-Za-z0-9._-]{1,128}$/.test(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A frontend URL whose `ws=` (or `wss=`) names the proxy. Chromium gives either the hosted frontend of its
 * revision (absolute, kept) or its bundled one on its own server (relative: `/devtools/inspector.html`),
 * which the service does not serve; that one becomes the bundled frontend every Chromium carries,
 * `devtools://devtools/bundled/...`, which is what chrome://inspect opens too.
 */
export function frontendUrl(value: unknown, address: ProxyAddress): string | undefined {
  if (typeof value !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(value, 'devtools://devtools/bundled/');
  } catch {
    return undefined;
  }
  if (value.startsWith('/')) url = new URL(`devtools://devtools/bundled/${url.pathname.replace(/^\/devtools\//, '')}${url.search}`);
  const given = url.searchParams.get('ws') ?? url.searchParams.get('wss');
  const path = given === null ? undefined : targetPath(`ws://${given}`);
  if (!path) return undefined;
  url.searchParams.delete('ws');
  url.searchParams.delete('wss');
  const { name, value: param } = address.frontendParam(path);
  // Written out by hand: URLSearchParams would percent-encode the slashes the frontend expects to see.
  const others = url.searchParams.toString();
  return `${url.origin === 'null' ? `${url.protocol}//${url.host}` : url.origin}${url.pathname}?${others ? `${others}&` : ''}${name}=${param}${url.hash}`;
}
