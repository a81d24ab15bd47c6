// /site_configs (our extension of the seed's Site Configs group): per-domain settings that work against a
// site, listed, looked up by URL or domain, and applied as defaults to browsers and auth connections.
import type { FastifyInstance } from 'fastify';
import {
  siteConfig,
  siteConfigCreateParams,
  siteConfigListQuery,
  siteConfigLookupQuery,
  siteConfigUpdateParams,
} from '../../api/schemas/site-configs.js';
import type { SiteConfigCreateParams, SiteConfigListParams, SiteConfigUpdateParams } from '../../api/schemas/site-configs.js';
import { extensionRoute } from '../../api/schemas/common.js';
import type { ServiceContext } from '../context.js';
import { invalidField, notFound } from '../host/errors.js';
import { defaultEmptyBody } from './empty-body.js';
import { setPageHeaders } from './offset-paging.js';
import { idOrNameParams, type IdOrNameParams } from './params.js';
import { noContent, ok, page } from './responses.js';

export function registerSiteConfigRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const { siteConfigs: configs } = ctx;

  app.post<{ Body: SiteConfigCreateParams }>(
    '/site_configs',
    { schema: { ...extensionRoute, body: siteConfigCreateParams, response: ok('The new site config', siteConfig) } },
    async (req) => configs.present(await configs.create(req.auth.projectId, req.body, 'body')),
  );

  app.get<{ Querystring: SiteConfigListParams & { offset: number; limit: number } }>(
    '/site_configs',
    { schema: { ...extensionRoute, querystring: siteConfigListQuery, response: page('Site configs, oldest first', siteConfig) } },
    async (req, reply) => {
      const q = req.query;
      const found = await configs.list({ projectId: req.auth.projectId, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, found.rows.length, found.hasMore);
      return found.rows.map((row) => configs.present(row));
    },
  );

  app.get<{ Querystring: { url?: string; domain?: string } }>(
    '/site_configs/lookup',
    { schema: { ...extensionRoute, querystring: siteConfigLookupQuery, response: ok('The config that applies to the URL or domain (the most specific match)', siteConfig) } },
    async (req) => {
      const { url, domain } = req.query;
      if ((url === undefined) === (domain === undefined)) throw invalidField('querystring', 'takes exactly one of url and domain');
      let host = domain;
      if (url !== undefined) {
        try {
          host = new URL(url).hostname;
        } catch {
          throw invalidField('querystring.url', 'is not a valid URL');
        }
      }
      const found = host ? await configs.match(req.auth.projectId, host) : undefined;
      if (!found) throw notFound('site config for', (url ?? domain)!);
      return configs.present(found);
    },
  );

  app.get<{ Params: IdOrNameParams }>(
    '/site_configs/:id_or_name',
    { schema: { ...extensionRoute, params: idOrNameParams, response: ok('The site config (by id or exact domain)', siteConfig) } },
    async (req) => configs.present(await configs.find(req.auth.projectId, req.params.id_or_name)),
  );

  app.patch<{ Params: IdOrNameParams; Body: SiteConfigUpdateParams }>(
    '/site_configs/:id_or_name',
    { schema: { ...extensionRoute, params: idOrNameParams, body: siteConfigUpdateParams, response: ok('The site config as updated', siteConfig) }, preValidation: defaultEmptyBody },
    async (req) => configs.present(await configs.update(await configs.find(req.auth.projectId, req.params.id_or_name), req.body, 'body')),
  );

  app.delete<{ Params: IdOrNameParams }>('/site_configs/:id_or_name', { schema: { ...extensionRoute, params: idOrNameParams, response: noContent('Deleted') } }, async (req, reply) => {
    await configs.delete(await configs.find(req.auth.projectId, req.params.id_or_name));
    return reply.code(204).send();
  });
}
