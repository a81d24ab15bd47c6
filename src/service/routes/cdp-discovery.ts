// CDP discovery under a session's CDP address, so that clients which start from an http:// URL (Puppeteer's
// `browserURL`, Playwright's `connectOverCDP('http://...')`, chrome-remote-interface's host and port) find
// the session's browser and pages: `GET /browsers/{id}/cdp/json/version`, `/json/list` (also `/json`) and
// `/json/protocol` answer Chromium's own documents with every address in them pointing at the proxy.
// Authorised like the proxy itself: the session token (`jwt`, in the query or the path: the router moves a
// path token into the query first, see app.ts) or, without one, an API key that sees the session.
// `GET /json/protocol` is also served at the root, without a key, as Chromium serves it (below).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cdpDiscoveryQuery, cdpTarget, cdpVersion } from '../../api/schemas/cdp.js';
import { extensionRoute } from '../../api/schemas/common.js';
import type { ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { DomainError } from '../host/errors.js';
import { fetchDiscovery, parseCdpPath, rewriteDiscovery, type DiscoveryDocument, type LiveSession, type ProxyAddress } from '../host/session/index.js';
import { liveSessionFor } from './session-access.js';
import { idParams } from './params.js';
import { content, ok } from './responses.js';

type Req = { Params: { id: string }; Querystring: { jwt?: string } };

const targets = { type: 'array', items: cdpTarget } as const;
const DOCUMENTS: [path: string, doc: DiscoveryDocument, response: object][] = [
  ['/json/version', 'version', ok("Chromium's version document, its browser WebSocket pointing at the proxy", cdpVersion)],
  ['/json/list', 'list', ok("Chromium's targets, their WebSockets and frontends pointing at the proxy", targets)],
  ['/json', 'list', ok('The same as /json/list', targets)],
  ['/json/protocol', 'protocol', content("Chromium's protocol descriptor, as it gives it", 'application/json', { type: 'object' })],
];

export function registerCdpDiscoveryRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  registerRootProtocol(app, ctx);
  for (const [path, doc, response] of DOCUMENTS) {
    app.get<Req>(
      `/browsers/:id/cdp${path}`,
      { config: { sessionToken: true }, schema: { ...extensionRoute, params: idParams, querystring: cdpDiscoveryQuery, response } },
      async (req, reply) => {
        const session = await authorisedSession(ctx, req);
        await session.ready;
        let text: string;
        try {
          text = doc === 'protocol' ? await ctx.sessions.protocolDescriptor(session) : await fetchDiscovery(session.chromium.wsEndpoint, doc);
        } catch (err) {
          // A browser that ended meanwhile is simply gone.
          if (!ctx.sessions.get(session.id) || session.ending) throw notFound('browser', req.params.id);
          throw err;
        }
        reply.type('application/json; charset=utf-8');
        // The protocol names no address; it is passed on as Chromium wrote it.
        if (doc === 'protocol') return reply.send(text);
        return rewriteDiscovery(doc, text, proxyAddress(ctx, req, session.id));
      },
    );
  }
}

/**
 * chrome-remote-interface, given only a session's WebSocket URL, fetches `/json/protocol` from that URL's
 * host and port with no credential, as Chromium serves it. The descriptor is public data (the same for
 * every browser of a build), so it alone is served at the root, without a key.
 */
function registerRootProtocol(app: FastifyInstance, ctx: ServiceContext): void {
  app.get(
    '/json/protocol',
    { config: { selfAuthenticated: true }, schema: { response: content("The DevTools protocol descriptor of this host's Chromium", 'application/json', { type: 'object' }) } },
    async (_req, reply) => {
      const text = await ctx.sessions.hostProtocolDescriptor();
      return reply.type('application/json; charset=utf-8').send(text);
    },
  );
}

/** The live session the request may see: by its token, or by the API key within the key's project. */
async function authorisedSession(ctx: ServiceContext, req: FastifyRequest<Req>): Promise<LiveSession> {
  const session = await liveSessionFor(ctx, req);
  if (session.parked) throw new DomainError('not_found', 'not_found', `browser '${req.params.id}' is idle in its pool; acquire it first`);
  return session;
}

/**
 * The proxy as the client reached us: its host and scheme, and the token where the client put it. A
 * request authorised by an API key gets addresses with the session token all the same: discovery
 * clients connect to what they are given without the headers they fetched it with, and the key could
 * read that token from GET /browsers/{id} anyway.
 */
function proxyAddress(ctx: ServiceContext, req: FastifyRequest, sessionId: string): ProxyAddress {
  const origin = ctx.origins.ws(req);
  const token = ctx.tokens.tokenFor(sessionId);
  const base = `/browsers/${encodeURIComponent(sessionId)}/cdp`;
  const tokenInPath = parseCdpPath(req.originalUrl.split('?')[0]!)?.pathToken !== undefined;
  return {
    webSocketUrl: (path) => (tokenInPath ? `${origin}${base}/jwt/${token}${path}` : `${origin}${base}${path}?jwt=${token}`),
    // A frontend builds its WebSocket URL from this parameter alone, so the token goes in the path there.
    frontendParam: (path) => ({ name: origin.startsWith('wss:') ? 'wss' : 'ws', value: `${req.host}${base}/jwt/${token}${path}` }),
  };
}
