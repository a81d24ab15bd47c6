// /auth/connections: managed auth. CRUD of connections (by id, within the caller's project), starting a
// login flow, submitting what it asks for, following its state, and the timeline of logins and checks.
import type { FastifyInstance } from 'fastify';
import {
  connectionCreateParams,
  connectionListQuery,
  connectionUpdateParams,
  loginParams,
  loginResponse,
  managedAuth,
  managedAuthStateEvent,
  submitParams,
  submitResponse,
  timelineEvent,
  timelineQuery,
} from '../../api/schemas/auth-connections.js';
import type { ConnectionCreateParams, ConnectionListParams, ConnectionUpdateParams, LoginParams, SubmitParams } from '../../api/schemas/auth-connections.js';
import type { ServiceContext } from '../context.js';
import { conflict } from '../host/errors.js';
import type { ConnectionRow } from '../store/auth-connections-repo.js';
import { defaultEmptyBody } from './empty-body.js';
import { registerHostedAuthPage } from './auth-hosted.js';
import { followEvents } from './follow-events.js';
import { setPageHeaders } from './offset-paging.js';
import { idParams } from './params.js';
import { eventStream, noContent, ok, page } from './responses.js';

type IdParams = { id: string };
type Paged = { offset: number; limit: number };

const followQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

export function registerAuthConnectionRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const { authConnections: connections, loginFlows: flows } = ctx;
  const present = async (row: ConnectionRow) => {
    const out = connections.present(row, (r) => (r.flow && !flows.isTerminal(r.flow) ? ctx.hostedUrl(r.id, r.flow.handoff_code) : null));
    // While a flow runs, its browser can be watched (or helped) through the live view.
    const flowBrowser = row.flow && !flows.isTerminal(row.flow) ? row.flow.browser_session_id : null;
    if (flowBrowser && ctx.sessions.get(flowBrowser)) out.live_view_url = ctx.liveViewUrl(flowBrowser);
    const site = await ctx.siteConfigs.match(row.project_id, row.domain);
    return site ? { ...out, site_config_id: site.id } : out;
  };
  const base = '/auth/connections';
  registerHostedAuthPage(app, ctx);

  app.post<{ Body: ConnectionCreateParams }>(
    base,
    { schema: { body: connectionCreateParams, response: ok('The new connection (its profile created when missing)', managedAuth) } },
    async (req) => present(await connections.create(req.auth.projectId, req.body, 'body')),
  );

  app.get<{ Querystring: ConnectionListParams & Paged }>(
    base,
    { schema: { querystring: connectionListQuery, response: page('Auth connections', managedAuth) } },
    async (req, reply) => {
      const q = req.query;
      const found = await connections.list({ projectId: req.auth.projectId, domain: q.domain, profileName: q.profile_name, query: q.query, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, found.rows.length, found.hasMore);
      return Promise.all(found.rows.map(present));
    },
  );

  app.get<{ Params: IdParams }>(`${base}/:id`, { schema: { params: idParams, response: ok('The connection and its current flow', managedAuth) } }, async (req) =>
    present(await connections.find(req.auth.projectId, req.params.id)),
  );

  app.patch<{ Params: IdParams; Body: ConnectionUpdateParams }>(
    `${base}/:id`,
    { schema: { params: idParams, body: connectionUpdateParams, response: ok('The connection as updated', managedAuth) }, preValidation: defaultEmptyBody },
    async (req) => present(await connections.update(await connections.find(req.auth.projectId, req.params.id), req.body, 'body')),
  );

  app.delete<{ Params: IdParams }>(
    `${base}/:id`,
    { schema: { params: idParams, response: noContent('Deleted; a login flow in progress is cancelled and its browser ended') } },
    async (req, reply) => {
      const row = await connections.find(req.auth.projectId, req.params.id);
      await flows.stop(row.id, 'CANCELED', 'connection_deleted', 'the auth connection was deleted');
      await connections.remove(row);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams; Body: LoginParams }>(
    `${base}/:id/login`,
    {
      schema: { params: idParams, body: loginParams, response: ok('The flow started (or the one already in progress)', loginResponse) },
      preValidation: defaultEmptyBody,
    },
    async (req) => {
      const row = await connections.find(req.auth.projectId, req.params.id);
      return flows.start(row, 'LOGIN', await connections.loginOverrides(row, req.body, 'body'));
    },
  );

  app.post<{ Params: IdParams; Body: SubmitParams }>(
    `${base}/:id/submit`,
    { schema: { params: idParams, body: submitParams, response: ok('Whether the flow took the input', submitResponse) }, preValidation: defaultEmptyBody },
    async (req) => flows.submit(await connections.find(req.auth.projectId, req.params.id), req.body),
  );

  app.get<{ Params: IdParams }>(
    `${base}/:id/events`,
    {
      schema: {
        params: idParams,
        querystring: followQuery,
        response: eventStream('The current flow\'s states from its start, live, until it ends; `sse_heartbeat` in between', managedAuthStateEvent),
      },
    },
    async (req, reply) => {
      const row = await connections.find(req.auth.projectId, req.params.id);
      const flow = row.flow;
      if (!flow) throw conflict(`auth connection '${row.id}' has had no login flow; start one with POST ${base}/${row.id}/login`);
      return followEvents(req, reply, {
        events: ctx.events,
        ownerId: flow.id,
        now: ctx.now,
        heartbeatMs: ctx.heartbeatMs,
        isEnd: (event) => flows.isTerminal({ status: event.flow_status as typeof flow.status }),
        settledState: async () => {
          const latest = await connections.get(row.id);
          const settled = latest?.flow;
          return settled?.id === flow.id && flows.isTerminal(settled) ? flows.stateEvent(row.id, settled, latest!.post_login_url) : null;
        },
      });
    },
  );

  app.get<{ Params: IdParams; Querystring: { type?: string } & Paged }>(
    `${base}/:id/timeline`,
    { schema: { params: idParams, querystring: timelineQuery, response: page('Logins, re-logins and health checks, newest first', timelineEvent) } },
    async (req, reply) => {
      const row = await connections.find(req.auth.projectId, req.params.id);
      const q = req.query;
      const found = await connections.timeline(row, { type: q.type, offset: q.offset, limit: q.limit });
      setPageHeaders(reply, q.offset, found.rows.length, found.hasMore);
      return found.rows;
    },
  );
}
