// The audit log export: chunks of JSON Lines (gzip by default) led on by an opaque cursor, each verified
// by the hosted SDK's download helper against X-Content-SHA256; a snapshot that records written during the
// export cannot shift; bad input answered as 400s naming the parameter.
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import Kernel, { BadRequestError, PermissionDeniedError } from '@onkernel/sdk';
import type { AuditLogDownloadParams, AuditLogEntry } from '@onkernel/sdk/resources/audit-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let clock = Date.parse('2026-06-01T12:00:00.000Z');
let svc: TestService;
let admin: Kernel;
const LIMITS = 120;
const DELETES = 15;
/** Chunk sizes of `total` records in chunks of `limit`. */
const sizes = (total: number, limit: number) => Array.from({ length: Math.ceil(total / limit) }, (_, i) => Math.min(limit, total - i * limit));
const iso = (ms: number) => new Date(ms).toISOString();
const start = iso(clock - 3_600_000);
const end = iso(clock + 3_600_000);

/** Writes `n` audit records (PATCH /org/limits with an empty body), a few at a time. */
async function record(n: number, method: 'PATCH' | 'DELETE' = 'PATCH'): Promise<void> {
  for (let i = 0; i < n; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, n - i) }, (_, j) =>
        method === 'PATCH' ? svc.call('PATCH', '/org/limits', { body: {} }) : svc.call('DELETE', `/browsers/gone-${i + j}`),
      ),
    );
  }
}

/** Everything `GET /audit-logs` lists for a query, through the SDK's own paging. */
async function listed(filters: Record<string, unknown> = {}): Promise<AuditLogEntry[]> {
  const all: AuditLogEntry[] = [];
  for await (const entry of admin.auditLogs.list({ start, end, limit: 100, ...filters })) all.push(entry);
  return all;
}

/** The SDK's download helper into memory; returns its result, the bytes and each chunk's progress. */
async function download(query: AuditLogDownloadParams, client = admin) {
  const chunks: Uint8Array[] = [];
  const progress: number[] = [];
  const result = await client.auditLogs.download(query, { write: (bytes) => void chunks.push(Uint8Array.from(bytes)) }, {
    onProgress: (p) => void progress.push(p.chunkRows),
  });
  return { result, bytes: Buffer.concat(chunks), progress };
}

const linesOf = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as AuditLogEntry);

beforeAll(async () => {
  svc = await startTestService({ standby: 0, now: () => new Date(clock) });
  admin = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  await record(LIMITS);
  await record(DELETES, 'DELETE');
});
afterAll(async () => {
  await svc.close();
});

describe('audit log export', () => {
  it('downloads every record in several gzip chunks through the SDK, which verifies each checksum', async () => {
    const expected = await listed();
    expect(expected.length).toBeGreaterThanOrEqual(LIMITS + DELETES);
    const { result, bytes, progress } = await download({ start, end, limit: 40 });
    expect(progress).toEqual(sizes(expected.length, 40));
    expect(result).toEqual({ chunks: progress.length, rows: expected.length, bytesWritten: bytes.length });
    // The chunks are gzip members one after another: one gzip stream, newest record first, as listed.
    expect(linesOf(gunzipSync(bytes).toString())).toEqual(expected);
  });

  it('answers plain JSON Lines with format=jsonl, each chunk with its headers and checksum', async () => {
    const expected = await listed();
    const seen: AuditLogEntry[] = [];
    let cursor: string | undefined;
    let chunks = 0;
    do {
      const res = await admin.auditLogs.exportChunk({ start, end, limit: 50, format: 'jsonl', ...(cursor ? { cursor } : {}) });
      const body = Buffer.from(await res.arrayBuffer());
      chunks++;
      expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      expect(res.headers.get('content-encoding')).toBeNull();
      expect(res.headers.get('x-content-sha256')).toBe(createHash('sha256').update(body).digest('hex'));
      const lines = linesOf(body.toString());
      expect(res.headers.get('x-row-count')).toBe(String(lines.length));
      seen.push(...lines);
      const more = res.headers.get('x-has-more');
      cursor = res.headers.get('x-next-cursor') ?? undefined;
      expect(more === 'true').toBe(cursor !== undefined);
    } while (cursor);
    expect(chunks).toBe(sizes(expected.length, 50).length);
    expect(seen).toEqual(expected);

    // The download helper verifies plain chunks the same way (a JavaScript caller may pass the format).
    const { result, bytes } = await download({ start, end, limit: 100, format: 'jsonl' } as AuditLogDownloadParams);
    expect(result.chunks).toBe(sizes(expected.length, 100).length);
    expect(linesOf(bytes.toString())).toEqual(expected);
  });

  it('takes the list filters, and a window longer than the list allows', async () => {
    const deletes = await listed({ method: 'DELETE' });
    expect(deletes).toHaveLength(DELETES);
    const { bytes } = await download({ start, end, method: 'delete', limit: 7 });
    expect(linesOf(gunzipSync(bytes).toString())).toEqual(deletes);
    const { result } = await download({ start, end, exclude_method: ['DELETE'] });
    expect(result).toMatchObject({ chunks: 1, rows: (await listed({ exclude_method: ['DELETE'] })).length });
    // A year: beyond the list's 30 days, fine for an export.
    const year = await download({ start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z', limit: 50_000 });
    expect(year.result.rows).toBe((await listed()).length);
  });

  it('is a snapshot: records written while it runs, even ones dated inside the window, do not shift it', async () => {
    const before = await listed();
    const first = await admin.auditLogs.exportChunk({ start, end, limit: 30, format: 'jsonl' });
    const seen = linesOf(Buffer.from(await first.arrayBuffer()).toString());
    let cursor = first.headers.get('x-next-cursor');
    // New records: at the same time as the others (so dated among them, by their durations) and, with the
    // clock set back, older than all of them.
    await record(12);
    const saved = clock;
    clock -= 60_000;
    try {
      await record(3);
    } finally {
      clock = saved;
    }
    while (cursor) {
      const res = await admin.auditLogs.exportChunk({ start, end, limit: 30, format: 'jsonl', cursor });
      seen.push(...linesOf(Buffer.from(await res.arrayBuffer()).toString()));
      cursor = res.headers.get('x-next-cursor');
    }
    expect(seen).toEqual(before);
    // A new export includes them.
    expect((await download({ start, end })).result.rows).toBe(before.length + 15);
  });

  it('answers an empty window with one empty chunk', async () => {
    const res = await svc.call('GET', '/audit-logs/export/chunk?start=2020-01-01T00:00:00Z&end=2020-01-02T00:00:00Z&format=jsonl');
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(res.headers.get('x-row-count')).toBe('0');
    expect(res.headers.get('x-has-more')).toBe('false');
    expect(res.headers.get('x-next-cursor')).toBeNull();
    expect(res.headers.get('x-content-sha256')).toBe(createHash('sha256').update('').digest('hex'));
    const { result, bytes } = await download({ start: '2020-01-01T00:00:00Z', end: '2020-01-02T00:00:00Z' });
    expect(result).toMatchObject({ chunks: 1, rows: 0 });
    expect(gunzipSync(bytes).length).toBe(0);
  });

  it('refuses bad cursors, limits, formats and windows naming the parameter', async () => {
    const window = `start=${start}&end=${end}`;
    const first = await svc.call('GET', `/audit-logs/export/chunk?${window}&limit=5&format=jsonl`);
    const cursor = first.headers.get('x-next-cursor')!;
    expect(cursor).toBeTruthy();
    const forged = Buffer.from(Buffer.from(cursor, 'base64url').toString().replace(/^e1\.\d+/, 'e1.x')).toString('base64url');
    for (const [query, field] of [
      [`${window}&cursor=garbage`, 'querystring.cursor'],
      [`${window}&cursor=${forged}`, 'querystring.cursor'],
      // A cursor is good for its own window and filters only.
      [`${window}&method=PATCH&cursor=${cursor}`, 'querystring.cursor'],
      [`start=${start}&end=${iso(clock + 7_200_000)}&cursor=${cursor}`, 'querystring.cursor'],
      [`${window}&limit=0`, 'querystring.limit'],
      [`${window}&limit=50001`, 'querystring.limit'],
      [`${window}&format=csv`, 'querystring.format'],
      [`end=${end}`, 'querystring.start'],
      [`start=${end}&end=${start}`, 'querystring.end'],
      [`start=yesterday&end=${end}`, 'querystring.start'],
      [`${window}&colour=red`, 'querystring.colour'],
    ] as const) {
      const res = await svc.call('GET', `/audit-logs/export/chunk?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe('bad_request');
      expect(res.body.details.map((d: { field: string }) => d.field), query).toContain(field);
    }
    // The same cursor with its own query still works.
    expect((await svc.call('GET', `/audit-logs/export/chunk?${window}&limit=5&format=jsonl&cursor=${cursor}`)).status).toBe(200);
    await expect(admin.auditLogs.exportChunk({ start, end, cursor: 'garbage' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(download({ start, end, limit: 50_001 })).rejects.toBeInstanceOf(BadRequestError);
  });

  it('is organization administration: a project-scoped key is refused', async () => {
    const project = (await svc.call('POST', '/org/projects', { body: { name: 'export-scoped' } })).body;
    const key = (await svc.call('POST', '/org/api_keys', { body: { name: 'scoped', project_id: project.id } })).body.key;
    const scoped = new Kernel({ apiKey: key, baseURL: svc.baseUrl, maxRetries: 0 });
    await expect(download({ start, end }, scoped)).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});
