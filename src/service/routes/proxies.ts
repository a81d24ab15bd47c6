// /proxies: create, list, retrieve, rename, delete and check proxy configurations of the caller's project.
// Addressed by id only (names are not unique), as on the hosted API.
import type { FastifyInstance } from 'fastify';
import type { ProxyCheckParams, ProxyCreateParams, ProxyListParams } from '../../api/types.js';
import { BYPASS_HOST_PATTERN, presentProxy, type ProxyService } from '../host/proxy/index.js';
import { defaultEmptyBody } from './empty-body.js';
import { setPageHeaders } from './offset-paging.js';
import { idParams, namedListQuery as listQuery } from './params.js';

export interface ProxyRouteDeps {
  proxies: ProxyService;
}

const name = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' } as const;

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['datacenter', 'isp', 'residential', 'mobile', 'custom'] },
    name,
    protocol: { type: 'string', enum: ['http', 'https'] },
    bypass_hosts: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 260, pattern: BYPASS_HOST_PATTERN } },
    // Its fields depend on `type`: checked by host/proxy/config.ts.
    config: { type: 'object' },
  },
} as const;

const updateBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name },
} as const;

const checkBody = {
  type: 'object',
  additionalProperties: false,
  properties: { url: { type: 'string', maxLength: 8192, pattern: '^https?://[^\\s/?#]+' } },
} as const;

type IdParams = { id: string };

export function registerProxyRoutes(app: FastifyInstance, deps: ProxyRouteDeps): void {
  const { proxies } = deps;

  app.post<{ Body: ProxyCreateParams }>('/proxies', { schema: { body: createBody } }, async (req) =>
    presentProxy(proxies.create(req.auth.projectId, req.body, 'body')),
  );

  app.get<{ Querystring: ProxyListParams & { offset: number; limit: number } }>(
    '/proxies',
    { schema: { querystring: listQuery } },
    async (req, reply) => {
      const q = req.query;
      const page = proxies.list({ projectId: req.auth.projectId, name: q.name, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, page.rows.length, page.hasMore);
      return page.rows.map(presentProxy);
    },
  );

  app.get<{ Params: IdParams }>('/proxies/:id', { schema: { params: idParams } }, async (req) =>
    presentProxy(proxies.get(req.auth.projectId, req.params.id)),
  );

  app.patch<{ Params: IdParams; Body: { name: string } }>(
    '/proxies/:id',
    { schema: { params: idParams, body: updateBody }, preValidation: defaultEmptyBody },
    async (req) => presentProxy(proxies.rename(req.auth.projectId, req.params.id, req.body.name, 'body')),
  );

  app.delete<{ Params: IdParams }>('/proxies/:id', { schema: { params: idParams } }, async (req, reply) => {
    proxies.delete(req.auth.projectId, req.params.id);
    return reply.code(204).send();
  });

  app.post<{ Params: IdParams; Body: ProxyCheckParams }>(
    '/proxies/:id/check',
    { schema: { params: idParams, body: checkBody }, preValidation: defaultEmptyBody },
    async (req) => presentProxy(await proxies.check(req.auth.projectId, req.params.id, req.body.url, 'body')),
  );
}
