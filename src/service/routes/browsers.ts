// /browsers: create, list, retrieve, update and delete browser sessions.
import { liveViewPageUrl } from '../host/live/index.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {
  BrowserCreateParams,
  BrowserListParams,
  BrowserPoolRef,
  BrowserSession,
  BrowserUpdateParams,
} from '../../api/types.js';
import { ServiceError, conflict } from '../errors.js';
import { defaultEmptyBody } from './empty-body.js';
import { findSessionRow } from './lookup.js';
import type { CdpTokens } from '../host/session/index.js';
import { prepareProfileLoad, type ProfileStore } from '../host/profiles/index.js';
import type { ProxyService } from '../host/proxy/index.js';
import type { SiteConfigs } from '../host/sites/index.js';
import { checkNetwork } from '../host/network/index.js';
import { admitChromePolicy } from '../host/browser/index.js';
import type { ServiceContext } from '../context.js';
import type { TelemetryHub } from '../host/telemetry/index.js';
import type { BrowserRow } from '../store/browsers-repo.js';
import { browserCreateParams, browserListQuery, browserSession, browserUpdateParams } from '../../api/schemas/browsers.js';
import { noContent, ok, page } from './responses.js';
import { setPageHeaders } from './offset-paging.js';
import { idOrNameParams, type IdOrNameParams as IdParams } from './params.js';
import { UniqueViolation } from '../store/unique.js';

/** Also the source of the browser fields of pool bodies (routes/pools.ts). */
export const createBody = browserCreateParams;
const updateBody = browserUpdateParams;
const listQuery = browserListQuery;

/** Room for a chrome_policy of 5 MiB (the largest taken) beside the other fields. */
export const POLICY_BODY_LIMIT = 6 * 1024 * 1024;

const retrieveQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { include_deleted: { type: 'boolean' } },
} as const;

export function registerBrowserRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const { browsers: repo, sessions } = ctx;
  const present = (req: FastifyRequest, row: BrowserRow) => presentSession(row, wsOrigin(req), ctx);

  const find = (req: FastifyRequest, idOrName: string, includeDeleted = false) => findSessionRow(repo, req, idOrName, includeDeleted);

  app.post<{ Body: BrowserCreateParams }>(
    '/browsers',
    { schema: { body: createBody, response: ok('The new session', browserSession) }, preValidation: defaultEmptyBody, bodyLimit: POLICY_BODY_LIMIT },
    async (req) => {
      // A site config matching `start_url` fills in what the body leaves out.
      const { params: body, config: siteConfig } = ctx.siteConfigs.applyToBrowser(req.auth.projectId, req.body);
      if (body.headless === false && !ctx.headful.available) {
        throw new ServiceError(400, 'headful_unavailable', `headful browsers are not available: ${ctx.headful.reason}; create with headless: true`);
      }
      if (body.invocation_id !== undefined) ctx.invocations.checkRunning(req.auth.projectId, body.invocation_id, 'body.invocation_id');
      // Resolved before anything launches; a bad selection is a 400 naming the field.
      const proxy = ctx.proxies?.select(req.auth.projectId, body, 'body');
      const params = withResources(req.auth.projectId, body, ctx);
      const create = () => sessions.create(params, req.auth.projectId, { proxy: proxy?.upstream });
      // Telemetry settings are checked first and seen by the new session's start hooks.
      const row = await (ctx.telemetry ? ctx.telemetry.withCreate(body.telemetry, 'body.telemetry', create) : create());
      if (proxy) ctx.proxies!.linkBrowser(row.id, proxy.link);
      if (siteConfig) ctx.siteConfigs.linkBrowser(row.id, siteConfig);
      return present(req, row);
    },
  );

  app.get<{ Querystring: BrowserListParams & { include_deleted?: boolean; offset: number; limit: number } }>(
    '/browsers',
    { schema: { querystring: listQuery, response: page('Sessions, oldest first', browserSession) } },
    async (req, reply: FastifyReply) => {
      const q = req.query;
      const status = q.status ?? (q.include_deleted ? 'all' : 'active');
      const page = repo.list({
        projectId: req.auth.projectId,
        status,
        query: q.query,
        tags: q.tags,
        offset: q.offset,
        limit: q.limit,
      });
      setPageHeaders(reply, q.offset, page.rows.length, page.hasMore);
      return page.rows.map((row) => present(req, row));
    },
  );

  app.get<{ Params: IdParams; Querystring: { include_deleted?: boolean } }>(
    '/browsers/:id_or_name',
    { schema: { params: idOrNameParams, querystring: retrieveQuery, response: ok('The session', browserSession) } },
    async (req) => {
      const row = find(req, req.params.id_or_name, req.query.include_deleted ?? false);
      sessions.touch(row.id);
      return present(req, row);
    },
  );

  app.patch<{ Params: IdParams; Body: BrowserUpdateParams }>(
    '/browsers/:id_or_name',
    { schema: { params: idOrNameParams, body: updateBody, response: ok('The session as updated', browserSession) }, preValidation: defaultEmptyBody },
    async (req) => {
      const row = find(req, req.params.id_or_name);
      const { name, tags: newTags, profile } = req.body;
      // Every part is checked before any is applied; loading a profile (a restart) comes last.
      const applyTelemetry = ctx.telemetry?.prepareUpdate(row.id, req.body.telemetry, 'body.telemetry');
      const applyProxy = ctx.proxies?.prepareUpdate(req.auth.projectId, row.id, sessions.get(row.id)?.proxy, req.body, 'body');
      const loadProfile = profile && prepareProfileLoad({ profiles: ctx.profiles, browsers: repo, sessions }, row, profile, 'body.profile');
      try {
        repo.update(row.id, { name: name === undefined ? undefined : name || null, tags: newTags });
      } catch (err) {
        if (err instanceof UniqueViolation) {
          throw conflict(`a browser named '${name}' is already active in this project`);
        }
        throw err;
      }
      await applyTelemetry?.();
      applyProxy?.();
      await loadProfile?.();
      sessions.touch(row.id);
      return present(req, repo.get(row.id)!);
    },
  );

  app.delete<{ Params: IdParams }>(
    '/browsers/:id_or_name',
    { schema: { params: idOrNameParams, response: noContent('Ended: its Chromium and processes are gone') } },
    async (req, reply) => {
      const row = find(req, req.params.id_or_name);
      await sessions.end(row.id, 'deleted', 'deleted through the API');
      return reply.code(204).send();
    },
  );
}

/**
 * The create body with its profile and extensions resolved to ids, as sessions.create takes them: unknown
 * ones are a 404, a profile already held read-write a 409, extensions without a full Chromium a 400.
 */
function withResources(projectId: string | null, body: BrowserCreateParams, ctx: ServiceContext): BrowserCreateParams {
  checkNetwork(body.network, 'body');
  admitChromePolicy(ctx.chromePolicy, body.chrome_policy, 'body.chrome_policy');
  const params = { ...body };
  if (body.profile && ctx.profiles) {
    const profile = ctx.profiles.select(projectId, body.profile, 'body.profile');
    if (body.profile.save_changes) ctx.profiles.checkWritable(profile);
    params.profile = { id: profile.id, save_changes: body.profile.save_changes === true };
  }
  if (body.extensions?.length && ctx.extensions) {
    ctx.extensions.checkAvailable();
    params.extensions = ctx.extensions.selectAll(projectId, body.extensions, 'body.extensions').map((e) => ({ id: e.id }));
  }
  return params;
}

/** ws:// or wss:// plus the host the client used to reach us, so the CDP and BiDi URLs work from where it called. */
export function wsOrigin(req: FastifyRequest): string {
  return `${req.protocol === 'https' ? 'wss' : 'ws'}://${req.host}`;
}

export function presentSession(
  row: BrowserRow,
  origin: string,
  deps: {
    tokens: CdpTokens;
    telemetry?: Pick<TelemetryHub, 'present'>;
    pools?: { ref(poolId: string): BrowserPoolRef };
    proxies?: Pick<ProxyService, 'presentFor'>;
    profiles?: Pick<ProfileStore, 'presentRef'>;
    siteConfigs?: Pick<SiteConfigs, 'browserLink'>;
  },
): BrowserSession {
  const token = deps.tokens.tokenFor(row.id);
  const session: BrowserSession = {
    session_id: row.id,
    cdp_ws_url: `${origin}/browsers/${row.id}/cdp?jwt=${token}`,
    webdriver_ws_url: `${origin}/browsers/${row.id}/bidi?jwt=${token}`,
    // The SDK sends curl and telemetry/stream here with the token of cdp_ws_url and no key: our own routes.
    base_url: `${origin.replace(/^ws/, 'http')}/browsers/${row.id}`,
    browser_live_view_url: liveViewPageUrl(deps.tokens, origin.replace(/^ws/, 'http'), row.id, 'interactive'),
    created_at: row.created_at,
    headless: row.headless,
    stealth: row.stealth,
    timeout_seconds: row.timeout_seconds,
    kiosk_mode: row.kiosk_mode,
    tags: row.tags,
    sandboxed: row.sandboxed,
  };
  if (row.name) session.name = row.name;
  if (row.viewport) session.viewport = row.viewport;
  if (row.start_url) session.start_url = row.start_url;
  if (row.pool_id) session.pool = deps.pools?.ref(row.pool_id) ?? { id: row.pool_id };
  const telemetry = deps.telemetry?.present(row.id);
  if (telemetry) session.telemetry = telemetry;
  if (deps.proxies) Object.assign(session, deps.proxies.presentFor(row.id));
  if (row.profile_id) {
    session.profile = deps.profiles?.presentRef(row.profile_id) ?? ({ id: row.profile_id } as BrowserSession['profile']);
    session.profile_save_changes = row.profile_save_changes;
  }
  if (row.private_hosts) session.network = { private_hosts: row.private_hosts };
  if (row.chrome_policy) session.chrome_policy = row.chrome_policy;
  const siteConfigId = deps.siteConfigs?.browserLink(row.id);
  if (siteConfigId) session.site_config_id = siteConfigId;
  const endMs = row.deleted_at ? Date.parse(row.deleted_at) : Date.now();
  session.usage = { uptime_ms: Math.max(0, endMs - Date.parse(row.created_at)) };
  if (row.deleted_at) {
    session.deleted_at = row.deleted_at;
    if (row.end_reason) session.end_reason = row.end_reason;
    if (row.end_detail) session.end_detail = row.end_detail;
  }
  return session;
}
