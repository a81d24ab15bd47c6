// /deployments, /apps and /invocations: deploying app code, listing the apps it registered, invoking their
// actions and following both. The work is host/apps/; these only hand over input and shape answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  appListQuery,
  appVersion,
  deployment,
  deploymentCreateParams,
  deploymentEvent,
  deploymentListQuery,
  deploymentMultipart,
  followQuery,
  invocation,
  invocationCreateParams,
  invocationEvent,
  invocationListQuery,
  invocationUpdateParams,
  type AppListQuery,
  type DeploymentListQuery,
  type InvocationCreateParams,
  type InvocationListQuery,
  type InvocationUpdateParams,
} from '../../api/schemas/apps.js';
import { browserSession } from '../../api/schemas/browsers.js';
import type { ServiceContext } from '../context.js';
import { deploymentSettled, invocationSettled } from '../host/apps/index.js';
import { presentSessions } from '../host/browsers/index.js';
import type { StoredEvent } from '../host/event-log.js';
import { followEvents, type FollowOptions } from './follow-events.js';
import { setPageHeaders } from './offset-paging.js';
import { idParams } from './params.js';
import { eventStream, noContent, ok, page } from './responses.js';
import { parseInstant } from './instants.js';
import { acceptMultipart } from './uploads.js';

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

/** Upload limit of one deployment zip. */
const MAX_ZIP_BYTES = 512 * 1024 * 1024;

export function registerAppRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const { deployments, invocations, events, now } = ctx;

  void app.register(async (scope) => {
    await acceptMultipart(scope, { fileSize: MAX_ZIP_BYTES, files: 1, fields: 250, parts: 260, fieldSize: 64 * 1024 });
    scope.post(
      '/deployments',
      {
        schema: { response: ok('The deployment, queued: follow GET /deployments/{id}/events for its build', deployment) },
        config: documentedDeployBody,
      },
      async (req) => {
        const row = req.isMultipart()
          ? await deployments.createFromParts(req.auth.projectId, req.parts(), 'body')
          : deployments.createFromJson(req.body, 'body');
        return deployments.present(row);
      },
    );
  });

  app.get<{ Querystring: DeploymentListQuery & { offset: number; limit: number } }>(
    '/deployments',
    { schema: { querystring: deploymentListQuery, response: page('Deployments, newest first', deployment) } },
    async (req, reply) => {
      const q = req.query;
      const result = await deployments.list({ projectId: req.auth.projectId, appName: q.app_name, appVersion: q.app_version, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, result.rows.length, result.hasMore);
      return result.rows.map((row) => deployments.present(row));
    },
  );

  app.get('/deployments/:id', { schema: { params: idParams, response: ok('The deployment', deployment) } }, async (req: IdRequest) =>
    deployments.present(await deployments.get(req.auth.projectId, req.params.id)),
  );

  app.delete('/deployments/:id', { schema: { params: idParams, response: noContent('Stopped (or already ended)') } }, async (req: IdRequest, reply) => {
    await deployments.stop(await deployments.get(req.auth.projectId, req.params.id));
    return reply.code(204).send();
  });

  app.get<{ Params: { id: string }; Querystring: { since?: string } }>(
    '/deployments/:id/events',
    { schema: { params: idParams, querystring: followQuery, response: eventStream('Build logs and states until the deployment settles', deploymentEvent) } },
    async (req, reply) => {
      const row = await deployments.get(req.auth.projectId, req.params.id);
      await follow(req, reply, row.id, {
        isEnd: (e) => e.event === 'deployment_state' && deploymentSettled((e.deployment as { status: string }).status),
        settledState: async () => {
          const current = await deployments.get(req.auth.projectId, row.id);
          return deploymentSettled(current.status) ? stateEvent('deployment_state', { deployment: deployments.present(current) }) : null;
        },
      });
    },
  );

  app.get<{ Querystring: AppListQuery & { offset: number; limit: number } }>(
    '/apps',
    { schema: { querystring: appListQuery, response: page('Deployed app versions, newest first', appVersion) } },
    async (req, reply) => {
      const q = req.query;
      const result = await deployments.listApps({ projectId: req.auth.projectId, appName: q.app_name, version: q.version, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, result.rows.length, result.hasMore);
      return Promise.all(result.rows.map((row) => deployments.presentApp(row)));
    },
  );

  app.post<{ Body: InvocationCreateParams }>(
    '/invocations',
    {
      schema: {
        body: invocationCreateParams,
        response: {
          ...ok('The finished invocation with its output (synchronous)', invocation),
          202: { description: 'Queued (async: true); follow GET /invocations/{id}/events', ...invocation },
        },
      },
    },
    async (req, reply) => {
      const { row, done } = await invocations.create(req.auth.projectId, req.body, 'body');
      if (req.body.async) return reply.code(202).send(invocations.present(row));
      await done;
      return invocations.present(await invocations.get(req.auth.projectId, row.id));
    },
  );

  app.get<{ Querystring: InvocationListQuery & { offset: number; limit: number } }>(
    '/invocations',
    { schema: { querystring: invocationListQuery, response: page('Invocations, newest first', invocation) } },
    async (req, reply) => {
      const q = req.query;
      const sinceMs = q.since === undefined ? undefined : Math.floor(parseInstant(q.since, 'querystring.since', now().getTime()) / 1000);
      const result = await invocations.list({
        projectId: req.auth.projectId,
        appName: q.app_name,
        actionName: q.action_name,
        deploymentId: q.deployment_id,
        status: q.status,
        version: q.version,
        sinceMs,
        query: q.query,
        offset: q.offset,
        limit: q.limit,
      });
      setPageHeaders(reply, q.offset, result.rows.length, result.hasMore);
      return result.rows.map((row) => invocations.present(row));
    },
  );

  app.get('/invocations/:id', { schema: { params: idParams, response: ok('The invocation', invocation) } }, async (req: IdRequest) =>
    invocations.present(await invocations.get(req.auth.projectId, req.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: InvocationUpdateParams }>(
    '/invocations/:id',
    { schema: { params: idParams, body: invocationUpdateParams, response: ok('The ended invocation', invocation) } },
    async (req) => invocations.present(await invocations.update(req.auth.projectId, req.params.id, req.body, 'body')),
  );

  app.get<{ Params: { id: string }; Querystring: { since?: string } }>(
    '/invocations/:id/events',
    { schema: { params: idParams, querystring: followQuery, response: eventStream("The action's output and states until it ends", invocationEvent) } },
    async (req, reply) => {
      const row = await invocations.get(req.auth.projectId, req.params.id);
      await follow(req, reply, row.id, {
        isEnd: (e) => e.event === 'invocation_state' && invocationSettled((e.invocation as { status: string }).status),
        settledState: async () => {
          const current = await invocations.get(req.auth.projectId, row.id);
          if (!invocationSettled(current.status)) return null;
          const { deployment_id: _d, ...state } = invocations.present(current);
          return stateEvent('invocation_state', { invocation: state });
        },
      });
    },
  );

  const browsersBody = { type: 'object', required: ['browsers'], properties: { browsers: { type: 'array', items: browserSession } } } as const;
  app.get('/invocations/:id/browsers', { schema: { params: idParams, response: ok('Active browsers created for the invocation', browsersBody) } }, async (req: IdRequest) => {
    const rows = (await Promise.all((await invocations.browsers(req.auth.projectId, req.params.id)).map((id) => ctx.browsers.get(id)))).filter((row) => row !== undefined);
    return { browsers: await presentSessions(rows, ctx.origins.ws(req), ctx) };
  });

  app.delete('/invocations/:id/browsers', { schema: { params: idParams, response: noContent('Ended') } }, async (req: IdRequest, reply: FastifyReply) => {
    await invocations.deleteBrowsers(req.auth.projectId, req.params.id);
    return reply.code(204).send();
  });

  /** The event stream of a deployment or invocation, from the request's `since`. */
  function follow(req: FastifyRequest<{ Querystring: { since?: string } }>, reply: FastifyReply, ownerId: string, end: Pick<FollowOptions, 'isEnd' | 'settledState'>) {
    return followEvents(req, reply, { events, ownerId, since: req.query.since, now, heartbeatMs: ctx.heartbeatMs, ...end });
  }

  function stateEvent(event: string, fields: Record<string, unknown>): StoredEvent {
    return { event, ...fields, timestamp: now().toISOString() };
  }
}

/** POST /deployments reads its own body: multipart with the zip, or JSON for a (refused) GitHub source. */
const documentedDeployBody = {
  openapi: {
    consumes: ['multipart/form-data', 'application/json'],
    body: { description: 'The zip and its settings (multipart), or a GitHub `source` (JSON)', oneOf: [deploymentMultipart, deploymentCreateParams] },
  },
} as const;
