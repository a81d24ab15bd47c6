// A JSON body nested past any sensible depth is a 400 naming the field, on every route that takes one,
// never a 500 from a stack overflow somewhere after parsing (the 10,000-deep chrome_policy of the trial).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/service/json-body.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

/** JSON text of `depth` nested objects (or arrays) around 1; built as text since no serializer takes it. */
const nested = (depth: number, kind: 'object' | 'array' = 'object') =>
  kind === 'object' ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + '1' + ']'.repeat(depth);

async function send(method: string, path: string, body: string) {
  const res = await fetch(svc.baseUrl + path, { method, headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' }, body });
  return { status: res.status, body: (await res.json()) as { code: string; message: string; details?: { field: string }[] } };
}

describe('deeply nested JSON bodies', () => {
  it('a 10,000-deep chrome_policy is a 400 naming body.chrome_policy on browsers and pools', async () => {
    const pool = (await svc.call('POST', '/browser_pools', { body: { name: 'deep-policy', size: 1, headless: true } })).body;
    expect(pool.id).toBeTruthy();
    const deep = nested(10_000);
    for (const [method, path, body] of [
      ['POST', '/browsers', `{"headless":true,"chrome_policy":${deep}}`],
      ['POST', '/browser_pools', `{"size":1,"chrome_policy":${deep}}`],
      ['PATCH', `/browser_pools/${pool.id}`, `{"chrome_policy":${deep}}`],
    ]) {
      const res = await send(method!, path!, body!);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body).toEqual({
        code: 'bad_request',
        message: `body.chrome_policy: nests deeper than ${MAX_JSON_DEPTH} levels`,
        details: [{ code: 'invalid_input', field: 'body.chrome_policy', message: `body.chrome_policy: nests deeper than ${MAX_JSON_DEPTH} levels` }],
      });
    }
    // The pool is as it was.
    expect((await svc.call('GET', `/browser_pools/${pool.id}`)).body.chrome_policy ?? {}).toEqual({});
  });

  it('any route: deep objects and arrays, in a field or as the whole body', async () => {
    for (const [path, body, field] of [
      ['/profiles', `{"name":${nested(10_000, 'array')}}`, 'body.name'],
      ['/proxies', `{"type":"custom","config":${nested(5_000)}}`, 'body.config'],
      ['/browsers', nested(10_000, 'array'), 'body.0'],
      ['/org/projects', nested(200), 'body.a'],
    ]) {
      const res = await send('POST', path!, body!);
      expect(res.status, path).toBe(400);
      expect(res.body.details?.[0]?.field, path).toBe(field);
    }
  });

  it('takes nesting up to the bound', async () => {
    // Within the bound the body is the route's to judge: here an unknown field, not the depth.
    const res = await send('POST', '/profiles', `{"name":"ok","x":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(res.status).toBe(400);
    expect(res.body.details?.[0]?.field).toBe('body.x');
    expect(res.body.message).not.toContain('nests deeper');
  });
});
