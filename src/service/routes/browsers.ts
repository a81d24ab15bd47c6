// /browsers: create, list, retrieve, update and delete browser sessions.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BrowserCreateParams, BrowserListParams, BrowserUpdateParams } from '../../api/types.js';
import { conflict } from '../errors.js';
import { defaultEmptyBody } from './empty-body.js';
import { findSessionRow } from './lookup.js';
import { prepareProfileLoad } from '../host/profiles/index.js';
import { presentSession, presentSessions } from '../host/browsers/index.js';
import type { ServiceContext } from '../context.js';
import type { BrowserRow } from '../store/browsers-repo.js';
import { browserCreateParams, browserListQuery, browserSession, browserUpdateParams } from '../../api/schemas/browsers.js';
import { noContent, ok, page } from './responses.js';
import { setPageHeaders } from './offset-paging.js';
import { idOrNameParams, type IdOrNameParams as IdParams } from './params.js';
import { UniqueViolation } from '../store/unique.js';
import { POLICY_BODY_LIMIT } from './body-limits.js';
import { clientGoneSignal } from './long-requests.js';

const updateBody = browserUpdateParams;
const listQuery = browserListQuery;

const retrieveQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { include_deleted: { type: 'boolean' } },
} as const;

export function registerBrowserRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const { browsers: repo, sessions } = ctx;
  const present = (req: FastifyRequest, row: BrowserRow) => presentSession(row, ctx.origins.ws(req), ctx);

  const find = (req: FastifyRequest, idOrName: string, includeDeleted = false) => findSessionRow(repo, req, idOrName, includeDeleted);

  app.post<{ Body: BrowserCreateParams }>(
    '/browsers',
    { schema: { body: browserCreateParams, response: ok('The new session', browserSession) }, preValidation: defaultEmptyBody, bodyLimit: POLICY_BODY_LIMIT },
    async (req, reply) => {
      // A create waiting for a slot on a full host leaves the line when its client goes: no browser for nobody.
      return present(req, await ctx.browserLauncher.create(req.auth.projectId, req.body, 'body', clientGoneSignal(reply)));
    },
  );

  app.get<{ Querystring: BrowserListParams & { include_deleted?: boolean; offset: number; limit: number } }>(
    '/browsers',
    { schema: { querystring: listQuery, response: page('Sessions, oldest first', browserSession) } },
    async (req, reply: FastifyReply) => {
      const q = req.query;
      const status = q.status ?? (q.include_deleted ? 'all' : 'active');
      const page = await repo.list({
        projectId: req.auth.projectId,
        status,
        query: q.query,
        tags: q.tags,
        kept: q.kept,
        offset: q.offset,
        limit: q.limit,
      });
      setPageHeaders(reply, q.offset, page.rows.length, page.hasMore);
      return presentSessions(page.rows, ctx.origins.ws(req), ctx);
    },
  );

  app.get<{ Params: IdParams; Querystring: { include_deleted?: boolean } }>(
    '/browsers/:id_or_name',
    { schema: { params: idOrNameParams, querystring: retrieveQuery, response: ok('The session', browserSession) } },
    async (req) => {
      const row = await find(req, req.params.id_or_name, req.query.include_deleted ?? false);
      sessions.touch(row.id);
      return present(req, row);
    },
  );

  app.patch<{ Params: IdParams; Body: BrowserUpdateParams }>(
    '/browsers/:id_or_name',
    { schema: { params: idOrNameParams, body: updateBody, response: ok('The session as updated', browserSession) }, preValidation: defaultEmptyBody },
    async (req) => {
      const row = await find(req, req.params.id_or_name);
      const { name, tags: newTags, profile } = req.body;
      // Every part is checked before any is applied; loading a profile (a restart) comes last.
      const applyTelemetry = ctx.telemetry?.prepareUpdate(row.id, req.body.telemetry, 'body.telemetry');
      const applyProxy = await ctx.proxies?.prepareUpdate(req.auth.projectId, row.id, sessions.get(row.id)?.proxy, req.body, 'body');
      const loadProfile = profile && (await prepareProfileLoad({ profiles: ctx.profiles, browsers: repo, sessions }, row, profile, 'body.profile'));
      try {
        await repo.update(row.id, { name: name === undefined ? undefined : name || null, tags: newTags });
      } catch (err) {
        if (err instanceof UniqueViolation) {
          throw conflict(`a browser named '${name}' is already active in this project`);
        }
        throw err;
      }
      await applyTelemetry?.();
      await applyProxy?.();
      await loadProfile?.();
      sessions.touch(row.id);
      return present(req, (await repo.get(row.id))!);
    },
  );

  app.delete<{ Params: IdParams }>(
    '/browsers/:id_or_name',
    { schema: { params: idOrNameParams, response: noContent('Ended: its Chromium and processes are gone') } },
    async (req, reply) => {
      const row = await find(req, req.params.id_or_name);
      await sessions.end(row.id, 'deleted', 'deleted through the API');
      return reply.code(204).send();
    },
  );
}
