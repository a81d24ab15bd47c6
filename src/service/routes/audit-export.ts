// `GET /audit-logs/export/chunk`: the audit log in bulk, as JSON Lines (gzip-compressed by default), one
// chunk per request, newest first, as the SDK's `auditLogs.download` stitches and verifies them: each
// answer says `X-Row-Count`, `X-Has-More`, `X-Next-Cursor` and the SHA-256 of its body as sent.
//
// An export is a snapshot: the first chunk fixes the newest record it covers, and the cursor carries that
// with the position reached, so records written while it runs (even ones dated inside the window, such
// as a long request that ends late) neither shift nor join it. The cursor also carries a digest of the
// window and filters, so one cannot be replayed against another query.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { auditLogExportChunkQuery } from '../../api/schemas/org.js';
import { invalidField } from '../errors.js';
import type { AuditDeps } from './audit.js';
import { auditFilters, presentAuditRecord, type AuditFilters } from './audit-records.js';

const gzipAsync = promisify(gzip);
const query = auditLogExportChunkQuery;
type ChunkQuery = FromSchema<typeof query>;

const MEDIA_TYPES = { jsonl: 'application/x-ndjson', 'jsonl.gz': 'application/gzip' } as const;

const chunkHeaders = {
  'X-Row-Count': { type: 'integer', description: 'Records in this chunk (at most 50 000)' },
  'X-Has-More': { type: 'boolean', description: 'Whether another chunk follows' },
  'X-Next-Cursor': { type: 'string', description: 'The `cursor` of the next chunk, while there is one' },
  'X-Content-SHA256': { type: 'string', description: 'Lowercase hex SHA-256 of the body bytes as sent' },
} as const;

const chunkResponse = {
  200: {
    description: 'One chunk of the export: one audit record (as `GET /audit-logs` lists it) per line, newest first',
    content: {
      [MEDIA_TYPES['jsonl.gz']]: { schema: { type: 'string', format: 'binary' } },
      [MEDIA_TYPES.jsonl]: { schema: { type: 'string' } },
    },
    headers: chunkHeaders,
  },
} as const;

export function registerAuditExportRoute(app: FastifyInstance, deps: AuditDeps): void {
  app.get<{ Querystring: ChunkQuery }>('/audit-logs/export/chunk', { schema: { querystring: query, response: chunkResponse } }, async (req, reply) => {
    const q = req.query;
    const filters = auditFilters(q);
    const digest = filtersDigest(filters);
    const position = q.cursor === undefined ? { maxSeq: await deps.audit.lastSeq() } : decodeCursor(q.cursor, digest);
    const page = await deps.audit.list({ ...filters, maxSeq: position.maxSeq, after: position.after, limit: q.limit });

    const lines = Buffer.from(page.rows.map((row) => `${JSON.stringify(presentAuditRecord(row))}\n`).join(''));
    const body = q.format === 'jsonl' ? lines : await gzipAsync(lines);
    const last = page.rows.at(-1);
    reply.header('X-Row-Count', String(page.rows.length));
    reply.header('X-Has-More', String(page.hasMore));
    if (page.hasMore && last) reply.header('X-Next-Cursor', encodeCursor({ maxSeq: position.maxSeq, after: { tsMs: last.ts_ms, seq: last.seq } }, digest));
    reply.header('X-Content-SHA256', createHash('sha256').update(body).digest('hex'));
    // A download, not an encoded transfer: with Content-Encoding a client would inflate it before the
    // checksum, which is of the bytes as sent.
    reply.header('Content-Disposition', `attachment; filename="audit-logs.${q.format}"`);
    return reply.type(MEDIA_TYPES[q.format]).send(body);
  });
}

interface Position {
  maxSeq: number;
  after?: { tsMs: number; seq: number };
}

/** Which window and filters an export reads: a cursor is good for its own query only. */
function filtersDigest(filters: AuditFilters): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 16);
}

// Opaque to clients; inside: the snapshot's newest record, the last record sent, the query's digest.
function encodeCursor(position: Required<Position>, digest: string): string {
  return Buffer.from(`e1.${position.maxSeq}.${position.after.tsMs}.${position.after.seq}.${digest}`).toString('base64url');
}

function decodeCursor(cursor: string, digest: string): Position {
  const match = /^e1\.(\d{1,16})\.(-?\d{1,16})\.(\d{1,16})\.([A-Za-z0-9_-]{16})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw invalidField('querystring.cursor', 'is not a cursor from X-Next-Cursor');
  if (match[4] !== digest) {
    throw invalidField('querystring.cursor', 'belongs to an export with another window or filters: send the same start, end and filters with each chunk');
  }
  return { maxSeq: Number(match[1]), after: { tsMs: Number(match[2]), seq: Number(match[3]) } };
}
