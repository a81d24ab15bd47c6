// /browsers/{id}/recording/codegen (ours): records a scenario while someone uses the session's browser
// through its live view, and answers it as YAML (host/codegen/). POST starts, GET reads what is recorded so
// far, DELETE stops; a stopped recording stays readable until the next one starts or the session ends.
import type { FastifyInstance } from 'fastify';
import { codegenRecording, codegenStartParams, type CodegenStartParams } from '../../api/schemas/codegen.js';
import { extensionRoute } from '../../api/schemas/common.js';
import type { ServiceContext } from '../context.js';
import { DEFAULT_VIEWPORT } from '../host/browser/index.js';
import { findSessionRow, liveSession, sessionParams } from './lookup.js';
import { defaultEmptyBody } from './empty-body.js';
import { ok } from './responses.js';

type Params = { Params: { id: string } };

const PATH = '/browsers/:id/recording/codegen';

export function registerCodegenRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<Params & { Body: CodegenStartParams }>(
    PATH,
    {
      schema: { ...extensionRoute, params: sessionParams, body: codegenStartParams, response: ok('The recording, started: drive the page through the live view', codegenRecording) },
      preValidation: defaultEmptyBody,
    },
    async (req) => {
      const row = await findSessionRow(ctx.browsers, req, req.params.id);
      const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
      const { width, height } = row.viewport ?? DEFAULT_VIEWPORT;
      return ctx.codegen.start(session, { name: req.body.name, url: req.body.url, viewport: { width, height } }, { url: 'body.url' });
    },
  );

  app.get<Params>(PATH, { schema: { ...extensionRoute, params: sessionParams, response: ok('What is recorded so far (or was, when it stopped)', codegenRecording) } }, async (req) => {
    const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
    return ctx.codegen.get(session.id, req.params.id);
  });

  app.delete<Params>(PATH, { schema: { ...extensionRoute, params: sessionParams, response: ok('The recording as it stopped', codegenRecording) } }, async (req) => {
    const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
    return ctx.codegen.stop(session.id, req.params.id);
  });
}
