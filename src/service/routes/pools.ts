// /browser_pools: create, list, retrieve, update and delete pools; acquire (a long poll), release and flush.
// Fields of later issues (chrome_policy) are not in the schemas yet, so they are refused as unknown fields
// rather than accepted and ignored.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BrowserPoolAcquireParams, BrowserPoolReleaseParams } from '../../api/types.js';
import type { CdpTokens } from '../host/session/index.js';
import type { ProfileStore } from '../host/profiles/index.js';
import type { ProxyService } from '../host/proxy/index.js';
import { presentPool, type PoolManager, type PoolSettings, type PoolUpdate } from '../host/pools/index.js';
import { type TelemetryHub, telemetryCreateSchema } from '../host/telemetry/index.js';
import type { BrowserRow } from '../store/browsers-repo.js';
import { createBody, presentSession, wsOrigin } from './browsers.js';
import { defaultEmptyBody } from './empty-body.js';
import { clientGone } from './long-requests.js';
import { setPageHeaders } from './offset-paging.js';
import { idOrNameParams, namedListQuery as listQuery, type IdOrNameParams as IdParams } from './params.js';

export interface PoolRouteDeps {
  pools: PoolManager;
  tokens: CdpTokens;
  telemetry?: TelemetryHub;
  proxies?: ProxyService;
  profiles?: ProfileStore;
}

const browser = createBody.properties;

/** The browser settings a pool shares; the same rules as for a single browser. */
const poolFields = {
  size: { type: 'integer', minimum: 1, maximum: 1000 },
  name: browser.name,
  headless: browser.headless,
  stealth: browser.stealth,
  kiosk_mode: browser.kiosk_mode,
  viewport: browser.viewport,
  start_url: browser.start_url,
  timeout_seconds: browser.timeout_seconds,
  // Only the lower bound is the hosted API's; above 100 % the pool could not fill any faster.
  fill_rate_per_minute: { type: 'number', exclusiveMinimum: 0, maximum: 100 },
  telemetry: telemetryCreateSchema,
  proxy_id: browser.proxy_id,
  // Pool browsers load the profile read-only: save_changes is accepted and ignored, as on the hosted API.
  profile: browser.profile,
  refresh_on_profile_update: { type: 'boolean' },
  extensions: browser.extensions,
} as const;

const createPoolBody = {
  type: 'object',
  additionalProperties: false,
  required: ['size'],
  properties: poolFields,
} as const;

const updatePoolBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...poolFields,
    // "" is a no-op for the name and clears the start URL, as on the hosted API.
    name: { type: 'string', maxLength: 255 },
    start_url: { type: 'string', maxLength: 8192, pattern: '^$|^(https?://|about:|data:)' },
    // `profile: {id: ""}` (or name "") clears the profile.
    profile: {
      ...browser.profile,
      properties: { ...browser.profile.properties, id: { type: 'string', maxLength: 255 }, name: { type: 'string', pattern: `^$|${browser.profile.properties.name.pattern}` } },
    },
    discard_all_idle: { type: 'boolean' },
  },
} as const;

const deleteBody = {
  type: 'object',
  additionalProperties: false,
  properties: { force: { type: 'boolean' } },
} as const;

const acquireBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    acquire_timeout_seconds: { type: 'integer', minimum: 0, maximum: 3600 },
    name: browser.name,
    tags: browser.tags,
    start_url: browser.start_url,
    // Lease-scoped: applied to the leased browser now, back to the default when the lease ends.
    telemetry: telemetryCreateSchema,
  },
} as const;

const releaseBody = {
  type: 'object',
  additionalProperties: false,
  required: ['session_id'],
  properties: {
    session_id: { type: 'string', minLength: 1, maxLength: 255 },
    reuse: { type: 'boolean', default: true },
  },
} as const;

export function registerPoolRoutes(app: FastifyInstance, deps: PoolRouteDeps): void {
  const { pools } = deps;
  const find = (req: FastifyRequest<{ Params: IdParams }>) => pools.find(req.auth.projectId, req.params.id_or_name);
  const sessionDeps = { tokens: deps.tokens, telemetry: deps.telemetry, pools, proxies: deps.proxies, profiles: deps.profiles };
  const present = (req: FastifyRequest, row: BrowserRow) => presentSession(row, wsOrigin(req), sessionDeps);

  app.post<{ Body: PoolSettings }>('/browser_pools', { schema: { body: createPoolBody } }, async (req) =>
    presentPool(pools.create(req.auth.projectId, req.body, 'body')),
  );

  app.get<{ Querystring: { offset: number; limit: number; name?: string; query?: string } }>(
    '/browser_pools',
    { schema: { querystring: listQuery } },
    async (req, reply) => {
      const q = req.query;
      const page = pools.list({ projectId: req.auth.projectId, name: q.name, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, page.pools.length, page.hasMore);
      return page.pools.map(presentPool);
    },
  );

  app.get<{ Params: IdParams }>('/browser_pools/:id_or_name', { schema: { params: idOrNameParams } }, async (req) => presentPool(find(req)));

  app.patch<{ Params: IdParams; Body: PoolUpdate }>(
    '/browser_pools/:id_or_name',
    { schema: { params: idOrNameParams, body: updatePoolBody }, preValidation: defaultEmptyBody },
    async (req) => presentPool(await pools.update(find(req), req.body, 'body')),
  );

  app.delete<{ Params: IdParams; Body: { force?: boolean }; Querystring: { force?: boolean } }>(
    '/browser_pools/:id_or_name',
    { schema: { params: idOrNameParams, body: deleteBody, querystring: deleteBody }, preValidation: defaultEmptyBody },
    async (req, reply) => {
      await pools.delete(find(req), req.body.force ?? req.query.force ?? false);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams; Body: BrowserPoolAcquireParams }>(
    '/browser_pools/:id_or_name/acquire',
    { schema: { params: idOrNameParams, body: acquireBody }, preValidation: defaultEmptyBody },
    async (req, reply) => {
      const pool = find(req);
      const seconds = req.body.acquire_timeout_seconds ?? pool.defaultAcquireTimeoutSeconds;
      const row = await pool.acquire(req.body, seconds * 1000, clientGone(reply));
      // 204 tells the client the poll ran out; it asks again.
      if (!row) return reply.code(204).send();
      if (req.body.telemetry && deps.telemetry) await deps.telemetry.applyCreate(row.id, req.body.telemetry, 'body.telemetry');
      return present(req, row);
    },
  );

  app.post<{ Params: IdParams; Body: BrowserPoolReleaseParams & { reuse: boolean } }>(
    '/browser_pools/:id_or_name/release',
    { schema: { params: idOrNameParams, body: releaseBody } },
    async (req, reply) => {
      await find(req).release(req.body.session_id, req.body.reuse);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams }>('/browser_pools/:id_or_name/flush', { schema: { params: idOrNameParams } }, async (req, reply) => {
    await find(req).flush();
    return reply.code(204).send();
  });
}
