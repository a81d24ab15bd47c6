// /monitors (ours): suites deployed with `bcs monitor deploy`, whose checks the service runs on their schedules
// (host side: src/service/host/monitors/). Deploys are multipart (the folder's zip and the manifest); the rest is JSON.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { extensionRoute } from '../../api/schemas/common.js';
import {
  alertListQuery,
  checkIdParams,
  checkListQuery,
  monitorAlertRecord,
  monitorCheckState,
  monitorDeployMultipart,
  monitorDeployment,
  suiteNameParams,
  type MonitorStatus,
} from '../../api/schemas/monitors.js';
import type { ServiceContext } from '../context.js';
import { invalidField } from '../host/errors.js';
import { readMonitorDeploy } from '../host/monitors/index.js';
import { noBody, noContent, ok } from './responses.js';
import { acceptMultipart } from './uploads.js';

type CheckRequest = FastifyRequest<{ Params: { check_id: string } }>;

/** Upload limit of one suite's zip. */
const MAX_ZIP_BYTES = 256 * 1024 * 1024;
/** The manifest of 2,000 checks with their policies fits. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export function registerMonitorRoutes(app: FastifyInstance, ctx: Pick<ServiceContext, 'monitors'>): void {
  const { monitors } = ctx;

  void app.register(async (scope) => {
    await acceptMultipart(scope, { fileSize: MAX_ZIP_BYTES, files: 1, fields: 4, parts: 5, fieldSize: MAX_MANIFEST_BYTES });
    scope.post(
      '/monitors/deployments',
      {
        schema: { ...extensionRoute, response: ok("The suite as deployed: its checks, due at once when new or rescheduled", monitorDeployment) },
        config: { openapi: { consumes: ['multipart/form-data'], body: { description: "The suite folder's zip and its manifest", ...monitorDeployMultipart } } },
      },
      async (req) => {
        if (!req.isMultipart()) throw invalidField('body', 'send multipart/form-data: the zip as `file` and the manifest as `manifest`');
        const dir = await mkdtemp(join(tmpdir(), 'bcs-monitor-deploy-'));
        try {
          const { manifest, zipPath } = await readMonitorDeploy(req.parts(), dir, 'body');
          return await monitors.deploy(req.auth.projectId, manifest, zipPath, 'body');
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    );
  });

  app.delete<{ Params: { suite: string } }>(
    '/monitors/suites/:suite',
    { schema: { ...extensionRoute, params: suiteNameParams, response: noContent('The suite, its checks, their recent runs and alerts are gone (kept runs stay in /runs)') } },
    async (req, reply) => {
      await monitors.deleteSuite(req.auth.projectId, req.params.suite);
      return reply.code(204).send();
    },
  );

  app.get<{ Querystring: { suite?: string; status?: MonitorStatus; recent: number } }>(
    '/monitors/checks',
    { schema: { ...extensionRoute, querystring: checkListQuery, response: ok('Every check, by suite and name, with its state and latest runs', { type: 'array', items: monitorCheckState }) } },
    async (req) => monitors.list(req.auth.projectId, req.query),
  );

  app.get('/monitors/checks/:check_id', { schema: { ...extensionRoute, params: checkIdParams, response: ok('The check, its state and latest runs', monitorCheckState) } }, async (req: CheckRequest) =>
    monitors.get(req.auth.projectId, req.params.check_id),
  );

  const action = (path: string, description: string, act: (projectId: string | null, id: string) => Promise<unknown>) =>
    app.post(`/monitors/checks/:check_id/${path}`, { schema: { ...extensionRoute, params: checkIdParams, response: ok(description, monitorCheckState) }, config: noBody }, async (req: CheckRequest) =>
      act(req.auth.projectId, req.params.check_id),
    );
  action('pause', 'Paused: no run starts until it is resumed (one running now finishes)', (p, id) => monitors.pause(p, id));
  action('resume', 'Resumed: due at its next scheduled time', (p, id) => monitors.resume(p, id));
  action('trigger', 'Due now, outside its schedule (its next scheduled run stays)', (p, id) => monitors.trigger(p, id));

  app.get<{ Querystring: { check_id?: string; limit: number } }>(
    '/monitors/alerts',
    { schema: { ...extensionRoute, querystring: alertListQuery, response: ok('Alerts raised, newest first, with how each channel took them', { type: 'array', items: monitorAlertRecord }) } },
    async (req) => monitors.alerts(req.auth.projectId, req.query.check_id, req.query.limit),
  );
}
