// POST /browsers/{id}/extensions: unpacked extension zips loaded into a running browser (the SDK's
// browsers.loadExtensions), which restarts its Chromium with them (host/extensions/session-load.ts).
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { invalidField } from '../errors.js';
import { MAX_LOADED_EXTENSIONS, loadIntoSession } from '../host/extensions/index.js';
import { liveSession, sessionParams } from './lookup.js';
import { documentedBody, noContent } from './responses.js';
import { acceptMultipart } from './uploads.js';

/** Per zip, as for uploaded extensions (routes/extensions.ts). */
const MAX_ZIP_BYTES = 256 * 1024 * 1024;

const body = {
  type: 'object',
  required: ['extensions'],
  properties: {
    extensions: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_LOADED_EXTENSIONS,
      description: 'Sent as extensions[N][name] and extensions[N][zip_file] parts',
      items: {
        type: 'object',
        required: ['name', 'zip_file'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,255}$', description: 'The folder under /home/kernel/extensions; one of that name is replaced' },
          zip_file: { type: 'string', format: 'binary', description: 'A zip of the unpacked extension (manifest.json at its root or in one top folder)' },
        },
      },
    },
  },
} as const;

export function registerBrowserExtensionRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  void app.register(async (scope) => {
    const parts = MAX_LOADED_EXTENSIONS * 2;
    await acceptMultipart(scope, { fileSize: MAX_ZIP_BYTES, files: MAX_LOADED_EXTENSIONS, fields: MAX_LOADED_EXTENSIONS, parts, fieldSize: 1024 });
    scope.post<{ Params: { id: string } }>(
      '/browsers/:id/extensions',
      {
        schema: { params: sessionParams, response: noContent("Loaded: Chromium was restarted with them and listens again; the session's id and CDP URL are unchanged") },
        config: documentedBody('multipart/form-data', body, 'The extensions to load, each a name and a zip'),
      },
      async (req, reply) => {
        const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
        if (!req.isMultipart()) throw invalidField('body', 'must be multipart/form-data with extensions[N][name] and extensions[N][zip_file] parts');
        ctx.extensions.checkAvailable();
        await loadIntoSession(ctx.sessions, session.id, req.parts(), ctx.extensions.stagingRoot, 'body');
        return reply.code(204).send();
      },
    );
  });
}
