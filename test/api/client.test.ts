import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiConnectionError, ApiError, ApiTimeoutError, CloudClient, type ClientOptions } from '../../src/api/index.js';
import { closedPort, startScriptedServer, type ScriptedServer } from './scripted-server.js';

const API_KEY = 'sk_test_5f0c2b9e8d7a4c31';
const session = (id: string) => ({
  session_id: id,
  cdp_ws_url: `ws://127.0.0.1/cdp/${id}`,
  created_at: '2025-01-01T00:00:00Z',
  headless: true,
  stealth: false,
  timeout_seconds: 60,
});

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer();
});
afterAll(async () => {
  await srv.close();
});
beforeEach(() => {
  srv.requests.length = 0;
});

function client(opts: Partial<ClientOptions> = {}): CloudClient {
  return new CloudClient({ baseUrl: srv.url, apiKey: API_KEY, retryBaseMs: 5, ...opts });
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the promise to reject');
}

function expectNoKey(err: unknown): void {
  expect(err).toBeInstanceOf(Error);
  const e = err as Error;
  expect(e.message).not.toContain(API_KEY);
  expect(String(e)).not.toContain(API_KEY);
  expect(inspect(e, { depth: 5 })).not.toContain(API_KEY);
  expect(JSON.stringify(e)).not.toContain(API_KEY);
}

describe('CloudClient requests', () => {
  it('sends auth, project, accept and user-agent headers', async () => {
    srv.script = () => ({ body: session('s1') });
    const c = client({ projectId: 'proj_1', userAgent: 'bcs-test/1' });
    const got = await c.browsers.retrieve('s1');
    expect(got.session_id).toBe('s1');
    const h = srv.requests[0]!.headers;
    expect(h.authorization).toBe(`Bearer ${API_KEY}`);
    expect(h['x-kernel-project-id']).toBe('proj_1');
    expect(h.accept).toBe('application/json');
    expect(h['user-agent']).toBe('bcs-test/1');
  });

  it('omits the project header when no project is set', async () => {
    srv.script = () => ({ body: session('s1') });
    await client().browsers.retrieve('s1');
    expect(srv.requests[0]!.headers['x-kernel-project-id']).toBeUndefined();
  });

  it('round-trips a JSON body', async () => {
    srv.script = (req) => ({ status: 200, body: { ...session('s2'), ...JSON.parse(req.body) } });
    const params = { headless: true, name: 'ünïcode ✓', tags: { team: 'a' }, viewport: { width: 1280, height: 800 } };
    const got = await client().browsers.create(params);
    const req = srv.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/browsers');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual(params);
    expect(got).toMatchObject(params);
  });

  it('returns undefined data for 204 and encodes the id as one path segment', async () => {
    srv.script = () => ({ status: 204 });
    await expect(client().browsers.delete('my name/x?y')).resolves.toBeUndefined();
    expect(srv.requests[0]!.method).toBe('DELETE');
    expect(srv.requests[0]!.rawUrl).toBe('/browsers/my%20name%2Fx%3Fy');
  });

  it('keeps a base URL path prefix, with or without a trailing slash', async () => {
    srv.script = () => ({ body: session('s3') });
    await client({ baseUrl: `${srv.url}/prefix/` }).browsers.retrieve('s3', { include_deleted: true });
    await client({ baseUrl: `${srv.url}/prefix` }).request('GET', 'browsers/s3');
    expect(srv.requests.map((r) => r.rawUrl)).toEqual(['/prefix/browsers/s3?include_deleted=true', '/prefix/browsers/s3']);
  });

  it('serialises tags as deepObject and skips undefined', async () => {
    srv.script = () => ({ body: [], headers: { 'x-has-more': 'false' } });
    const items = [];
    for await (const s of client().browsers.list({ status: 'all', query: undefined, tags: { team: 'a', env: 'b' } })) {
      items.push(s);
    }
    expect(items).toEqual([]);
    const raw = srv.requests[0]!.rawUrl;
    expect(decodeURIComponent(raw.split('?')[1]!)).toBe('status=all&tags[team]=a&tags[env]=b&offset=0');
    expect(srv.requests[0]!.query.get('tags[team]')).toBe('a');
  });
});

describe('CloudClient retries', () => {
  it('retries a 503 and succeeds, counting attempts on the server', async () => {
    srv.script = (_req, i) => (i === 0 ? { status: 503, body: { code: 'unavailable', message: 'busy' } } : { body: session('r1') });
    const got = await client().browsers.retrieve('r1');
    expect(got.session_id).toBe('r1');
    expect(srv.requests).toHaveLength(2);
  });

  it('waits for Retry-After seconds on a 429', async () => {
    srv.script = (_req, i) =>
      i === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: { code: 'rate_limited', message: 'slow down' } } : { body: session('r2') };
    const t0 = performance.now();
    await client().browsers.retrieve('r2');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(900);
    expect(srv.requests).toHaveLength(2);
  });

  it('prefers retry-after-ms over the default backoff', async () => {
    srv.script = (_req, i) => (i === 0 ? { status: 503, headers: { 'retry-after-ms': '50' } } : { body: session('r3') });
    const t0 = performance.now();
    // A 10 s backoff base proves the wait came from the header.
    await client({ retryBaseMs: 10_000 }).browsers.retrieve('r3');
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(5_000);
    expect(srv.requests).toHaveLength(2);
  });

  it('turns a 400 Error body into an ApiError without retrying', async () => {
    srv.script = () => ({
      status: 400,
      headers: { 'x-request-id': 'req_123' },
      body: {
        code: 'bad_request',
        message: 'timeout_seconds is out of range',
        details: [{ code: 'invalid_input', message: 'must be >= 10', field: 'body.timeout_seconds' }],
        inner_error: { code: 'range', message: 'min 10' },
      },
    });
    const err = await failure(client().browsers.create({ timeout_seconds: 1 }));
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e).toMatchObject({ status: 400, code: 'bad_request', requestId: 'req_123', method: 'POST', path: '/browsers' });
    expect(e.details).toEqual([{ code: 'invalid_input', message: 'must be >= 10', field: 'body.timeout_seconds' }]);
    expect(e.innerError).toEqual({ code: 'range', message: 'min 10' });
    expect(e.message).toBe('POST /browsers: 400 bad_request: timeout_seconds is out of range');
    expect(srv.requests).toHaveLength(1);
  });

  it('makes a non-JSON 502 an http_502 ApiError once retries are exhausted', async () => {
    const html = `<html><body>${'bad gateway '.repeat(100)}</body></html>`;
    srv.script = () => ({ status: 502, headers: { 'content-type': 'text/html' }, body: html });
    const err = await failure(client({ maxRetries: 2 }).browsers.retrieve('g1'));
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).toBe(502);
    expect(e.code).toBe('http_502');
    expect(e.message.startsWith('GET /browsers/g1: 502 http_502: <html><body>bad gateway')).toBe(true);
    expect(e.message.length).toBeLessThan(600);
    expect(srv.requests).toHaveLength(3);
  });

  it('obeys x-should-retry: false on a 503 and x-should-retry: true on a 400', async () => {
    srv.script = () => ({ status: 503, headers: { 'x-should-retry': 'false' }, body: { code: 'draining', message: 'no' } });
    const err = await failure(client().browsers.retrieve('n1'));
    expect((err as ApiError).code).toBe('draining');
    expect(srv.requests).toHaveLength(1);

    srv.requests.length = 0;
    srv.script = (_req, i) => (i === 0 ? { status: 400, headers: { 'x-should-retry': 'true' } } : { body: session('n2') });
    await expect(client().browsers.retrieve('n2')).resolves.toMatchObject({ session_id: 'n2' });
    expect(srv.requests).toHaveLength(2);
  });

  it('times out each attempt and gives up after maxRetries + 1 attempts', async () => {
    srv.script = () => ({ hang: true });
    const err = await failure(client({ timeoutMs: 100, maxRetries: 2 }).browsers.retrieve('t1'));
    expect(err).toBeInstanceOf(ApiTimeoutError);
    expect(err).toMatchObject({ status: 0, code: 'timeout' });
    expect(srv.requests).toHaveLength(3);
  });

  it('applies the timeout to a body that stalls after the headers', async () => {
    srv.script = () => ({ stallBody: true, body: session('t2') });
    // The per-request timeout wins over the client default of 60 s.
    const err = await failure(client().request('GET', '/slow', { timeoutMs: 50, maxRetries: 0 }));
    expect(err).toBeInstanceOf(ApiTimeoutError);
    expect(srv.requests).toHaveLength(1);
  });

  it('reports a refused connection as ApiConnectionError with its cause', async () => {
    const port = await closedPort();
    const c = new CloudClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY, maxRetries: 1, retryBaseMs: 1 });
    const err = await failure(c.browsers.retrieve('c1'));
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err).toMatchObject({ status: 0, code: 'connection_error' });
    expect((err as Error).cause).toBeDefined();
    expect((err as Error).message).toContain('ECONNREFUSED');
  });

  it('rejects with the abort reason when the caller aborts, without retrying', async () => {
    srv.script = () => ({ hang: true });
    const ac = new AbortController();
    const reason = new Error('user cancelled');
    setTimeout(() => ac.abort(reason), 50);
    const err = await failure(client().request('GET', '/browsers/a1', { signal: ac.signal }));
    expect(err).toBe(reason);
    expect(srv.requests).toHaveLength(1);

    // With no retries left the abort must still win over a connection/timeout error.
    const ac2 = new AbortController();
    setTimeout(() => ac2.abort(reason), 50);
    expect(await failure(client({ maxRetries: 0 }).request('GET', '/browsers/a1', { signal: ac2.signal }))).toBe(reason);
    const ac3 = new AbortController();
    ac3.abort(reason);
    expect(await failure(client().request('GET', '/browsers/a1', { signal: ac3.signal }))).toBe(reason);
    expect(srv.requests).toHaveLength(2);
  });

  it('stops waiting between retries when the caller aborts', async () => {
    srv.script = () => ({ status: 503, headers: { 'retry-after': '30' } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stop')), 100);
    const t0 = performance.now();
    const err = await failure(client().request('GET', '/browsers/a2', { signal: ac.signal }));
    expect((err as Error).message).toBe('stop');
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(srv.requests).toHaveLength(1);
  });
});

describe('CloudClient pagination', () => {
  it('follows X-Next-Offset across three pages', async () => {
    const next: Record<string, { ids: string[]; headers: Record<string, string> }> = {
      '0': { ids: ['a', 'b'], headers: { 'x-has-more': 'true', 'x-next-offset': '2' } },
      '2': { ids: ['c', 'd'], headers: { 'x-has-more': 'true', 'x-next-offset': '4' } },
      '4': { ids: ['e'], headers: { 'x-has-more': 'false', 'x-next-offset': '0' } },
    };
    srv.script = (req) => {
      const page = next[req.query.get('offset') ?? '']!;
      return { body: page.ids.map(session), headers: page.headers };
    };
    const ids: string[] = [];
    for await (const s of client().browsers.list({ limit: 2, status: 'active' })) ids.push(s.session_id);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(srv.requests.map((r) => r.query.get('offset'))).toEqual(['0', '2', '4']);
    expect(srv.requests.every((r) => r.query.get('limit') === '2' && r.query.get('status') === 'active')).toBe(true);

    srv.requests.length = 0;
    const page = await client().browsers.listPage({ offset: 2, limit: 2 });
    expect(page).toMatchObject({ hasMore: true, nextOffset: 4 });
    expect(page.items.map((s) => s.session_id)).toEqual(['c', 'd']);
  });

  it('refuses X-Has-More: true without X-Next-Offset', async () => {
    srv.script = () => ({ body: [session('p1')], headers: { 'x-has-more': 'true' } });
    const err = await failure(client().paginate('/browsers').next());
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_pagination', status: 200 });
  });

  it('refuses a next offset that does not advance', async () => {
    srv.script = () => ({ body: [session('p2')], headers: { 'x-has-more': 'true', 'x-next-offset': '3' } });
    const err = await failure(client().browsers.listPage({ offset: 3 }));
    expect(err).toMatchObject({ code: 'bad_pagination' });
  });

  it('ends on X-Next-Offset: 0 when X-Has-More is absent', async () => {
    srv.script = () => ({ body: [session('p3')], headers: { 'x-next-offset': '0' } });
    const all = [];
    for await (const s of client().paginate('/browsers')) all.push(s);
    expect(all).toHaveLength(1);
    expect(srv.requests).toHaveLength(1);
  });
});

describe('API key hygiene', () => {
  it('never puts the API key in an error message, even when the server echoes it', async () => {
    const errors: unknown[] = [];
    srv.script = (req) => ({
      status: 401,
      body: { code: 'unauthorized', message: `bad key ${req.headers.authorization}`, details: [{ message: String(req.headers.authorization) }] },
    });
    errors.push(await failure(client().browsers.retrieve('k1')));
    srv.script = (req) => ({ status: 500, body: `upstream said: ${req.headers.authorization}` });
    errors.push(await failure(client({ maxRetries: 0 }).browsers.retrieve('k2')));
    srv.script = () => ({ hang: true });
    errors.push(await failure(client({ timeoutMs: 30, maxRetries: 0 }).browsers.retrieve('k3')));
    srv.script = () => ({ body: { not: 'an array' } });
    errors.push(await failure(client().browsers.listPage()));
    const port = await closedPort();
    errors.push(await failure(new CloudClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY, maxRetries: 0 }).browsers.retrieve('k4')));

    expect(errors.map((e) => (e as ApiError).code)).toEqual(['unauthorized', 'http_500', 'timeout', 'bad_pagination', 'connection_error']);
    for (const e of errors) expectNoKey(e);
    expect((errors[0] as ApiError).message).toContain('Bearer [REDACTED]');
  });
});
