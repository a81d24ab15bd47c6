// /credentials: create, list, retrieve, update and delete the caller's project's credentials (by id or
// name), and the current TOTP code of one. Values and secrets go in and never come out.
import type { FastifyInstance } from 'fastify';
import {
  credential,
  credentialCreateParams,
  credentialListQuery,
  credentialUpdateParams,
  totpCode,
} from '../../api/schemas/credentials.js';
import type { CredentialCreateParams, CredentialListParams, CredentialUpdateParams } from '../../api/types.js';
import type { CredentialStore } from '../host/credentials/index.js';
import { defaultEmptyBody } from './empty-body.js';
import { setPageHeaders } from './offset-paging.js';
import { idOrNameParams, type IdOrNameParams } from './params.js';
import { noContent, ok, page } from './responses.js';

export interface CredentialRouteDeps {
  credentials: CredentialStore;
}

export function registerCredentialRoutes(app: FastifyInstance, deps: CredentialRouteDeps): void {
  const { credentials } = deps;

  app.post<{ Body: CredentialCreateParams }>(
    '/credentials',
    { schema: { body: credentialCreateParams, response: ok('The new credential (with the current code when a TOTP secret was given)', credential) } },
    async (req) => credentials.present(await credentials.create(req.auth.projectId, req.body, 'body'), { single: true, withTotpCode: true }),
  );

  app.get<{ Querystring: Required<Pick<CredentialListParams, 'offset' | 'limit'>> & CredentialListParams }>(
    '/credentials',
    { schema: { querystring: credentialListQuery, response: page('Credentials, without their values or value keys', credential) } },
    async (req, reply) => {
      const q = req.query;
      const found = await credentials.list({ projectId: req.auth.projectId, domain: q.domain, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, found.rows.length, found.hasMore);
      return found.rows.map((row) => credentials.present(row));
    },
  );

  app.get<{ Params: IdOrNameParams }>(
    '/credentials/:id_or_name',
    { schema: { params: idOrNameParams, response: ok('The credential and the names of its values', credential) } },
    async (req) => credentials.present(await credentials.find(req.auth.projectId, req.params.id_or_name), { single: true }),
  );

  app.patch<{ Params: IdOrNameParams; Body: CredentialUpdateParams }>(
    '/credentials/:id_or_name',
    {
      schema: { params: idOrNameParams, body: credentialUpdateParams, response: ok('The credential as updated', credential) },
      preValidation: defaultEmptyBody,
    },
    async (req) => {
      const row = await credentials.update(await credentials.find(req.auth.projectId, req.params.id_or_name), req.body, 'body');
      return credentials.present(row, { single: true, withTotpCode: Boolean(req.body.totp_secret?.trim()) });
    },
  );

  app.delete<{ Params: IdOrNameParams }>(
    '/credentials/:id_or_name',
    { schema: { params: idOrNameParams, response: noContent('Deleted with its values') } },
    async (req, reply) => {
      await credentials.delete(await credentials.find(req.auth.projectId, req.params.id_or_name));
      return reply.code(204).send();
    },
  );

  app.get<{ Params: IdOrNameParams }>(
    '/credentials/:id_or_name/totp-code',
    { schema: { params: idOrNameParams, response: ok('The current code and when it stops being valid', totpCode) } },
    async (req) => credentials.totpCode(await credentials.find(req.auth.projectId, req.params.id_or_name)),
  );
}
