// Who may open a WebSocket to a session's browser. Both protocols served there (CDP at
// `/browsers/{id}/cdp`, WebDriver BiDi at `/browsers/{id}/bidi`) take the same session token or API key
// and the same session states, so a client refused on one is refused on the other with the same answer.
// Refusals are plain HTTP on the socket: no WebSocket exists yet to carry anything else.
import { devtoolsTargetPath, parseCdpPath } from './cdp-paths.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DomainError, FailureKind } from '../errors.js';
import type { LiveViewMode } from '../../../api/types.js';
import type { LiveSession } from './types.js';
import type { SessionManager } from './sessions.js';

const UPGRADE_PATH = /^\/browsers\/([^/?]+)\/(bidi)\/?$/;

export type ClientProtocol = 'cdp' | 'bidi';

/** What a live view connection may do: watch, or also send mouse and keyboard input. */
export type { LiveViewMode };

/**
 * Session tokens (the `jwt` of `cdp_ws_url` and `webdriver_ws_url`) are an HMAC of the session id under a
 * secret that lives only in this process (in a cluster, one every process derives from the cluster key).
 */
export class CdpTokens {
  /** Bumped when a pool browser changes hands, so an earlier holder's URL stops working. */
  private readonly generations = new Map<string, number>();

  constructor(private readonly secret: Buffer = randomBytes(32)) {}

  tokenFor(sessionId: string): string {
    const generation = this.generations.get(sessionId) ?? 0;
    return createHmac('sha256', this.secret).update(`${sessionId}.${generation}`).digest('base64url');
  }

  /**
   * The token of a live view link (`browser_live_view_url`): a different HMAC from the CDP token, so a
   * link given to someone to watch does not also hand them CDP; its mode is bound into it, so a view-only
   * link cannot be turned into an interactive one. Revoked with the session's other tokens.
   */
  liveTokenFor(sessionId: string, mode: LiveViewMode): string {
    const generation = this.generations.get(sessionId) ?? 0;
    const mac = createHmac('sha256', this.secret).update(`live.${mode}.${sessionId}.${generation}`).digest('base64url');
    return `${mode === 'view' ? 'v' : 'i'}.${mac}`;
  }

  /** The mode a live view token grants for the session, or undefined when it is not one of its tokens. */
  verifyLive(sessionId: string, token: string): LiveViewMode | undefined {
    const mode: LiveViewMode | undefined = token.startsWith('v.') ? 'view' : token.startsWith('i.') ? 'interactive' : undefined;
    if (!mode) return undefined;
    const expected = Buffer.from(this.liveTokenFor(sessionId, mode));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected) ? mode : undefined;
  }

  /** Invalidates every token issued for the session so far. */
  revoke(sessionId: string): void {
    this.generations.set(sessionId, (this.generations.get(sessionId) ?? 0) + 1);
  }

  verify(sessionId: string, token: string): boolean {
    const expected = Buffer.from(this.tokenFor(sessionId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

export type DisconnectReason = 'client_close' | 'upstream_error' | 'context_cancelled';

/** Told of each client connection that reached the browser, and of its end (telemetry's connection category). */
export interface ClientConnectionEvents {
  connected(sessionId: string, protocol: ClientProtocol): void;
  disconnected(sessionId: string, info: { reason: DisconnectReason; duration_ms: number; message_count: number }, protocol: ClientProtocol): void;
}

export interface BrowserClientDeps {
  sessions: SessionManager;
  tokens: CdpTokens;
  /** Lets clients that can set headers use their API key instead of the token. */
  isValidApiKey(key: string): Promise<boolean>;
  connections?: ClientConnectionEvents;
}

/** The session and protocol a WebSocket upgrade URL asks for; undefined for any other path. */
export interface UpgradeTarget {
  sessionId: string;
  protocol: ClientProtocol;
  /** A session token given in the path (`/browsers/{id}/cdp/jwt/{token}`, cdp-paths.ts). */
  pathToken?: string;
  /** For CDP: a target's DevTools path (`/devtools/page/{id}`), or null for the browser itself. */
  targetPath: string | null;
}

export function upgradeTarget(rawUrl: string | undefined): UpgradeTarget | undefined {
  let pathname: string;
  try {
    pathname = new URL(rawUrl ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined; // an unparsable URL names no session
  }
  const cdp = parseCdpPath(pathname);
  if (cdp) {
    const targetPath = devtoolsTargetPath(cdp.rest);
    return targetPath === undefined ? undefined : { sessionId: cdp.sessionId, protocol: 'cdp', pathToken: cdp.pathToken, targetPath };
  }
  const match = UPGRADE_PATH.exec(pathname);
  if (!match) return undefined;
  try {
    return { sessionId: decodeURIComponent(match[1]!), protocol: match[2] as ClientProtocol, targetPath: null };
  } catch {
    return undefined; // a malformed escape names no session
  }
}

/** The live session the client may connect to, or undefined once it has been refused on the socket. */
export async function admitClient(deps: BrowserClientDeps, req: IncomingMessage, client: Duplex, sessionId: string, pathToken?: string): Promise<LiveSession | undefined> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const token = pathToken || url.searchParams.get('jwt') || url.searchParams.get('token');
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const authorised = token ? deps.tokens.verify(sessionId, token) : bearer ? await apiKeyAdmits(client, bearer, deps.isValidApiKey) : false;
  if (authorised === undefined) return undefined;
  if (!authorised) return void rejectUpgrade(client, 401, 'unauthorized', 'missing or invalid session token');
  const session = deps.sessions.get(sessionId);
  if (!session || session.ending) return void rejectUpgrade(client, 404, 'not_found', `browser '${sessionId}' is not active`);
  if (session.parked) return void rejectUpgrade(client, 404, 'not_found', `browser '${sessionId}' is idle in its pool; acquire it first`);
  return session;
}

/**
 * Whether an upgrade's API key admits it. The key is looked up in the store, so the socket waits a while:
 * its errors meanwhile are ignored (nothing listens on an upgraded socket yet, and an unheard error would
 * end the process). Undefined when the client has gone or the upgrade was refused for a failed lookup.
 */
export async function apiKeyAdmits(client: Duplex, key: string, isValidApiKey: (key: string) => Promise<boolean>): Promise<boolean | undefined> {
  const ignore = () => {};
  client.on('error', ignore);
  try {
    const valid = await isValidApiKey(key);
    return client.destroyed ? undefined : valid;
  } catch {
    if (!client.destroyed) rejectUpgrade(client, 503, 'unavailable', 'the API key could not be checked just now; try again');
    return undefined;
  } finally {
    client.off('error', ignore);
  }
}

const REASONS: Record<number, string> = {
  401: 'Unauthorized',
  404: 'Not Found',
  409: 'Conflict',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** What a domain failure answers with here, as the HTTP edge would answer it for a request. */
const STATUS: Partial<Record<FailureKind, number>> = { not_found: 404, conflict: 409, unavailable: 503 };

export function rejectUpgrade(client: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ code, message });
  client.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function rejectUpgradeWith(client: Duplex, err: DomainError): void {
  rejectUpgrade(client, STATUS[err.kind] ?? 500, err.code, err.message);
}
