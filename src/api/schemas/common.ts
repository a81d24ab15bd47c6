// Wire shapes every resource group uses, as JSON Schemas: the one source of the service's validation, its
// OpenAPI document and the TypeScript types (each schema module derives its types with FromSchema).
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** What a client sends for request schema `S`: fields with a default may be left out. */
export type Input<S extends JSONSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: true }>;

/**
 * Marks what the hosted API (docs/service.md, "The hosted wire only") does not have: a field of ours
 * (`ours(schema)`) or a route of ours (`extensionRoute` spread into the route's schema). GET /openapi.json
 * shows the mark; a service started with `strictWire` hides every marked thing (src/service/strict-wire.ts).
 */
export const EXTENSION = 'x-bcs-extension';

/** `schema` as a field of ours, which the hosted API does not have. */
export const ours = <const S extends object>(schema: S) => ({ ...schema, 'x-bcs-extension': true }) as const;

/** Spread into a route's schema: the whole route is ours. */
export const extensionRoute = { 'x-bcs-extension': true } as const;

export const errorDetail = {
  type: 'object',
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    field: ours({ type: 'string', description: 'Our extension: the request field the detail is about, e.g. `body.timeout_seconds`' }),
  },
} as const;

/** The Error body every non-2xx answer carries. */
export const errorBody = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    details: { type: 'array', items: errorDetail },
    inner_error: errorDetail,
  },
} as const;

export const viewport = {
  type: 'object',
  required: ['width', 'height'],
  properties: {
    width: { type: 'integer' },
    height: { type: 'integer' },
    refresh_rate: { type: 'integer' },
  },
} as const;

/** An ISO 8601 date-time as the wire writes them. */
export const dateTime = { type: 'string', format: 'date-time' } as const;

export const tags = { type: 'object', additionalProperties: { type: 'string' } } as const;

/** The generic `{ok: true}` answer (process kill and resize, cursor). */
export const okResult = {
  type: 'object',
  additionalProperties: false,
  required: ['ok'],
  properties: { ok: { type: 'boolean', const: true } },
} as const;

export type OkResult = FromSchema<typeof okResult>;
export type ErrorDetail = FromSchema<typeof errorDetail>;
export type ErrorBody = FromSchema<typeof errorBody>;
export type Viewport = FromSchema<typeof viewport>;

/** Larger than any list here can be; within SQLite's integers and JavaScript's exact ones. */
export const MAX_OFFSET = 2 ** 31 - 1;

/** The query properties every offset-paged list takes. */
export const offsetPageQuery = {
  // Bounded so a huge offset is a 400, not a number the database cannot hold.
  offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
} as const;

/** An offset-paged list filtered by exact `name` (case-insensitive) or a `query` over names and ids. */
export const namedListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...offsetPageQuery, name: { type: 'string', maxLength: 255 }, query: { type: 'string', maxLength: 255 } },
} as const;

/** Names of profiles and extensions. */
export const NAME_PATTERN = '^[A-Za-z0-9._-]{1,255}$';
