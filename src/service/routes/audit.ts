// The audit log: every mutating request is recorded as its response is sent (who, what, outcome; never
// a body, and token-like query values redacted), and `GET /audit-logs` reads it newest first with
// page-token paging (`X-Next-Page-Token`, `X-Has-More`) as the hosted API does. The bulk export is
// audit-export.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { auditLogEntry, auditLogListQuery } from '../../api/schemas/org.js';
import { invalidField } from '../errors.js';
import type { AuditQuery, AuditRecord, AuditRepo } from '../store/audit-repo.js';
import { auditFilters, presentAuditRecord, type AuditFilterParams } from './audit-records.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Query parameters whose values are credentials (CDP and session URLs carry `jwt`). */
const SECRET_PARAM = /jwt|token|secret|passw|key|sig|auth|credential|cookie/i;
const MAX_WINDOW_MS = 30 * 24 * 3600 * 1000;

export interface AuditDeps {
  audit: AuditRepo;
  now: () => Date;
}

/** Installs the recording hook; call it before routes are registered, after auth. */
export function installAuditLog(app: FastifyInstance, deps: AuditDeps): void {
  const recorded = new WeakSet<FastifyRequest>();
  const record = (req: FastifyRequest, reply: FastifyReply) => {
    if (!MUTATING.has(req.method) || recorded.has(req)) return;
    recorded.add(req);
    const elapsed = reply.elapsedTime;
    const received = deps.now().getTime() - Math.round(elapsed);
    const entry = {
      ts_ms: received,
      timestamp: new Date(received).toISOString(),
      method: req.method,
      path: redactQuery(req.url),
      route: req.routeOptions.url ? toWireRoute(req.routeOptions.url) : '',
      status: reply.statusCode,
      duration_ms: Math.round(elapsed * 1000) / 1000,
      client_ip: req.ip ?? '',
      domain: req.host ?? '',
      user_agent: String(req.headers['user-agent'] ?? ''),
      api_key_id: req.auth?.keyId ?? null,
      project_id: req.auth?.projectId ?? null,
      request_id: String(req.id),
    };
    // The insert is under way (reads wait for it) before the answer leaves, so a client that got its answer
    // and reads the log finds its request. A failed write must be seen in the log (the record with it, so
    // it is not lost), not break the request.
    void deps.audit.insert(entry).catch((err: unknown) => req.log.error({ err, audit: entry }, 'could not write the audit record'));
  };
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    record(req, reply);
    return payload;
  });
  // An answer written outside Fastify's send (a hijacked stream) is recorded once it is done.
  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => record(req, reply));
  // Closing the app precedes closing the database: records of the last requests are written first.
  app.addHook('onClose', async () => {
    await deps.audit.settled();
  });
}

/** `/browsers/:id_or_name` as the wire writes routes: `/browsers/{id_or_name}`. */
function toWireRoute(url: string): string {
  return url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** The URL with the value of every credential-like query parameter replaced. */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const rawName = eq < 0 ? part : part.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // undecodable: judge the raw text
      }
      return SECRET_PARAM.test(name) && eq >= 0 ? `${rawName}=REDACTED` : part;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

const listQuery = auditLogListQuery;
type ListQuery = FromSchema<typeof listQuery>;

/** Pages by token: `page_token` in the query, `X-Next-Page-Token` in the answer while `X-Has-More`. */
const auditPage = {
  200: {
    description: 'Mutating requests in the window, newest first',
    type: 'array',
    items: auditLogEntry,
    headers: {
      'X-Has-More': { type: 'boolean', description: 'Whether another page follows' },
      'X-Next-Page-Token': { type: 'string', description: 'The `page_token` of the next page, while there is one' },
    },
  },
} as const;

export function registerAuditRoutes(app: FastifyInstance, deps: AuditDeps): void {
  app.get<{ Querystring: ListQuery }>('/audit-logs', { schema: { querystring: listQuery, response: auditPage } }, async (req, reply) => {
    const q = req.query;
    const filters = auditFilters(q);
    if (filters.endMs - filters.startMs > MAX_WINDOW_MS) throw invalidField('querystring.end', 'the window from start to end is at most 30 days');
    const query: AuditQuery = { ...filters, after: q.page_token === undefined ? undefined : decodeToken(q.page_token), limit: q.limit };
    const page = await deps.audit.list(query);
    const last = page.rows.at(-1);
    reply.header('X-Has-More', String(page.hasMore));
    if (page.hasMore && last) reply.header('X-Next-Page-Token', encodeToken(last));
    return page.rows.map(presentAuditRecord);
  });
}

// The token is opaque to clients; inside it is the position of the last record of the page.
function encodeToken(row: AuditRecord): string {
  return Buffer.from(`${row.ts_ms}.${row.seq}`).toString('base64url');
}

function decodeToken(token: string): { tsMs: number; seq: number } {
  const match = /^(-?\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(token, 'base64url').toString());
  if (!match) throw invalidField('querystring.page_token', 'is not a page token from X-Next-Page-Token');
  return { tsMs: Number(match[1]), seq: Number(match[2]) };
}
