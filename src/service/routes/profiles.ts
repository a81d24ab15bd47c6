// /profiles: create, list, retrieve, rename and delete browser profiles, and download one as a tar of its
// user data. How browsers load and save them is host/profiles/profiles.ts.
import { createZstdCompress } from 'node:zlib';
import { profile, profileCreateParams, profileUpdateParams } from '../../api/schemas/profiles.js';
import { noContent, ok, page } from './responses.js';
import type { FastifyInstance } from 'fastify';
import type { ProfileCreateParams, ProfileUpdateParams } from '../../api/types.js';
import { ServiceError } from '../errors.js';
import type { ProfileStore } from '../host/profiles/index.js';
import { defaultEmptyBody } from './empty-body.js';
import { setPageHeaders } from './offset-paging.js';
import { idOrNameParams, namedListQuery as listQuery, type IdOrNameParams as IdParams } from './params.js';

export interface ProfileRouteDeps {
  profiles: ProfileStore;
}

const createBody = profileCreateParams;
const updateBody = profileUpdateParams;

const binary = { schema: { type: 'string', format: 'binary' } };
const tarOrZst = {
  200: { description: "The profile's user data folder as a tar archive, zstd-compressed with format=tar.zst", content: { 'application/x-tar': binary, 'application/zstd': binary } },
} as const;

const downloadQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { format: { type: 'string', enum: ['tar.zst', 'tar'] } },
} as const;

export function registerProfileRoutes(app: FastifyInstance, deps: ProfileRouteDeps): void {
  const { profiles } = deps;

  app.post<{ Body: ProfileCreateParams }>('/profiles', { schema: { body: createBody, response: ok('The new profile, empty until a browser saves into it', profile) }, preValidation: defaultEmptyBody }, async (req) =>
    profiles.present(await profiles.create(req.auth.projectId, req.body.name)),
  );

  app.get<{ Querystring: { offset: number; limit: number; name?: string; query?: string } }>(
    '/profiles',
    { schema: { querystring: listQuery, response: page('Profiles', profile) } },
    async (req, reply) => {
      const q = req.query;
      const page = await profiles.list({ projectId: req.auth.projectId, name: q.name, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, page.rows.length, page.hasMore);
      return page.rows.map((row) => profiles.present(row));
    },
  );

  app.get<{ Params: IdParams }>('/profiles/:id_or_name', { schema: { params: idOrNameParams, response: ok('The profile', profile) } }, async (req) =>
    profiles.present(await profiles.find(req.auth.projectId, req.params.id_or_name)),
  );

  app.patch<{ Params: IdParams; Body: ProfileUpdateParams }>(
    '/profiles/:id_or_name',
    { schema: { params: idOrNameParams, body: updateBody, response: ok('The profile as renamed', profile) } },
    async (req) => profiles.present(await profiles.rename(await profiles.find(req.auth.projectId, req.params.id_or_name), req.body.name)),
  );

  app.delete<{ Params: IdParams }>('/profiles/:id_or_name', { schema: { params: idOrNameParams, response: noContent('Deleted with its stored state') } }, async (req, reply) => {
    await profiles.delete(await profiles.find(req.auth.projectId, req.params.id_or_name));
    return reply.code(204).send();
  });

  app.get<{ Params: IdParams; Querystring: { format?: 'tar.zst' | 'tar' } }>(
    '/profiles/:id_or_name/download',
    { schema: { params: idOrNameParams, querystring: downloadQuery, response: tarOrZst } },
    async (req, reply) => {
      const row = await profiles.find(req.auth.projectId, req.params.id_or_name);
      const zstd = req.query.format === 'tar.zst';
      // zstd is in Node's zlib from 22.15 on; an older 22 (engines allow 22.12) serves plain tar only.
      if (zstd && typeof createZstdCompress !== 'function') {
        throw new ServiceError(400, 'format_unavailable', `this service's Node (${process.version}) has no zstd; ask for format=tar (the default here)`);
      }
      const tar = await profiles.download(row, (msg, err) => req.log.warn({ err }, msg));
      const filename = `${row.name ?? row.id}.tar${zstd ? '.zst' : ''}`;
      reply.header('content-disposition', `attachment; filename="${filename}"`);
      if (!zstd) return reply.type('application/x-tar').send(tar);
      const compressed = createZstdCompress();
      tar.on('error', (err) => compressed.destroy(err));
      return reply.type('application/zstd').send(tar.pipe(compressed));
    },
  );
}
