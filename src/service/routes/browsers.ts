// /browsers: create, list, retrieve, update and delete browser sessions.
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
import type { CdpTokens } from '../host/cdp-proxy.js';
import type { SessionManager } from '../host/sessions.js';
import { telemetryCreateSchema, telemetryUpdateSchema } from '../host/telemetry-config.js';
import type { TelemetryHub } from '../host/telemetry-hub.js';
import type { BrowserRow, BrowsersRepo } from '../store/browsers-repo.js';
import { offsetPageQuery, setPageHeaders } from './offset-paging.js';

export interface BrowserRouteDeps {
  repo: BrowsersRepo;
  sessions: SessionManager;
  tokens: CdpTokens;
  headful: { available: boolean; reason: string };
  telemetry?: TelemetryHub;
  /** Names the pool of a pooled session. */
  pools?: { ref(poolId: string): BrowserPoolRef };
}

const tags = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 255 },
  additionalProperties: { type: 'string', maxLength: 255 },
} as const;

const idOrNameParams = {
  type: 'object',
  required: ['id_or_name'],
  properties: { id_or_name: { type: 'string', minLength: 1, maxLength: 255 } },
} as const;

/** Also the source of the browser fields of pool bodies (routes/pools.ts). */
export const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    headless: { type: 'boolean' },
    stealth: { type: 'boolean' },
    timeout_seconds: { type: 'integer', minimum: 10, maximum: 259200 },
    viewport: {
      type: 'object',
      additionalProperties: false,
      required: ['width', 'height'],
      properties: {
        width: { type: 'integer', minimum: 100, maximum: 7680 },
        height: { type: 'integer', minimum: 100, maximum: 4320 },
        refresh_rate: { type: 'integer', minimum: 1, maximum: 240 },
      },
    },
    // Only URLs that cannot be read as a Chromium command-line switch.
    start_url: { type: 'string', maxLength: 8192, pattern: '^(https?://|about:|data:)' },
    name: { type: 'string', minLength: 1, maxLength: 255 },
    tags,
    kiosk_mode: { type: 'boolean' },
    telemetry: telemetryCreateSchema,
  },
} as const;

const updateBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 255 },
    tags,
    telemetry: telemetryUpdateSchema,
  },
} as const;

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...offsetPageQuery,
    status: { type: 'string', enum: ['active', 'deleted', 'all'] },
    query: { type: 'string', maxLength: 255 },
    tags,
    include_deleted: { type: 'boolean' },
  },
} as const;

const retrieveQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { include_deleted: { type: 'boolean' } },
} as const;

type IdParams = { id_or_name: string };

export function registerBrowserRoutes(app: FastifyInstance, deps: BrowserRouteDeps): void {
  const { repo, sessions } = deps;
  const present = (req: FastifyRequest, row: BrowserRow) => presentSession(row, wsOrigin(req), deps);

  const find = (req: FastifyRequest, idOrName: string, includeDeleted = false) => findSessionRow(repo, req, idOrName, includeDeleted);

  app.post<{ Body: BrowserCreateParams }>(
    '/browsers',
    { schema: { body: createBody }, preValidation: defaultEmptyBody },
    async (req) => {
      if (req.body.headless === false && !deps.headful.available) {
        throw new ServiceError(400, 'headful_unavailable', `headful browsers are not available: ${deps.headful.reason}; create with headless: true`);
      }
      const create = () => sessions.create(req.body, req.auth.projectId);
      // Telemetry settings are checked first and seen by the new session's start hooks.
      const row = await (deps.telemetry ? deps.telemetry.withCreate(req.body.telemetry, create) : create());
      return present(req, row);
    },
  );

  app.get<{ Querystring: BrowserListParams & { include_deleted?: boolean; offset: number; limit: number } }>(
    '/browsers',
    { schema: { querystring: listQuery } },
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
    { schema: { params: idOrNameParams, querystring: retrieveQuery } },
    async (req) => {
      const row = find(req, req.params.id_or_name, req.query.include_deleted ?? false);
      sessions.touch(row.id);
      return present(req, row);
    },
  );

  app.patch<{ Params: IdParams; Body: BrowserUpdateParams }>(
    '/browsers/:id_or_name',
    { schema: { params: idOrNameParams, body: updateBody }, preValidation: defaultEmptyBody },
    async (req) => {
      const row = find(req, req.params.id_or_name);
      const { name, tags: newTags } = req.body;
      const applyTelemetry = deps.telemetry?.prepareUpdate(row.id, req.body.telemetry);
      try {
        repo.update(row.id, { name: name === undefined ? undefined : name || null, tags: newTags });
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw conflict(`a browser named '${name}' is already active in this project`);
        }
        throw err;
      }
      await applyTelemetry?.();
      sessions.touch(row.id);
      return present(req, repo.get(row.id)!);
    },
  );

  app.delete<{ Params: IdParams }>(
    '/browsers/:id_or_name',
    { schema: { params: idOrNameParams } },
    async (req, reply) => {
      const row = find(req, req.params.id_or_name);
      await sessions.end(row.id, 'deleted', 'deleted through the API');
      return reply.code(204).send();
    },
  );
}

/** ws:// or wss:// plus the host the client used to reach us, so the CDP URL works from where it called. */
export function wsOrigin(req: FastifyRequest): string {
  return `${req.protocol === 'https' ? 'wss' : 'ws'}://${req.host}`;
}

export function presentSession(
  row: BrowserRow,
  origin: string,
  deps: { tokens: CdpTokens; telemetry?: Pick<TelemetryHub, 'present'>; pools?: { ref(poolId: string): BrowserPoolRef } },
): BrowserSession {
  const session: BrowserSession = {
    session_id: row.id,
    cdp_ws_url: `${origin}/browsers/${row.id}/cdp?jwt=${deps.tokens.tokenFor(row.id)}`,
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
  const endMs = row.deleted_at ? Date.parse(row.deleted_at) : Date.now();
  session.usage = { uptime_ms: Math.max(0, endMs - Date.parse(row.created_at)) };
  if (row.deleted_at) {
    session.deleted_at = row.deleted_at;
    if (row.end_reason) session.end_reason = row.end_reason;
    if (row.end_detail) session.end_detail = row.end_detail;
  }
  return session;
}
