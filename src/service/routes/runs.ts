// /runs (ours): runs a runner reports as they go (`bcs run --report-to`), their scenario results and artifacts,
// lists of them and a scenario's history across runs. How runs are kept is host/runs/. JSON creates answer 200
// as the other groups' do; the upload answers 201 as POST /extensions does, and 200 when it was a retry of one
// already stored; a delete answers 204 as every DELETE of ours does.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { extensionRoute } from '../../api/schemas/common.js';
import {
  artifactUploadQuery,
  run,
  runArtifact,
  runArtifactIdParams,
  runCreateParams,
  runFinishParams,
  runIdParams,
  runListQuery,
  runResult,
  runResultIdParams,
  runResultParams,
  runWithResults,
  scenarioHistory,
  scenarioHistoryQuery,
} from '../../api/schemas/runs.js';
import type { ArtifactUploadParams, RunCreateParams, RunFinishParams, RunListParams, RunResultParams, ScenarioHistoryParams } from '../../api/types.js';
import type { ServiceContext } from '../context.js';
import { notFound } from '../host/errors.js';
import { showsInline } from '../host/runs/index.js';
import { setPageHeaders } from './offset-paging.js';
import { content, created, documentedBody, noContent, ok, page } from './responses.js';

type RunParams = { run_id: string };

/** A result carries every step of the scenario and its earlier attempts: far more than a create body. */
const RESULT_BODY_LIMIT = 16 * 1024 * 1024;

export function registerRunRoutes(app: FastifyInstance, ctx: Pick<ServiceContext, 'runs' | 'origins'>): void {
  const { runs, origins } = ctx;

  app.post<{ Body: RunCreateParams }>(
    '/runs',
    { schema: { ...extensionRoute, body: runCreateParams, response: ok('The new run: running until it is finished', run) } },
    async (req) => runs.presentRun(await runs.create(req.auth.projectId, req.body, 'body')),
  );

  app.get<{ Querystring: RunListParams & { offset: number; limit: number } }>(
    '/runs',
    { schema: { ...extensionRoute, querystring: runListQuery, response: page('Runs, newest first (by when they started)', run) } },
    async (req, reply) => {
      const { offset, limit, suite, branch, tag, status, trigger } = req.query;
      const found = await runs.list({ projectId: req.auth.projectId, suite, branch, tag, status, trigger, offset, limit });
      setPageHeaders(reply, offset, found.rows.length, found.hasMore);
      return found.rows.map((row) => runs.presentRun(row));
    },
  );

  app.get<{ Querystring: ScenarioHistoryParams & { limit: number } }>(
    '/runs/history',
    { schema: { ...extensionRoute, querystring: scenarioHistoryQuery, response: ok("A scenario's results across runs: rates, durations and its last failure", scenarioHistory) } },
    async (req) => runs.history(req.auth.projectId, req.query, origins.http(req)),
  );

  app.get<{ Params: RunParams }>(
    '/runs/:run_id',
    { schema: { ...extensionRoute, params: runIdParams, response: ok('The run with its results so far', runWithResults) } },
    async (req) => {
      const row = await runs.find(req.auth.projectId, req.params.run_id);
      return { ...runs.presentRun(row), results: await runs.results(row, origins.http(req)) };
    },
  );

  app.delete<{ Params: RunParams }>(
    '/runs/:run_id',
    { schema: { ...extensionRoute, params: runIdParams, response: noContent('Deleted, with its results and the files of its artifacts') } },
    async (req, reply) => {
      await runs.delete(await runs.find(req.auth.projectId, req.params.run_id));
      return reply.code(204).send();
    },
  );

  app.post<{ Params: RunParams; Body: RunResultParams }>(
    '/runs/:run_id/results',
    {
      schema: { ...extensionRoute, params: runIdParams, body: runResultParams, response: ok("A scenario's result, added to the run", runResult) },
      bodyLimit: RESULT_BODY_LIMIT,
    },
    async (req) => {
      const row = await runs.addResult(await runs.find(req.auth.projectId, req.params.run_id), req.body, 'body');
      return runs.presentResult(row, [], origins.http(req));
    },
  );

  app.post<{ Params: RunParams; Body: RunFinishParams }>(
    '/runs/:run_id/finish',
    { schema: { ...extensionRoute, params: runIdParams, body: runFinishParams, response: ok('The run as finished', run) } },
    async (req) => runs.presentRun(await runs.finish(await runs.find(req.auth.projectId, req.params.run_id), req.body, 'body')),
  );

  app.get<{ Params: RunParams & { artifact_id: string } }>(
    '/runs/:run_id/artifacts/:artifact_id',
    { schema: { ...extensionRoute, params: runArtifactIdParams, response: content('The artifact as uploaded', 'application/octet-stream') } },
    async (req, reply) => {
      const { row, path } = await runs.artifact(await runs.find(req.auth.projectId, req.params.run_id), req.params.artifact_id);
      if (!(await stat(path).catch(() => undefined))?.isFile()) throw notFound('artifact file', row.id);
      const filename = basename(row.name).replace(/[^A-Za-z0-9._-]/g, '_');
      return reply
        .type(row.content_type)
        .header('content-length', row.size_bytes)
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `${showsInline(row.content_type) ? 'inline' : 'attachment'}; filename="${filename}"`)
        .send(createReadStream(path));
    },
  );

  // The upload's body is the file whatever its content type, unparsed, so it streams to disk; its own scope
  // keeps that catch-all parser away from every other route.
  void app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_req, _payload, done) => done(null));
    raw.post<{ Params: RunParams & { result_id: string }; Querystring: ArtifactUploadParams }>(
      '/runs/:run_id/results/:result_id/artifacts',
      {
        schema: {
          ...extensionRoute,
          params: runResultIdParams,
          querystring: artifactUploadQuery,
          response: { ...created('The artifact, stored', runArtifact), ...ok('The same file was stored before under this name (a retried upload): the artifact as stored then', runArtifact) },
        },
        config: documentedBody('application/octet-stream', { type: 'string', format: 'binary' }, "The file's bytes as sent; what it is comes in the query"),
      },
      async (req, reply) => {
        const found = await runs.find(req.auth.projectId, req.params.run_id);
        const { row, stored } = await runs.addArtifact(found, req.params.result_id, req.query, req.raw, 'body');
        return reply.code(stored ? 201 : 200).send(runs.presentArtifact(row, origins.http(req)));
      },
    );
  });
}
