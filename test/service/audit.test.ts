// The audit log: every mutating request recorded (never a body, credentials in query strings redacted),
// read back with time windows, filters and page tokens, by the hosted SDK unchanged.
import Kernel from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let clock = Date.parse('2026-06-01T12:00:00.000Z');
let svc: TestService;
let admin: Kernel;
let adminKeyId: string;
const window = (from = clock - 60_000, to = clock + 60_000) => `start=${new Date(from).toISOString()}&end=${new Date(to).toISOString()}`;
const read = async (query = '') => {
  const res = await svc.call('GET', `/audit-logs?${window()}&limit=100${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Record<string, any>[];
};

beforeAll(async () => {
  svc = await startTestService({ standby: 0, now: () => new Date(clock) });
  admin = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  adminKeyId = (await svc.call('GET', '/auth/context')).body.principal.id;
});
afterAll(async () => {
  await svc.close();
});

describe('audit log', () => {
  it('records each mutating request with who, what and the outcome; reads are not recorded', async () => {
    const project = await svc.call('POST', '/org/projects', { body: { name: 'audited' }, headers: { 'user-agent': 'audit-test/1' } });
    await svc.call('PATCH', '/org/limits', { body: { max_concurrent_sessions: 'x' } });
    await svc.call('GET', '/org/limits');
    await svc.call('DELETE', '/browsers/nope', { headers: { 'x-kernel-project-id': project.body.id } });
    await svc.call('POST', '/org/projects', { body: { name: 'x' }, headers: { authorization: 'Bearer bcs_wrong' } });

    // The clock stands still here, so records are told apart by content rather than order.
    const records = await read();
    expect(records.map((r) => r.method).sort()).toEqual(['DELETE', 'PATCH', 'POST', 'POST']);
    const created = records.find((r) => r.status === 200);
    const invalid = records.find((r) => r.method === 'PATCH');
    const deleted = records.find((r) => r.method === 'DELETE');
    const unauthenticated = records.find((r) => r.status === 401);
    expect(created).toEqual({
      timestamp: expect.any(String),
      method: 'POST',
      path: '/org/projects',
      route: '/org/projects',
      status: 200,
      duration_ms: expect.any(Number),
      client_ip: '127.0.0.1',
      domain: new URL(svc.baseUrl).host,
      user_agent: 'audit-test/1',
      user_id: adminKeyId,
      email: '',
      auth_strategy: 'api_key',
      api_key_id: adminKeyId,
      project_id: null,
      request_id: project.headers.get('x-request-id'),
    });
    expect(Math.abs(Date.parse(created!.timestamp) - clock)).toBeLessThan(1000);
    expect(invalid).toMatchObject({ method: 'PATCH', route: '/org/limits', status: 400 });
    expect(deleted).toMatchObject({ method: 'DELETE', path: '/browsers/nope', route: '/browsers/{id_or_name}', status: 404, project_id: project.body.id });
    expect(unauthenticated).toMatchObject({ method: 'POST', status: 401, api_key_id: null, user_id: '', auth_strategy: 'none' });
  });

  it('never stores bodies or credentials: plaintext keys and token-like query values stay out', async () => {
    const key = await admin.apiKeys.create({ name: 'not-in-the-log' });
    const rotated = await admin.apiKeys.rotate(key.id);
    // Secrets long enough that no random id holds one by chance (a request id once held 'k3y').
    await svc.call('DELETE', '/browser_pools/nope?force=true&jwt=s3cret-jwt&Access_Token=t0ken-v4lue&api_key=k3y-v4lue');
    await svc.call('POST', `/browsers/x/cdp?jwt=another-s3cret`);
    const text = JSON.stringify(await read());
    for (const secret of [key.key, rotated.key, 's3cret-jwt', 't0ken-v4lue', 'k3y-v4lue', 'another-s3cret']) expect(text).not.toContain(secret);
    const paths = (await read('&method=DELETE')).map((r) => r.path);
    expect(paths).toContain('/browser_pools/nope?force=true&jwt=REDACTED&Access_Token=REDACTED&api_key=REDACTED');
    expect((await read('&search=cdp'))[0]).toMatchObject({ path: '/browsers/x/cdp?jwt=REDACTED', route: '', status: 404 });
  });

  it('filters by method, excluded methods, status, route, path, key, project, strategy and free text', async () => {
    const all = await read();
    const count = (pred: (r: Record<string, any>) => boolean) => all.filter(pred).length;
    expect((await read('&method=patch')).every((r) => r.method === 'PATCH')).toBe(true);
    expect(await read('&exclude_method=POST,DELETE')).toHaveLength(count((r) => r.method === 'PATCH'));
    expect(await read('&exclude_method[0]=POST&exclude_method[1]=PATCH')).toHaveLength(count((r) => r.method === 'DELETE'));
    expect(await read('&status=401')).toHaveLength(count((r) => r.status === 401));
    expect(await read('&route=/org/api_keys/{id}/rotate')).toHaveLength(count((r) => r.route === '/org/api_keys/{id}/rotate'));
    expect(count((r) => r.route === '/org/api_keys/{id}/rotate')).toBe(1);
    expect(await read('&path=/org/api_keys')).toHaveLength(count((r) => r.path.startsWith('/org/api_keys')));
    expect(await read('&service=browser_pools')).toHaveLength(count((r) => r.path.startsWith('/browser_pools')));
    expect(await read(`&api_key_id=${adminKeyId}`)).toHaveLength(count((r) => r.api_key_id === adminKeyId));
    expect(await read('&auth_strategy=none')).toHaveLength(count((r) => r.api_key_id === null));
    const scoped = all.find((r) => r.project_id)!;
    expect(await read(`&project_id=${scoped.project_id}`)).toHaveLength(count((r) => r.project_id === scoped.project_id));
    expect(await read('&search=404')).toHaveLength(count((r) => r.status === 404 || r.path.includes('404')));
    expect(await read(`&search_user_id=${adminKeyId}`)).toHaveLength(count((r) => r.api_key_id === adminKeyId));
  });

  it('pages newest first with X-Next-Page-Token, and the SDK iterates it', async () => {
    const all = await read();
    expect(all.length).toBeGreaterThan(5);
    const first = await svc.call('GET', `/audit-logs?${window()}&limit=2`);
    expect(first.headers.get('x-has-more')).toBe('true');
    const token = first.headers.get('x-next-page-token')!;
    const second = await svc.call('GET', `/audit-logs?${window()}&limit=2&page_token=${token}`);
    expect([...first.body, ...second.body]).toEqual(all.slice(0, 4));

    const viaSdk = [];
    for await (const entry of admin.auditLogs.list({ start: new Date(clock - 60_000).toISOString(), end: new Date(clock + 60_000).toISOString(), limit: 3 })) {
      viaSdk.push(entry);
    }
    expect(viaSdk).toEqual(all);
    const last = await svc.call('GET', `/audit-logs?${window()}&limit=100`);
    expect(last.headers.get('x-has-more')).toBe('false');
    expect(last.headers.get('x-next-page-token')).toBeNull();
  });

  it('reads only inside the window: start inclusive, end exclusive', async () => {
    const before = clock;
    const earlier = (await read()).length;
    clock += 3_600_000;
    try {
      await svc.call('POST', '/org/projects', { body: { name: 'an-hour-later' } });
      const later = await svc.call('GET', `/audit-logs?${window(before + 1_800_000, before + 7_200_000)}`);
      expect(later.body.map((r: { path: string }) => r.path)).toEqual(['/org/projects']);
      expect((await svc.call('GET', `/audit-logs?${window(before - 60_000, before + 60_000)}&limit=100`)).body).toHaveLength(earlier);
      // The end is exclusive, the start inclusive.
      const at = Date.parse(later.body[0].timestamp);
      expect((await svc.call('GET', `/audit-logs?${window(at - 1000, at)}`)).body).toEqual([]);
      expect((await svc.call('GET', `/audit-logs?${window(at, at + 1)}`)).body).toHaveLength(1);
    } finally {
      clock = before;
    }
  });

  it('rejects bad windows and tokens naming the parameter', async () => {
    for (const [query, field] of [
      ['end=2026-06-01T00:00:00Z', 'querystring.start'],
      ['start=2026-06-01T00:00:00Z', 'querystring.end'],
      ['start=yesterday&end=2026-06-01T00:00:00Z', 'querystring.start'],
      ['start=2026-06-02T00:00:00Z&end=2026-06-01T00:00:00Z', 'querystring.end'],
      ['start=2026-01-01T00:00:00Z&end=2026-03-01T00:00:00Z', 'querystring.end'],
      [`${window()}&limit=101`, 'querystring.limit'],
      [`${window()}&page_token=garbage`, 'querystring.page_token'],
      [`${window()}&status=abc`, 'querystring.status'],
      [`${window()}&colour=red`, 'querystring.colour'],
    ] as const) {
      const res = await svc.call('GET', `/audit-logs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field), query).toContain(field);
    }
  });
});

describe('service logs', () => {
  it('carry no plaintext key, even at debug level', async () => {
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    const loud = await startTestService({ standby: 0, logLevel: 'debug' });
    try {
      const kernel = new Kernel({ apiKey: loud.apiKey, baseURL: loud.baseUrl, maxRetries: 0 });
      const key = await kernel.apiKeys.create({ name: 'quiet' });
      const rotated = await kernel.apiKeys.rotate(key.id);
      await loud.call('GET', '/browsers?jwt=query-s3cret', { headers: { authorization: `Bearer ${rotated.key}` } });
      await loud.call('GET', '/browsers', { headers: { authorization: `Bearer ${key.key}x` } });
      expect(written.join('').length).toBeGreaterThan(0);
      for (const secret of [loud.apiKey, key.key, rotated.key, 'query-s3cret']) expect(written.join('')).not.toContain(secret);
    } finally {
      process.stderr.write = original;
      await loud.close();
    }
  });
});
