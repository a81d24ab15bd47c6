// GET /openapi.json: one OpenAPI 3.1 document, generated from the route table and the routes' schemas.
// Every route is in it with its parameters, request body and success answers, and it validates.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

type Operation = {
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };

let svc: TestService;
let doc: Document;
beforeAll(async () => {
  svc = await startTestService();
  const res = await svc.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await svc.close();
});

/** Fastify's `/browsers/:id/fs` as OpenAPI writes it: `/browsers/{id}/fs`. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const routes = () => svc.routes().filter((r) => r.method !== 'HEAD');

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document with the bearer scheme and the Error shape', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 3000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components).toMatchObject({
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: { required: ['code', 'message'] } },
    });
  });

  it('has every route, each with its path parameters, its declared answers and the Error answer', () => {
    const missing: string[] = [];
    for (const { method, url } of routes()) {
      const op = doc.paths[openApiPath(url)]?.[method.toLowerCase()];
      if (!op) {
        missing.push(`${method} ${url}: not in the document`);
        continue;
      }
      const params = [...url.matchAll(/:(\w+)/g)].map((m) => m[1]);
      const documented = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      if (params.some((p) => !documented.includes(p!))) missing.push(`${method} ${url}: path parameters undocumented`);
      // @fastify/swagger fills in a bare "Default Response" where a route declares none. A route that can
      // only refuse (its success is not served here) declares that refusal instead.
      const declared = Object.entries(op.responses).filter(
        ([status, r]) => /^\d/.test(status) && (r as { description?: string }).description !== 'Default Response',
      );
      if (!declared.length) missing.push(`${method} ${url}: no answer declared`);
      if (!op.responses.default) missing.push(`${method} ${url}: no Error answer`);
    }
    expect(missing).toEqual([]);
  });

  it('describes the request body of every route that takes one, and the paging headers of every list', () => {
    const missing: string[] = [];
    for (const { method, url, schema } of routes()) {
      const op = doc.paths[openApiPath(url)]![method.toLowerCase()]!;
      if (['POST', 'PUT', 'PATCH'].includes(method) && !op.requestBody && !(schema as { bodyless?: boolean })?.bodyless) {
        missing.push(`${method} ${url}: no request body`);
      }
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const ok = op.responses['200'] as { headers?: Record<string, unknown> } | undefined;
      if (query.includes('offset') && !ok?.headers?.['X-Has-More']) missing.push(`${method} ${url}: paging headers undocumented`);
    }
    expect(missing).toEqual([]);
  });
});
