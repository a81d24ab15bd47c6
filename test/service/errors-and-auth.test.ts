import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { openServiceStore } from '../helpers/store-access.js';
import { sql } from '../../src/service/store/sql.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

describe('authentication', () => {
  it('rejects a request without a key with 401 and the Error body', async () => {
    const res = await svc.call('GET', '/browsers', { headers: { authorization: '' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'unauthorized', message: expect.stringContaining('missing API key') });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('rejects a wrong key and a malformed header', async () => {
    for (const authorization of ['Bearer bcs_not-a-real-key', 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const res = await svc.call('GET', '/browsers', { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
  });

  it('stores only a hash of the key', async () => {
    const db = await openServiceStore(svc);
    const rows = await db.all<Record<string, unknown>>(sql`SELECT * FROM api_keys`);
    await db.close();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(svc.apiKey);
    expect(rows[0]!.masked_key).toMatch(/^bcs_.{4}….{4}$/);
  });

  it('authenticates the unknown-route 404 too, then answers with the Error body', async () => {
    expect((await svc.call('GET', '/nope', { headers: { authorization: '' } })).status).toBe(401);
    const res = await svc.call('GET', '/nope?secret=1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'not_found', message: 'no route GET /nope' });
  });

  it('gives every response a request id', async () => {
    const res = await svc.call('GET', '/browsers');
    expect(res.headers.get('x-request-id')).toMatch(/^req_[a-z0-9]{16}$/);
  });
});

describe('bad input', () => {
  it('names every bad field of a create body', async () => {
    const res = await svc.call('POST', '/browsers', {
      body: { timeout_seconds: 5, viewport: { width: 'x', height: 800 }, persistence: true },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bad_request');
    const fields = res.body.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['body.persistence', 'body.timeout_seconds', 'body.viewport.width']);
    for (const d of res.body.details) expect(d.code).toBe('invalid_input');
    expect(res.body.message).toContain('body.timeout_seconds: must be >= 10');
  });

  it.each([
    [{ timeout_seconds: 259201 }, 'body.timeout_seconds'],
    [{ timeout_seconds: '60' }, 'body.timeout_seconds'],
    [{ headless: 'yes' }, 'body.headless'],
    [{ start_url: '--remote-allow-origins=*' }, 'body.start_url'],
    [{ tags: { team: 5 } }, 'body.tags.team'],
    [{ name: '' }, 'body.name'],
    [[], 'body'],
  ])('rejects %j naming %s', async (body, field) => {
    const res = await svc.call('POST', '/browsers', { body });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('rejects malformed JSON with a 400, not a 500', async () => {
    const res = await svc.call('POST', '/browsers', { raw: '{"headless":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bad_request');
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.js:\d+/);
  });

  it('rejects bad list queries naming the parameter', async () => {
    for (const [query, field] of [
      ['limit=0', 'querystring.limit'],
      ['limit=101', 'querystring.limit'],
      ['offset=-1', 'querystring.offset'],
      ['status=gone', 'querystring.status'],
      ['colour=red', 'querystring.colour'],
    ] as const) {
      const res = await svc.call('GET', `/browsers?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field), query).toContain(field);
    }
  });

  it('answers 404 for unknown ids on every per-browser route', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await svc.call(method, '/browsers/doesnotexist', method === 'PATCH' ? { body: { name: 'x' } } : {});
      expect(res.status, method).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: "browser 'doesnotexist' not found" });
    }
  });

  it('explains why headful sessions are unavailable when the Chromium is a headless shell', async () => {
    const { default: packaged } = await import('@sparticuz/chromium');
    const shell = await startTestService({ chromium: await packaged.executablePath() });
    try {
      const res = await shell.call('POST', '/browsers', { body: { headless: false } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('headful_unavailable');
      expect(res.body.message).toContain('headless shell');
      expect(res.body.message).toContain('headless: true');
    } finally {
      await shell.close();
    }
  });
});
