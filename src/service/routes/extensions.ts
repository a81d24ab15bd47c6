// /extensions: upload (multipart zip of an unpacked extension), list, metadata, download of the zip as
// uploaded, and delete. How browsers load them is host/extensions/extensions.ts.
import { extension } from '../../api/schemas/extensions.js';
import { errorBody } from '../../api/schemas/common.js';
import { content, created, documentedBody, noContent, ok, page } from './responses.js';
import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { ServiceError, invalidField } from '../errors.js';
import type { ExtensionStore } from '../host/extensions/index.js';
import { setPageHeaders } from './offset-paging.js';
import { acceptMultipart } from './uploads.js';
import { idOrNameParams, namedListQuery as listQuery, type IdOrNameParams as IdParams } from './params.js';

export interface ExtensionRouteDeps {
  extensions: ExtensionStore;
}

/** Upload limit of one extension zip. The hosted limit is not documented; Chrome Web Store packages stay far below. */
const MAX_ZIP_BYTES = 256 * 1024 * 1024;

const chromeStoreQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    os: { type: 'string', enum: ['win', 'mac', 'linux'] },
  },
} as const;

export function registerExtensionRoutes(app: FastifyInstance, deps: ExtensionRouteDeps): void {
  const { extensions } = deps;
  const find = (projectId: string | null, idOrName: string) => extensions.find(projectId, idOrName);

  void app.register(async (scope) => {
    await acceptMultipart(scope, { fileSize: MAX_ZIP_BYTES, files: 1, fields: 4, parts: 5, fieldSize: 1024 });
    scope.post(
      '/extensions',
      {
        schema: { response: created('The uploaded extension', extension) },
        config: documentedBody(
          'multipart/form-data',
          {
            type: 'object',
            required: ['file'],
            properties: {
              file: { type: 'string', format: 'binary', description: 'A zip of the unpacked extension (manifest.json at its root or in one top folder)' },
              name: { type: 'string', description: 'A name, unique in the project' },
            },
          },
          'The extension zip and an optional name',
        ),
      },
      async (req, reply) => {
        if (!req.isMultipart()) throw invalidField('body', 'must be multipart/form-data with a file part (the zip) and an optional name');
        const row = await extensions.upload(req.auth.projectId, req.parts(), 'body');
        return reply.code(201).send(extensions.present(row));
      },
    );
  });

  app.get<{ Querystring: { offset: number; limit: number; name?: string; query?: string } }>(
    '/extensions',
    { schema: { querystring: listQuery, response: page('Uploaded extensions', extension) } },
    async (req, reply) => {
      const q = req.query;
      const page = await extensions.list({ projectId: req.auth.projectId, name: q.name, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, page.rows.length, page.hasMore);
      return page.rows.map((row) => extensions.present(row));
    },
  );

  // Registered so the path is not read as an extension named from_chrome_store; this host has no route to the store.
  app.get(
    '/extensions/from_chrome_store',
    { schema: { querystring: chromeStoreQuery, response: { 400: { description: 'Always: this host cannot reach the Chrome Web Store', ...errorBody } } } },
    async () => {
      throw new ServiceError(
        400,
        'chrome_store_unavailable',
        'this service cannot reach the Chrome Web Store; download the extension as a zip of its unpacked folder and upload it with POST /extensions',
      );
    },
  );

  app.get<{ Params: IdParams }>('/extensions/:id_or_name/metadata', { schema: { params: idOrNameParams, response: ok('The extension', extension) } }, async (req) =>
    extensions.present(await find(req.auth.projectId, req.params.id_or_name)),
  );

  app.get<{ Params: IdParams }>('/extensions/:id_or_name', { schema: { params: idOrNameParams, response: content('The zip as uploaded', 'application/zip') } }, async (req, reply) => {
    const row = await find(req.auth.projectId, req.params.id_or_name);
    return reply
      .type('application/zip')
      .header('content-length', row.size_bytes)
      .header('content-disposition', `attachment; filename="${row.name ?? row.id}.zip"`)
      .send(createReadStream(extensions.zipPath(row.id)));
  });

  app.delete<{ Params: IdParams }>('/extensions/:id_or_name', { schema: { params: idOrNameParams, response: noContent('Deleted') } }, async (req, reply) => {
    await extensions.delete(await find(req.auth.projectId, req.params.id_or_name));
    return reply.code(204).send();
  });
}
