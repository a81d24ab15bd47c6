// Every route's request schemas are valid JSON Schema. The service compiles them with the meta-schema check
// off (app.ts: it cost the first request of every embedded run the meta-schema's compile), so a schema with
// a typo in a keyword's value (`type: 'strng'`, `required: 'x'`) is caught here instead.
import { Ajv } from 'ajv';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ store: 'sqlite' });
});
afterAll(async () => {
  await svc?.close();
});

it('every route schema (params, querystring, body) passes the JSON Schema meta-schema', () => {
  const ajv = new Ajv({ strict: false });
  const problems: string[] = [];
  let checked = 0;
  for (const route of svc.routes()) {
    for (const [part, schema] of Object.entries(route.schema ?? {})) {
      if (part === 'response' || schema === undefined) continue;
      checked++;
      if (!ajv.validateSchema(schema as object)) problems.push(`${route.method} ${route.url} ${part}: ${ajv.errorsText(ajv.errors)}`);
    }
  }
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThan(100);
});

it('a broken schema is what the check finds', () => {
  const ajv = new Ajv({ strict: false });
  expect(ajv.validateSchema({ type: 'object', properties: { a: { type: 'strng' } } })).toBe(false);
});
