// /proxies: create, list, retrieve, rename, delete and check proxy configurations of the caller's project.
// Addressed by id only (names are not unique), as on the hosted API.
import type { FastifyInstance } from 'fastify';
import type { ProxyCheckParams, ProxyCreateParams, ProxyListParams } from '../../api/types.js';
import { presentProxy, type ProxyService } from '../host/proxy/index.js';
import { proxy, proxyCheckParams, proxyCreateParams, proxyUpdateParams } from '../../api/schemas/proxies.js';
import { defaultEmptyBody } from './empty-body.js';
import { noContent, ok, page } from './responses.js';
import { setPageHeaders } from './offset-paging.js';
import { idParams, namedListQuery as listQuery } from './params.js';

export interface ProxyRouteDeps {
  proxies: ProxyService;
}

type IdParams = { id: string };

const createBody = proxyCreateParams;
const updateBody = proxyUpdateParams;
const checkBody = proxyCheckParams;

export function registerProxyRoutes(app: FastifyInstance, deps: ProxyRouteDeps): void {
  const { proxies } = deps;

  app.post<{ Body: ProxyCreateParams }>('/proxies', { schema: { body: createBody, response: ok('The new proxy', proxy) } }, async (req) =>
    presentProxy(await proxies.create(req.auth.projectId, req.body, 'body')),
  );

  app.get<{ Querystring: ProxyListParams & { offset: number; limit: number } }>(
    '/proxies',
    { schema: { querystring: listQuery, response: page('Proxies', proxy) } },
    async (req, reply) => {
      const q = req.query;
      const page = await proxies.list({ projectId: req.auth.projectId, name: q.name, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, page.rows.length, page.hasMore);
      return page.rows.map(presentProxy);
    },
  );

  app.get<{ Params: IdParams }>('/proxies/:id', { schema: { params: idParams, response: ok('The proxy', proxy) } }, async (req) =>
    presentProxy(await proxies.get(req.auth.projectId, req.params.id)),
  );

  app.patch<{ Params: IdParams; Body: { name: string } }>(
    '/proxies/:id',
    { schema: { params: idParams, body: updateBody, response: ok('The proxy as renamed', proxy) }, preValidation: defaultEmptyBody },
    async (req) => presentProxy(await proxies.rename(req.auth.projectId, req.params.id, req.body.name, 'body')),
  );

  app.delete<{ Params: IdParams }>('/proxies/:id', { schema: { params: idParams, response: noContent('Deleted') } }, async (req, reply) => {
    await proxies.delete(req.auth.projectId, req.params.id);
    return reply.code(204).send();
  });

  app.post<{ Params: IdParams; Body: ProxyCheckParams }>(
    '/proxies/:id/check',
    { schema: { params: idParams, body: checkBody, response: ok('The proxy with the check\'s outcome (stored unless a `url` was given)', proxy) }, preValidation: defaultEmptyBody },
    async (req) => presentProxy(await proxies.check(req.auth.projectId, req.params.id, req.body.url, 'body')),
  );
}
