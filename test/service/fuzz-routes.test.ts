// Property-based fuzzing of every route the service serves, generated from each route's own JSON Schemas
// (params, querystring, body): values the schema allows, values just outside it (wrong types, huge and
// non-finite numbers, NUL bytes, long strings, unknown fields, objects nested 10,000 deep) and bodies that
// are not JSON at all. Not one answer may be a 500, and every error body has exactly the Error shape with
// no internals in it.
// Bounded: a fixed seed and a fixed number of runs per route.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteEntry } from '../../src/service/auth.js';
import { startTestService, type TestService } from '../helpers/service.js';

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  /** One schema for every item, or one per position (a tuple, `[x, y]`). */
  items?: Schema | Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

const RUNS_PER_ROUTE = 25;
/**
 * Stands for an object nested 10,000 deep wherever a value may go; no serializer writes one, so the body's
 * text gets it put in place of this string (`withDeepValues`).
 */
const DEEP = '\u0001deep\u0001';
const DEEP_JSON = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
const withDeepValues = (json: string) => json.replaceAll(JSON.stringify(DEEP), DEEP_JSON);
const ODD_STRINGS = ['', ' ', '\u0000', 'a\u0000b', 'x'.repeat(300), 'ü∂😀', '../../etc/passwd', '%00', '{{x}}', '1e400', '-1', 'null', 'true'];
const ODD_NUMBERS = [-1, 0, 1.5, 2 ** 31, 2 ** 53 + 2, 1e21, -1e21, Number.MAX_VALUE];
/** Query texts a number field may get: JSON cannot carry these, a URL can. */
const ODD_NUMBER_TEXTS = ['1e400', '99999999999999999999', '-0', 'NaN', 'Infinity', '0x10', '1.0', ' 7'];

function valueFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  const near = fc.oneof(fc.constantFrom<unknown>(...ODD_STRINGS, ...ODD_NUMBERS, null, true, [], {}, DEEP), fc.jsonValue({ maxDepth: 1 }));
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => valueFor(b, depth + 1)), near);
  if (schema.enum) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: near });
  if (schema.const !== undefined) return fc.oneof({ weight: 4, arbitrary: fc.constant(schema.const) }, { weight: 1, arbitrary: near });
  const type = [schema.type ?? 'object'].flat().find((t) => t !== 'null') ?? 'object';
  let valid: fc.Arbitrary<unknown>;
  switch (type) {
    case 'string':
      valid = fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
      break;
    case 'integer':
      valid = fc.integer({ min: Math.max(schema.minimum ?? -1000, -(2 ** 31)), max: Math.min(schema.maximum ?? 100_000, 2 ** 31) });
      break;
    case 'number':
      valid = fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000, noNaN: true });
      break;
    case 'boolean':
      valid = fc.boolean();
      break;
    case 'array':
      valid = Array.isArray(schema.items)
        ? fc.tuple(...schema.items.map((item) => valueFor(item, depth + 1)))
        : fc.array(valueFor(schema.items, depth + 1), { maxLength: 3 });
      break;
    default: {
      const props = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries(props)) record[name] = valueFor(prop, depth + 1);
      const keys = Object.keys(props).filter((k) => !required.has(k));
      valid = fc
        .tuple(fc.record(record, { requiredKeys: [...required].filter((k) => k in props) as never[] }), fc.subarray(keys), fc.boolean())
        .map(([value, drop, extra]) => {
          const out = { ...(value as Record<string, unknown>) };
          for (const k of drop) delete out[k];
          if (extra) out.unexpected_field = 'x';
          return out;
        });
    }
  }
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: near });
}

/** Query values are text: numbers may be spelled in ways JSON never could. */
function queryFor(schema: Schema | undefined): fc.Arbitrary<Record<string, string>> {
  const props = schema?.properties ?? {};
  const entries = Object.entries(props).map(([name, prop]) => {
    const isNumber = [prop.type].flat().some((t) => t === 'integer' || t === 'number');
    const text = valueFor(prop).map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? ''));
    return [name, isNumber ? fc.oneof(text, fc.constantFrom(...ODD_NUMBER_TEXTS)) : text] as const;
  });
  return fc.record(Object.fromEntries(entries) as Record<string, fc.Arbitrary<string>>, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>;
}

const ERROR_KEYS = new Set(['code', 'message', 'details']);
/** What a client must never see: exception texts, stack frames, framework and database internals. */
const LEAKS = /TypeError|ReferenceError|Cannot read propert|SQLITE|FST_ERR|\bat .*\.(js|ts):\d+|node:internal/;

function checkAnswer(label: string, status: number, text: string, problems: string[]): void {
  if (status === 500 || status === 502 || status === 504) problems.push(`${label}: ${status} ${text.slice(0, 200)}`);
  if (status < 400) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push(`${label}: ${status} with a body that is not JSON: ${text.slice(0, 120)}`);
    return;
  }
  const ok =
    body !== null &&
    typeof body === 'object' &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { message?: unknown }).message === 'string' &&
    Object.keys(body).every((k) => ERROR_KEYS.has(k));
  if (!ok) problems.push(`${label}: ${status} body outside the Error shape: ${text.slice(0, 200)}`);
  else if (LEAKS.test((body as { message: string }).message)) problems.push(`${label}: ${status} leaks internals: ${text.slice(0, 200)}`);
}

let svc: TestService;
let sessionId: string;

beforeAll(async () => {
  // A low session limit keeps fuzzed creates (browsers, pools) from launching a crowd of Chromiums.
  svc = await startTestService({ maxConcurrentSessions: 2 });
  sessionId = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 3600 } })).body.session_id;
});
afterAll(async () => {
  await svc?.close();
});

describe('fuzzing every route from its own schema', () => {
  it('answers no 500 and no body outside the Error shape', { timeout: 600_000 }, async () => {
    const routes = svc.routes().filter((r: RouteEntry) => r.method !== 'HEAD' && r.method !== 'OPTIONS');
    expect(routes.length).toBeGreaterThan(50);
    const problems: string[] = [];
    let requests = 0;
    for (const [index, route] of routes.entries()) {
      const schema = (route.schema ?? {}) as { params?: Schema; querystring?: Schema; body?: Schema };
      const paramNames = [...route.url.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
      // The shared session is used for :id on browser routes, except where the route would end it.
      const realId = route.url.startsWith('/browsers/:id') && route.method !== 'DELETE';
      // A run of its own for each run route (a DELETE ends it, a finish closes it), so fuzzed input gets past
      // the lookup to what the route does with it.
      const runId = route.url.startsWith('/runs/:run_id') ? (await svc.call('POST', '/runs', { body: { suite: 'fuzz', trigger: 'ci', started_at: '2026-01-01T00:00:00Z' } })).body.id : undefined;
      const anyParam = fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('x'.repeat(200), 'ü', '%00', '..'));
      const params = fc.tuple(
        ...paramNames.map((name) => (name === 'id' && realId ? fc.constant(sessionId) : name === 'run_id' && runId ? fc.oneof(fc.constant(runId as string), anyParam) : anyParam)),
      );
      const body = fc.oneof(
        { weight: 5, arbitrary: valueFor(schema.body).map((v) => withDeepValues(JSON.stringify(v) ?? '')) },
        { weight: 1, arbitrary: fc.constantFrom('{', 'null', '[]', '"x"', '{"a":1e400}', '\u0000', DEEP_JSON) },
      );
      await fc.assert(
        fc.asyncProperty(params, queryFor(schema.querystring), body, async (values, query, json) => {
          let path = route.url;
          paramNames.forEach((name, i) => (path = path.replace(`:${name}`, encodeURIComponent(values[i]!))));
          const qs = new URLSearchParams(query).toString();
          const url = `${svc.baseUrl}${path}${qs ? `?${qs}` : ''}`;
          const withBody = !['GET', 'DELETE'].includes(route.method);
          let status: number;
          let text: string;
          try {
            const res = await fetch(url, {
              method: route.method,
              headers: { authorization: `Bearer ${svc.apiKey}`, ...(withBody ? { 'content-type': 'application/json' } : {}) },
              body: withBody ? json : undefined,
              signal: AbortSignal.timeout(5_000),
            });
            status = res.status;
            // Streams (SSE, logs, videos) may never end: the status and a little of the body are enough.
            text = res.headers.get('content-type')?.includes('json') ? await res.text() : '';
            if (!text) await res.body?.cancel();
          } catch (err) {
            if ((err as Error).name === 'TimeoutError') return; // a long poll or stream that did not answer in time
            throw err;
          }
          requests++;
          checkAnswer(`${route.method} ${path}${qs ? `?${qs.slice(0, 120)}` : ''}`, status, text, problems);
        }),
        { numRuns: RUNS_PER_ROUTE, seed: 1000 + index, endOnFailure: true },
      );
    }
    console.log(`fuzzed ${routes.length} routes with ${requests} requests; ${problems.length} problems`);
    expect(problems.slice(0, 20)).toEqual([]);
  });
});
