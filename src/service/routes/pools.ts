// /browser_pools: create, list, retrieve, update and delete pools; acquire (a long poll), release and flush.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  browserPool,
  browserPoolAcquireParams,
  browserPoolCreateParams,
  browserPoolDeleteParams,
  browserPoolReleaseParams,
  browserPoolUpdateParams,
} from '../../api/schemas/pools.js';
import { browserSession } from '../../api/schemas/browsers.js';
import type { FromSchema } from 'json-schema-to-ts';
import type { BrowserPoolAcquireParams } from '../../api/types.js';
import { noBody, noContent, ok, page } from './responses.js';
import type { CdpTokens } from '../host/session/index.js';
import type { ProfileStore } from '../host/profiles/index.js';
import type { ProxyService } from '../host/proxy/index.js';
import { presentPool, type PoolManager, type PoolSettings, type PoolUpdate } from '../host/pools/index.js';
import type { TelemetryHub } from '../host/telemetry/index.js';
import type { BrowserRow } from '../store/browsers-repo.js';
import { presentSession } from '../host/browsers/index.js';
import { POLICY_BODY_LIMIT } from './body-limits.js';
import { defaultEmptyBody } from './empty-body.js';
import { clientGone } from './long-requests.js';
import { setPageHeaders } from './offset-paging.js';
import { idOrNameParams, namedListQuery as listQuery, type IdOrNameParams as IdParams } from './params.js';
import type { ClientOrigins } from './ws-origin.js';

export interface PoolRouteDeps {
  pools: PoolManager;
  origins: ClientOrigins;
  tokens: CdpTokens;
  telemetry?: TelemetryHub;
  proxies?: ProxyService;
  profiles?: ProfileStore;
}

const createPoolBody = browserPoolCreateParams;
const updatePoolBody = browserPoolUpdateParams;
const deleteBody = browserPoolDeleteParams;
const acquireBody = browserPoolAcquireParams;
const releaseBody = browserPoolReleaseParams;

export function registerPoolRoutes(app: FastifyInstance, deps: PoolRouteDeps): void {
  const { pools } = deps;
  const find = (req: FastifyRequest<{ Params: IdParams }>) => pools.find(req.auth.projectId, req.params.id_or_name);
  const sessionDeps = { tokens: deps.tokens, telemetry: deps.telemetry, pools, proxies: deps.proxies, profiles: deps.profiles };
  const present = (req: FastifyRequest, row: BrowserRow) => presentSession(row, deps.origins.ws(req), sessionDeps);

  app.post<{ Body: PoolSettings }>(
    '/browser_pools',
    { schema: { body: createPoolBody, response: ok('The new pool; it fills in the background', browserPool) }, bodyLimit: POLICY_BODY_LIMIT },
    async (req) => presentPool(await pools.create(req.auth.projectId, req.body, 'body')),
  );

  app.get<{ Querystring: FromSchema<typeof listQuery> }>(
    '/browser_pools',
    { schema: { querystring: listQuery, response: page('Pools', browserPool) } },
    async (req, reply) => {
      const q = req.query;
      const page = await pools.list({ projectId: req.auth.projectId, name: q.name, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, page.pools.length, page.hasMore);
      return page.pools.map(presentPool);
    },
  );

  app.get<{ Params: IdParams }>(
    '/browser_pools/:id_or_name',
    { schema: { params: idOrNameParams, response: ok('The pool', browserPool) } },
    async (req) => presentPool(await find(req)),
  );

  app.patch<{ Params: IdParams; Body: PoolUpdate }>(
    '/browser_pools/:id_or_name',
    { schema: { params: idOrNameParams, body: updatePoolBody, response: ok('The pool as updated', browserPool) }, preValidation: defaultEmptyBody, bodyLimit: POLICY_BODY_LIMIT },
    async (req) => presentPool(await pools.update(await find(req), req.body, 'body')),
  );

  app.delete<{ Params: IdParams; Body: FromSchema<typeof deleteBody>; Querystring: FromSchema<typeof deleteBody> }>(
    '/browser_pools/:id_or_name',
    {
      schema: { params: idOrNameParams, body: deleteBody, querystring: deleteBody, response: noContent('Deleted: its browsers are ended') },
      preValidation: defaultEmptyBody,
    },
    async (req, reply) => {
      await pools.delete(await find(req), req.body.force ?? req.query.force ?? false);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams; Body: BrowserPoolAcquireParams }>(
    '/browser_pools/:id_or_name/acquire',
    {
      schema: {
        params: idOrNameParams,
        body: acquireBody,
        response: {
          ...ok('A browser of the pool, leased to the caller until released', browserSession),
          ...noContent('No browser became free within acquire_timeout_seconds: ask again'),
        },
      },
      preValidation: defaultEmptyBody,
    },
    async (req, reply) => {
      const pool = await find(req);
      // Checked before a browser is leased: a bad setting leaves the pool as it was.
      if (req.body.telemetry) deps.telemetry?.validate(req.body.telemetry, 'body.telemetry');
      const seconds = req.body.acquire_timeout_seconds ?? pool.defaultAcquireTimeoutSeconds;
      const row = await pool.acquire(req.body, seconds * 1000, clientGone(reply));
      // 204 tells the client the poll ran out; it asks again.
      if (!row) return reply.code(204).send();
      return present(req, row);
    },
  );

  app.post<{ Params: IdParams; Body: FromSchema<typeof releaseBody> }>(
    '/browser_pools/:id_or_name/release',
    { schema: { params: idOrNameParams, body: releaseBody, response: noContent('Taken back: reset (or replaced) for the next holder') } },
    async (req, reply) => {
      await (await find(req)).release(req.body.session_id, req.body.reuse);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams }>(
    '/browser_pools/:id_or_name/flush',
    { schema: { params: idOrNameParams, response: noContent('Idle browsers ended; the pool refills') }, config: noBody },
    async (req, reply) => {
      await (await find(req)).flush();
      return reply.code(204).send();
    },
  );
}
