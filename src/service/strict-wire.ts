// The hosted wire only (`ServiceOptions.strictWire`, `bcs serve --strict-wire`): everything the schemas mark
// as ours (EXTENSION in src/api/schemas/common.ts) is hidden as the hosted service, which never had it, would
// show it, so a client can be tried here against what it will meet there. A route of ours answers as a path
// no route serves (404 `no route ...`, after the same authentication); a field of ours is left out of
// answers (bodies, error bodies, event-stream frames) and refused in requests (a 400 naming it, as any
// unknown field). One place decides this from the marks, so a new extension is hidden by marking it.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { EXTENSION, errorBody } from '../api/schemas/common.js';
import { noRoute } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** On the hosted wire only: an event-stream frame as that wire carries it (sse.ts writes frames through it). */
    frameOnWire?: (frame: unknown) => unknown;
  }
}

type Schema = Record<string, unknown>;

export function installStrictWire(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as Schema | undefined;
    if (!schema) return;
    if (schema[EXTENSION]) return hideRoute(route);
    const { body, querystring } = schema;
    route.schema = { ...schema, ...(body ? { body: withoutOurFields(body) } : {}), ...(querystring ? { querystring: withoutOurFields(querystring) } : {}) };
  });
  // Objects only: strings, buffers and streams (files, videos, WebVTT) carry no fields of ours.
  app.addHook('preSerialization', async (req: FastifyRequest, reply, payload: unknown) => leaveOutOurs(payload, answerSchema(req, reply.statusCode)));
  app.addHook('onRequest', async (req) => {
    req.frameOnWire = (frame) => leaveOutOurs(frame, frameSchema(req));
  });
}

/** Authentication runs first as for any path (a request without a key is still a 401), then the 404. */
function hideRoute(route: RouteOptions): void {
  const answerNoRoute = async (req: FastifyRequest) => {
    throw noRoute(req.method, req.url);
  };
  route.onRequest = [answerNoRoute, ...[route.onRequest ?? []].flat()];
  // A path no route serves takes no session token in place of a key, and checks no credential of its own.
  route.config = { ...route.config, sessionToken: false, selfAuthenticated: false };
}

function answerSchema(req: FastifyRequest, status: number): unknown {
  const declared = (req.routeOptions.schema?.response as Schema | undefined)?.[status];
  return declared ?? (status >= 400 ? errorBody : undefined);
}

function frameSchema(req: FastifyRequest): unknown {
  const ok = (req.routeOptions.schema?.response as Schema | undefined)?.[200] as { content?: Record<string, { schema?: unknown }> } | undefined;
  return ok?.content?.['text/event-stream']?.schema;
}

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const isOurs = (s: unknown) => isSchema(s) && s[EXTENSION] === true;

/** `value` without the fields `schema` marks as ours, at any depth; copies what it changes, never the original. */
export function leaveOutOurs(value: unknown, schema: unknown): unknown {
  if (!isSchema(schema) || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return isSchema(schema.items) ? value.map((item) => leaveOutOurs(item, schema.items)) : value;
  let out = value as Record<string, unknown>;
  // Each branch leaves out its own fields of ours; a field of ours in one branch is ours wherever it is.
  for (const branch of [schema.anyOf, schema.oneOf, schema.allOf].flat()) if (branch) out = leaveOutOurs(out, branch) as Record<string, unknown>;
  if (!isSchema(schema.properties)) return out;
  const copy = { ...out };
  for (const [key, field] of Object.entries(schema.properties)) {
    if (!(key in copy)) continue;
    if (isOurs(field)) delete copy[key];
    else copy[key] = leaveOutOurs(copy[key], field);
  }
  return copy;
}

const requestSchemas = new WeakMap<object, Schema>();

/**
 * A request schema without the fields of ours: where it takes no other fields (`additionalProperties: false`,
 * as every request schema here), sending one is the 400 `invalid_input` any unknown field gets.
 */
function withoutOurFields(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  const known = requestSchemas.get(schema);
  if (known) return known;
  const out: Schema = { ...schema };
  if (isSchema(schema.properties)) {
    const kept = Object.entries(schema.properties).filter(([, field]) => !isOurs(field));
    out.properties = Object.fromEntries(kept.map(([key, field]) => [key, withoutOurFields(field)]));
    if (Array.isArray(schema.required)) out.required = schema.required.filter((key) => kept.some(([k]) => k === key));
  }
  if (isSchema(schema.items)) out.items = withoutOurFields(schema.items);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(schema[key])) out[key] = (schema[key] as unknown[]).map(withoutOurFields);
  }
  requestSchemas.set(schema, out);
  return out;
}
