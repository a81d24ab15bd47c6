// /org/credential_providers: the organisation's external credential providers (organisation keys only, as
// every /org route): create, list, retrieve, update, delete, list the items a token can read, and test one.
import type { FastifyInstance } from 'fastify';
import {
  credentialProvider,
  credentialProviderCreateParams,
  credentialProviderItems,
  credentialProviderListQuery,
  credentialProviderTestResult,
  credentialProviderUpdateParams,
} from '../../api/schemas/credentials.js';
import type { CredentialProviderCreateParams, CredentialProviderListParams, CredentialProviderUpdateParams } from '../../api/types.js';
import type { CredentialProviders } from '../host/credentials/index.js';
import { defaultEmptyBody } from './empty-body.js';
import { setPageHeaders } from './offset-paging.js';
import { idParams } from './params.js';
import { noBody, noContent, ok, page } from './responses.js';

export interface CredentialProviderRouteDeps {
  credentialProviders: CredentialProviders;
}

type IdParams = { id: string };

export function registerCredentialProviderRoutes(app: FastifyInstance, deps: CredentialProviderRouteDeps): void {
  const providers = deps.credentialProviders;
  const base = '/org/credential_providers';

  app.post<{ Body: CredentialProviderCreateParams }>(
    base,
    { schema: { body: credentialProviderCreateParams, response: ok('The new provider (its token is never shown)', credentialProvider) } },
    async (req) => providers.present(await providers.create(req.body)),
  );

  app.get<{ Querystring: Required<Pick<CredentialProviderListParams, 'offset' | 'limit'>> & CredentialProviderListParams }>(
    base,
    { schema: { querystring: credentialProviderListQuery, response: page('Credential providers', credentialProvider) } },
    async (req, reply) => {
      const q = req.query;
      const found = await providers.list({ query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, found.rows.length, found.hasMore);
      return found.rows.map((row) => providers.present(row));
    },
  );

  app.get<{ Params: IdParams }>(`${base}/:id`, { schema: { params: idParams, response: ok('The provider', credentialProvider) } }, async (req) =>
    providers.present(await providers.find(req.params.id)),
  );

  app.patch<{ Params: IdParams; Body: CredentialProviderUpdateParams }>(
    `${base}/:id`,
    {
      schema: { params: idParams, body: credentialProviderUpdateParams, response: ok('The provider as updated', credentialProvider) },
      preValidation: defaultEmptyBody,
    },
    async (req) => providers.present(await providers.update(await providers.find(req.params.id), req.body)),
  );

  app.delete<{ Params: IdParams }>(`${base}/:id`, { schema: { params: idParams, response: noContent('Deleted') } }, async (req, reply) => {
    await providers.delete(await providers.find(req.params.id));
    return reply.code(204).send();
  });

  app.get<{ Params: IdParams }>(
    `${base}/:id/items`,
    { schema: { params: idParams, response: ok('The items the token can read (cached for `cache_ttl_seconds`)', credentialProviderItems) } },
    async (req) => ({ items: await providers.items(await providers.find(req.params.id)) }),
  );

  app.post<{ Params: IdParams }>(
    `${base}/:id/test`,
    {
      schema: { params: idParams, response: ok('Whether the provider answers with this token, and the vaults it can read', credentialProviderTestResult) },
      config: noBody,
    },
    async (req) => providers.test(await providers.find(req.params.id)),
  );
}
