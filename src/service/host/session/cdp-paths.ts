// The addresses of a session's DevTools on the service's own port. The session token rides in the query
// (`/browsers/{id}/cdp?jwt=T`, as cdp_ws_url carries it) or in the path (`/browsers/{id}/cdp/jwt/T`), for
// clients that build their URLs by putting a path of their own in place of ours or after it, where a query
// string would be dropped or end up in the middle. Below either base: nothing (the browser), Chromium's own
// target paths (`/devtools/browser/{id}`, `/devtools/page/{id}`), or its discovery documents (`/json`,
// `/json/list`, `/json/version`, `/json/protocol`).

const CDP_PATH = /^\/browsers\/([^/?#]+)\/cdp(?:\/jwt\/([^/?#]*))?(\/[^?#]*)?$/;
const TARGET_PATH = /^\/devtools\/(?:browser|page)\/[A-Za-z0-9._-]{1,128}$/;
const DISCOVERY_PATH = /^\/json(?:\/[a-z]+)?\/$/;

export interface CdpPath {
  sessionId: string;
  /** The token given in the path; undefined when the path has none (it may be in the query). */
  pathToken?: string;
  /** What follows the base: '' or '/' for the browser, a target path, a discovery path. */
  rest: string;
}

/** The parts of a CDP path (no query string); undefined when it is not one, or is not decodable. */
export function parseCdpPath(pathname: string): CdpPath | undefined {
  const match = CDP_PATH.exec(pathname);
  if (!match) return undefined;
  try {
    return {
      sessionId: decodeURIComponent(match[1]!),
      pathToken: match[2] === undefined ? undefined : decodeURIComponent(match[2]),
      rest: match[3] ?? '',
    };
  } catch {
    return undefined;
  }
}

/**
 * The path on Chromium's DevTools server that a WebSocket to `rest` reaches: null for the browser itself
 * (whose path only the launch knows), undefined when `rest` names no target.
 */
export function devtoolsTargetPath(rest: string): string | null | undefined {
  if (rest === '' || rest === '/') return null;
  return TARGET_PATH.test(rest) ? rest : undefined;
}

/**
 * A request URL as the HTTP routes take it: a token in the path moved into the query, so that routing,
 * logs (which drop query strings), 404 messages and the audit log (which redacts `jwt`) never carry it;
 * and a discovery path without the trailing slash Playwright adds (`/json/version/`). Anything else is
 * returned as it came.
 */
export function cdpTokenToQuery(url: string): string {
  const q = url.indexOf('?');
  const pathname = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const parts = parseCdpPath(pathname);
  if (!parts) return url;
  const rest = DISCOVERY_PATH.test(parts.rest) ? parts.rest.slice(0, -1) : parts.rest;
  if (parts.pathToken === undefined && rest === parts.rest) return url;
  const base = `/browsers/${CDP_PATH.exec(pathname)![1]}/cdp`;
  const params = [parts.pathToken === undefined ? '' : `jwt=${encodeURIComponent(parts.pathToken)}`, query].filter(Boolean).join('&');
  return `${base}${rest}${params ? `?${params}` : ''}`;
}
