// Routes that also take a session's own token (`jwt` in the query, route config `sessionToken`): the ones
// the SDK sends to the session's `base_url` without the API key (curl, curl/raw, telemetry/stream), and
// CDP discovery. Auth (auth.ts) lets such a request through without a key; the token is checked here,
// against the session in the path and no other.
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { notFound, unauthorized } from '../errors.js';
import type { LiveSession } from '../host/session/index.js';
import type { BrowserRow } from '../store/browsers-repo.js';
import { findSessionRow, liveSession } from './lookup.js';

type TokenRequest = FastifyRequest<{ Params: { id: string }; Querystring: { jwt?: string } }>;

/** The token the request carries, after checking it is `id`'s; undefined when it carries none (an API key request). */
function checkedToken(ctx: Pick<ServiceContext, 'tokens'>, req: TokenRequest): string | undefined {
  const token = req.query.jwt;
  if (token === undefined) return undefined;
  if (!ctx.tokens.verify(req.params.id, token)) throw unauthorized(`invalid session token for browser '${req.params.id}': use the jwt of its cdp_ws_url`);
  return token;
}

/** The session's active row: by its token, or within the API key's project (by id or name). */
export async function sessionRowFor(ctx: Pick<ServiceContext, 'tokens' | 'browsers'>, req: TokenRequest): Promise<BrowserRow> {
  if (checkedToken(ctx, req) === undefined) return findSessionRow(ctx.browsers, req, req.params.id);
  const row = await ctx.browsers.get(req.params.id);
  if (!row || row.deleted_at) throw notFound('browser', req.params.id);
  return row;
}

/** The running session: by its token, or within the API key's project; counts the call as activity. */
export async function liveSessionFor(ctx: Pick<ServiceContext, 'tokens' | 'browsers' | 'sessions'>, req: TokenRequest): Promise<LiveSession> {
  const { id } = req.params;
  if (checkedToken(ctx, req) === undefined) return liveSession(ctx.browsers, ctx.sessions, req, id);
  const session = ctx.sessions.get(id);
  if (!session || session.ending) throw notFound('browser', id);
  ctx.sessions.touch(id);
  return session;
}
