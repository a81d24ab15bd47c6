// AuditRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { AuditRepo, type AuditQuery, type AuditRecord } from '../../src/service/store/audit-repo.js';

const T = Date.parse('2026-03-01T10:00:00.000Z');

const record = (over: Partial<Omit<AuditRecord, 'seq'>> = {}): Omit<AuditRecord, 'seq'> => ({
  ts_ms: T,
  timestamp: new Date(over.ts_ms ?? T).toISOString(),
  method: 'POST',
  path: '/browsers',
  route: '/browsers',
  status: 200,
  duration_ms: 12.345,
  client_ip: '127.0.0.1',
  domain: 'localhost',
  user_agent: 'test/1.0',
  api_key_id: 'key1',
  project_id: null,
  request_id: 'req-1',
  ...over,
});

describeStores('AuditRepo', (open) => {
  const window = { startMs: T - 1000, endMs: T + 1000, limit: 50 };

  it('keeps every column as given and knows the newest position', async () => {
    const repo = new AuditRepo(await open());
    expect(await repo.lastSeq()).toBe(0);
    await repo.insert(record());
    await repo.insert(record({ ts_ms: T + 1, method: 'DELETE', path: '/x?jwt=REDACTED', route: '/x', status: 404, duration_ms: 0.5, api_key_id: null, project_id: 'p1', request_id: 'req-2' }));
    const { rows, hasMore } = await repo.list(window);
    expect(hasMore).toBe(false);
    expect(rows).toEqual([
      { seq: rows[0]!.seq, ...record({ ts_ms: T + 1, method: 'DELETE', path: '/x?jwt=REDACTED', route: '/x', status: 404, duration_ms: 0.5, api_key_id: null, project_id: 'p1', request_id: 'req-2' }) },
      { seq: rows[1]!.seq, ...record() },
    ]);
    expect(rows[0]!.seq).toBeGreaterThan(rows[1]!.seq);
    expect(await repo.lastSeq()).toBe(rows[0]!.seq);
  });

  it('reads an insert still under way, and settles every one before close', async () => {
    const repo = new AuditRepo(await open());
    const writes = [repo.insert(record({ request_id: 'a' })), repo.insert(record({ request_id: 'b' }))];
    // Both, whichever committed first: on PostgreSQL two inserts on two connections take their seq in the
    // order the server runs them, not the order they were asked for.
    expect((await repo.list(window)).rows.map((r) => r.request_id).sort()).toEqual(['a', 'b']);
    void repo.insert(record({ request_id: 'c' }));
    await repo.settled();
    expect((await repo.list(window)).rows).toHaveLength(3);
    await Promise.all(writes);
  });

  it('writes the records of one turn together, in the order asked, and a burst larger than one statement holds', async () => {
    const repo = new AuditRepo(await open());
    const ids = Array.from({ length: 1203 }, (_, i) => `burst-${String(i).padStart(4, '0')}`);
    await Promise.all(ids.map((request_id) => repo.insert(record({ request_id }))));
    const seen: string[] = [];
    for (let after: { tsMs: number; seq: number } | undefined, page; (page = await repo.list({ ...window, limit: 500, after })).rows.length; ) {
      seen.push(...page.rows.map((r) => r.request_id));
      const last = page.rows[page.rows.length - 1]!;
      after = { tsMs: last.ts_ms, seq: last.seq };
    }
    // Newest first: the reverse of the order asked.
    expect(seen).toEqual([...ids].reverse());
  });

  it('filters by window, fields, path below, group, auth and search', async () => {
    const repo = new AuditRepo(await open());
    const rows: Omit<AuditRecord, 'seq'>[] = [
      record({ request_id: 'r1', path: '/browsers/abc', route: '/browsers/{id}', method: 'DELETE', status: 204, api_key_id: 'KeyUpper' }),
      record({ request_id: 'r2', path: '/browsers?x=1', client_ip: '10.0.0.7', project_id: 'p1' }),
      record({ request_id: 'r3', path: '/browsersx', api_key_id: null, status: 401 }),
      record({ request_id: 'r4', path: '/org/api_keys', method: 'PATCH', api_key_id: 'other' }),
      record({ request_id: 'early', ts_ms: T - 1000 }),
      record({ request_id: 'late', ts_ms: T + 1000 }),
    ];
    for (const r of rows) await repo.insert(r);
    const ids = async (q: Partial<AuditQuery>) => (await repo.list({ ...window, ...q })).rows.map((r) => r.request_id).sort();
    expect(await ids({})).toEqual(['early', 'r1', 'r2', 'r3', 'r4']);
    expect(await ids({ method: 'DELETE' })).toEqual(['r1']);
    expect(await ids({ excludeMethods: ['POST', 'PATCH'] })).toEqual(['r1']);
    expect(await ids({ route: '/browsers/{id}' })).toEqual(['r1']);
    expect(await ids({ status: 401 })).toEqual(['r3']);
    expect(await ids({ apiKeyId: 'other' })).toEqual(['r4']);
    expect(await ids({ projectId: 'p1' })).toEqual(['r2']);
    expect(await ids({ path: '/browsers/' })).toEqual(['early', 'r1', 'r2']);
    expect(await ids({ path: '/browsers/abc' })).toEqual(['r1']);
    expect(await ids({ service: 'org' })).toEqual(['r4']);
    expect(await ids({ authStrategy: 'none' })).toEqual(['r3']);
    expect(await ids({ authStrategy: 'api_key' })).toEqual(['early', 'r1', 'r2', 'r4']);
    expect(await ids({ authStrategy: 'oauth' })).toEqual([]);
    // Paths case-insensitively, wildcards literal; key ids and IPs as typed; status exactly.
    expect(await ids({ search: 'API_KEYS' })).toEqual(['r4']);
    expect(await ids({ search: 'org%' })).toEqual([]);
    expect(await ids({ search: 'yUpp' })).toEqual(['r1']);
    expect(await ids({ search: 'yupp' })).toEqual([]);
    expect(await ids({ search: '0.0.7' })).toEqual(['r2']);
    expect(await ids({ search: '401' })).toEqual(['r3']);
    expect(await ids({ search: '40' })).toEqual([]);
    expect(await ids({ search: 'nothing', searchUserIds: ['other', 'KeyUpper'] })).toEqual(['r1', 'r4']);
    expect(await ids({ searchUserIds: ['other'] })).toEqual(['r4']);
  });

  it('pages newest first by (ts_ms, seq), within a snapshot', async () => {
    const repo = new AuditRepo(await open());
    for (const [id, ts] of [['a', T], ['b', T + 1], ['c', T + 1], ['d', T + 2]] as const) await repo.insert(record({ request_id: id, ts_ms: ts }));
    const snapshot = await repo.lastSeq();
    await repo.insert(record({ request_id: 'after-snapshot', ts_ms: T }));
    const seen: string[] = [];
    let after: AuditQuery['after'];
    for (;;) {
      const page = await repo.list({ ...window, limit: 2, maxSeq: snapshot, after });
      seen.push(...page.rows.map((r) => r.request_id));
      if (!page.hasMore) break;
      const last = page.rows.at(-1)!;
      after = { tsMs: last.ts_ms, seq: last.seq };
    }
    expect(seen).toEqual(['d', 'c', 'b', 'a']);
  });
});
