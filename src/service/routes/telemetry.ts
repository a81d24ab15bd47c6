// /browsers/{id}/telemetry/events (the archive, also for deleted sessions) and /telemetry/stream (live SSE
// with resume), plus the hooks that record every API call touching a session as a `control` event.
import { MAX_OFFSET } from './offset-paging.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ours } from '../../api/schemas/common.js';
import { telemetryEnvelope } from '../../api/schemas/telemetry.js';
import type { TelemetryCategory, TelemetryEnvelope } from '../../api/types.js';
import type { ServiceContext } from '../context.js';
import { invalidField, notFound } from '../errors.js';
import { CATEGORIES, withOurTypes } from '../host/telemetry/index.js';
import { openSse } from '../sse.js';
import { findSessionRow, sessionParams } from './lookup.js';
import { eventStream } from './responses.js';
import { sessionRowFor } from './session-access.js';
import { parseInstant } from './instants.js';

/**
 * Our own event types are opt-in per read: by default every event is one of the hosted SDK's types, so a
 * typed client never meets one it does not know (host/telemetry/egress.ts).
 */
const ourTypes = ours({
  type: 'boolean',
  description:
    'Our extension: events of our own types where the hosted wire has none (`egress_refused`: a connection the egress policy refused), ' +
    'instead of their hosted form (`network_loading_failed` whose `source.event` is `egress_refused`)',
});

const eventsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    bcs_types: ourTypes,
    // A repeated parameter or a comma list; checked in the handler, which names the bad value.
    category: { description: 'Only these categories: the parameter repeated, or a comma-separated list' },
    since: {
      type: 'string',
      maxLength: 64,
      description:
        'Events from this time on: RFC 3339 or a duration ago (`5m`, `1h30m`); default `5m` on a first page read ' +
        'forwards. Ignored with `offset`, refused with `order=desc`',
    },
    until: { type: 'string', maxLength: 64, description: 'Events before this time: RFC 3339 or a duration ago' },
    order: { type: 'string', enum: ['asc', 'desc'], description: 'By `seq`; default `asc`' },
    offset: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_OFFSET,
      description: 'A `seq` cursor, as `X-Next-Offset` gives it: the page starts at this seq (not a count of events to skip)',
    },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
  },
} as const;

const streamQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    jwt: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: "The session's token (the `jwt` of its `cdp_ws_url`), in place of an API key; the SDK sends it when it routes the stream to `base_url`",
    },
    replay: {
      type: 'string',
      maxLength: 64,
      description: '`all`: first the events still held in memory (the last 1024), then new ones; otherwise new ones only',
    },
    bcs_types: ourTypes,
  },
} as const;

/** One page of events; offset-paged like the lists, but `offset` and `X-Next-Offset` are seq cursors. */
const eventsPage = {
  200: {
    description: 'Events in `seq` order, the way `order` says',
    type: 'array',
    items: telemetryEnvelope,
    headers: {
      'X-Has-More': { type: 'boolean', description: 'Whether another page follows' },
      'X-Next-Offset': {
        type: 'integer',
        description: 'The `offset` of the next page: the seq after the last event here (before it with `order=desc`); 0 on the last',
      },
    },
  },
} as const;

/** Request headers the stream reads itself (documented only, not validated). */
const lastEventId = {
  openapi: {
    headers: {
      type: 'object',
      properties: {
        'Last-Event-ID': {
          type: 'string',
          description: 'Resume after this seq (the `id:` of the last event received), whatever `replay` says',
        },
      },
    },
  },
} as const;

type EventsQuery = FromSchema<typeof eventsQuery>;

/** A slow reader is cut off past this much buffered output; it can resume with Last-Event-ID. */
const STREAM_HIGH_WATER = 8 * 1024 * 1024;

export function registerTelemetryRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Params: FromSchema<typeof sessionParams>; Querystring: EventsQuery }>(
    '/browsers/:id/telemetry/events',
    { schema: { params: sessionParams, querystring: eventsQuery, response: eventsPage } },
    async (req, reply) => {
      const row = await findSessionRow(ctx.browsers, req, req.params.id, true);
      const q = req.query;
      const order = q.order ?? 'asc';
      if (order === 'desc' && q.since !== undefined) throw invalidField('querystring.since', 'cannot be combined with order=desc');
      const nowMs = ctx.now().getTime();
      const untilUs = q.until === undefined ? undefined : parseInstant(q.until, 'querystring.until', nowMs);
      // The cursor (offset) already places the page; since only applies to a first page read forwards.
      const sinceUs = order === 'asc' && q.offset === undefined ? parseInstant(q.since ?? '5m', 'querystring.since', nowMs) : undefined;
      const page = await ctx.telemetryEvents.list({
        browserId: row.id,
        categories: parseCategoryParam(q.category),
        sinceUs,
        untilUs,
        order,
        cursor: q.offset,
        limit: q.limit,
      });
      const last = page.events.at(-1);
      const next = page.hasMore && last ? (order === 'asc' ? last.seq + 1 : last.seq - 1) : 0;
      reply.header('X-Has-More', String(page.hasMore && next > 0));
      reply.header('X-Next-Offset', String(next));
      return q.bcs_types ? page.events.map(withOurTypes) : page.events;
    },
  );

  app.get<{ Params: FromSchema<typeof sessionParams>; Querystring: FromSchema<typeof streamQuery> }>(
    '/browsers/:id/telemetry/stream',
    {
      schema: {
        params: sessionParams,
        querystring: streamQuery,
        response: eventStream(
          'Live events of the session, each with `id:` its seq; it ends with the session, and cuts off a reader 8 MiB behind',
          telemetryEnvelope,
        ),
      },
      config: { ...lastEventId, sessionToken: true },
    },
    async (req, reply) => {
      const row = await sessionRowFor(ctx, req);
      if (!ctx.telemetry.isLive(row.id)) throw notFound('browser', req.params.id);
      const afterSeq = parseLastEventId(req.headers['last-event-id']);
      const sse = openSse(req, reply);
      const present = req.query.bcs_types ? withOurTypes : (env: TelemetryEnvelope) => env;
      const send = (env: TelemetryEnvelope) => {
        if (reply.raw.writableLength > STREAM_HIGH_WATER) return sse.close();
        sse.send(present(env), env.seq);
      };
      const { backlog, stop } = await ctx.telemetry.subscribe(
        row.id,
        // Last-Event-ID is a reconnect: it resumes, whatever replay says.
        { afterSeq, replayAll: afterSeq === undefined && req.query.replay === 'all' },
        { event: send, end: () => sse.close() },
      );
      for (const env of backlog) send(env);
      await sse.closed;
      stop();
    },
  );
}

/**
 * Records each API call on a session as a control event (operation id = method and route), when its
 * response has been sent. Calls are tied to a session when they start, so a DELETE by name still counts.
 * Must be installed after auth (unauthenticated calls are nobody's) and before the routes.
 */
export function installApiCallEvents(app: FastifyInstance, ctx: Pick<ServiceContext, 'telemetry' | 'browsers' | 'tokens'>): void {
  const sessionOf = new WeakMap<FastifyRequest, string>();
  app.addHook('onRequest', async (req) => {
    const route = req.routeOptions.url;
    // Reading telemetry is not an action on the browser; counting it would feed the stream its own reads.
    if (!route?.startsWith('/browsers/:') || route.includes('/telemetry/')) return;
    const params = req.params as Record<string, string | undefined>;
    const key = params.id ?? params.id_or_name;
    if (!key) return;
    // A call on the session's own token (curl as the SDK routes it) is the session's call too.
    const projectId = req.auth ? req.auth.projectId : await tokenHolderProject(ctx, req, key);
    if (projectId === undefined) return;
    // By id first, from memory; only a key the hub does not know by id is looked up as an active name.
    const byName = ctx.telemetry.resolve(key, projectId, () => undefined) ? undefined : (await ctx.browsers.getActiveByName(projectId, key))?.id;
    const id = ctx.telemetry.resolve(key, projectId, () => byName);
    if (id) sessionOf.set(req, id);
  });
  app.addHook('onResponse', async (req, reply) => {
    const id = sessionOf.get(req);
    if (!id) return;
    ctx.telemetry.apiCall(id, {
      operation_id: `${req.method} ${req.routeOptions.url!.replace(/:([A-Za-z_]+)/g, '{$1}')}`,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
      request_id: String(req.id),
    });
  });
}

/** The project of the session whose valid token a token route was called with; undefined otherwise. */
async function tokenHolderProject(ctx: Pick<ServiceContext, 'browsers' | 'tokens'>, req: FastifyRequest, id: string): Promise<string | null | undefined> {
  const jwt = (req.query as { jwt?: unknown } | undefined)?.jwt;
  if (!req.routeOptions.config?.sessionToken || typeof jwt !== 'string' || !ctx.tokens.verify(id, jwt)) return undefined;
  const row = await ctx.browsers.get(id);
  return row ? row.project_id : undefined;
}

function parseCategoryParam(raw: unknown): TelemetryCategory[] | undefined {
  if (raw === undefined || raw === '') return undefined;
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
  for (const v of values) {
    if (typeof v !== 'string' || !(CATEGORIES as readonly string[]).includes(v.trim())) {
      throw invalidField('querystring.category', `unknown category ${JSON.stringify(v)}; one of ${CATEGORIES.join(', ')}`);
    }
  }
  return values.map((v) => (v as string).trim() as TelemetryCategory);
}


function parseLastEventId(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(text.trim())) throw invalidField('header.last-event-id', 'must be a non-negative integer (a seq)');
  return Number(text.trim());
}
