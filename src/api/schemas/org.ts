// The organisation: limits, API keys, projects, the audit log, and who a request is.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, offsetPageQuery, ours } from './common.js';

const limit = { type: ['integer', 'null'], description: 'null: no limit' } as const;

/**
 * `GET/PATCH /org/limits`. `max_concurrent_sessions` is always a number, as the SDK types it: 0 is no limit
 * (the hosted API's spelling of a removed cap), so what a PATCH sets reads back the same.
 */
export const orgLimits = {
  type: 'object',
  additionalProperties: false,
  required: ['max_concurrent_sessions', 'max_pooled_sessions', 'default_project_max_concurrent_sessions'],
  properties: {
    max_concurrent_sessions: { type: 'integer', minimum: 0, description: 'On-demand sessions plus pool reservations; 0: no limit' },
    max_pooled_sessions: { ...limit, description: 'Deprecated by the unified limit: accepted, stored and echoed, never enforced' },
    default_project_max_concurrent_sessions: {
      ...limit,
      description: "The max_concurrent_sessions of every project without its own; null: no default (such projects have only the organization's limit)",
    },
  },
} as const;

const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

/** Who created an API key: there are no user accounts here, the creator is the API key that asked. */
export const apiKeyCreator = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'email', 'name'],
  properties: { id: { type: 'string' }, email: { type: 'string' }, name: { type: ['string', 'null'] } },
} as const;

const apiKeyProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  masked_key: { type: 'string' },
  created_at: dateTime,
  created_by: apiKeyCreator,
  expires_at: { ...nullableDateTime, description: 'null: the key never expires' },
  deleted_at: nullableDateTime,
  project_id: { type: ['string', 'null'], description: 'null: an org-wide key' },
  project_name: { type: ['string', 'null'] },
} as const;
const apiKeyRequired = ['id', 'name', 'masked_key', 'created_at', 'created_by', 'expires_at', 'deleted_at', 'project_id', 'project_name'] as const;

/** `/org/api_keys`: an org-wide or project-scoped key, only ever shown masked. */
export const apiKey = { type: 'object', additionalProperties: false, required: apiKeyRequired, properties: apiKeyProperties } as const;

/** The answer to a create or rotate: the only time the plaintext `key` is shown. */
export const createdApiKey = {
  type: 'object',
  additionalProperties: false,
  required: [...apiKeyRequired, 'key'],
  properties: { ...apiKeyProperties, key: { type: 'string', description: 'The key itself: shown this once' } },
} as const;

export const projectStatus = { type: 'string', enum: ['active', 'archived'] } as const;

/** `/org/projects`. */
export const project = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'status', 'created_at', 'updated_at'],
  properties: { id: { type: 'string' }, name: { type: 'string' }, status: projectStatus, created_at: dateTime, updated_at: dateTime },
} as const;

/** `GET/PATCH /org/projects/{id}/limits`: overrides of the org limit; null means no project-level cap. */
export const projectLimits = {
  type: 'object',
  additionalProperties: false,
  required: ['max_concurrent_sessions', 'max_concurrent_invocations', 'max_pooled_sessions'],
  properties: {
    max_concurrent_sessions: limit,
    max_concurrent_invocations: limit,
    max_pooled_sessions: { type: 'null', description: 'Deprecated by the unified limit: always null; setting it is a 400' },
  },
} as const;

/** One mutating request, as `GET /audit-logs` lists it. */
export const auditLogEntry = {
  type: 'object',
  additionalProperties: false,
  required: [
    'timestamp', 'method', 'path', 'route', 'status', 'duration_ms', 'client_ip', 'domain', 'user_agent', 'user_id',
    'email', 'auth_strategy', 'api_key_id', 'project_id', 'request_id',
  ],
  properties: {
    timestamp: dateTime,
    method: { type: 'string' },
    path: { type: 'string', description: 'The path and query string, with token-like query values redacted' },
    route: { type: 'string', description: "The matched route pattern (`/browsers/{id_or_name}`), '' when no route matched" },
    status: { type: 'integer' },
    duration_ms: { type: 'number' },
    client_ip: { type: 'string' },
    domain: { type: 'string' },
    user_agent: { type: 'string' },
    user_id: { type: 'string', description: "The authenticating API key's id ('' when the request was not authenticated)" },
    email: { type: 'string' },
    auth_strategy: { type: 'string', description: '`api_key`, or `none` for requests that did not authenticate' },
    api_key_id: ours({ type: ['string', 'null'], description: 'Our extension: the key' }),
    project_id: ours({ type: ['string', 'null'], description: 'Our extension: the project the request acted in' }),
    request_id: ours({ type: 'string', description: 'Our extension: the request id (`x-request-id`)' }),
  },
} as const;

const scope = {
  type: 'object',
  additionalProperties: false,
  required: ['project_id'],
  properties: { project_id: { type: ['string', 'null'] } },
} as const;

/** `GET /auth/context`: who the request authenticated as and which project it acts in. */
export const authContextInfo = {
  type: 'object',
  additionalProperties: false,
  required: ['authentication', 'authorization', 'organization', 'principal'],
  properties: {
    authentication: {
      type: 'object',
      additionalProperties: false,
      required: ['credential_id', 'method', 'source'],
      properties: {
        credential_id: { type: ['string', 'null'] },
        method: { type: 'string', enum: ['api_key', 'jwt'] },
        source: { type: 'string', enum: ['api_key', 'oauth', 'dashboard'] },
      },
    },
    authorization: {
      type: 'object',
      additionalProperties: false,
      required: ['credential_scope', 'effective_scope'],
      properties: { credential_scope: scope, effective_scope: scope },
    },
    organization: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string' } } },
    principal: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'type'],
      properties: { id: { type: 'string' }, type: { type: 'string', enum: ['api_key', 'user'] } },
    },
  },
} as const;

// What requests send.

/** A limit as a request sets it: 0 or null removes it. */
const limitValue = { type: ['integer', 'null'], minimum: 0, maximum: 1_000_000 } as const;

/** `PATCH /org/limits`. */
export const orgLimitsUpdateParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_concurrent_sessions: limitValue,
    max_pooled_sessions: limitValue,
    default_project_max_concurrent_sessions: { ...limitValue, description: "0 or null removes the default; at most the organization's max_concurrent_sessions" },
  },
} as const;

const keyName = { type: 'string', minLength: 1, maxLength: 255 } as const;
const days = { type: ['integer', 'null'], minimum: 1, maximum: 3650, description: '1-3650; null or omitted: never expires' } as const;

/** `POST /org/api_keys`. */
export const apiKeyCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: keyName, days_to_expire: days, project_id: { type: ['string', 'null'], minLength: 1, maxLength: 255 } },
} as const;

export const apiKeyUpdateParams = { type: 'object', additionalProperties: false, required: ['name'], properties: { name: keyName } } as const;

/** `POST /org/api_keys/{id}/rotate`. */
export const apiKeyRotateParams = {
  type: 'object',
  additionalProperties: false,
  properties: { days_to_expire: days, expire_in_days: { type: ['integer', 'null'], minimum: 0, maximum: 3650 } },
} as const;

export const apiKeyListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...offsetPageQuery,
    status: { type: 'string', enum: ['active', 'deleted', 'all'] },
    include_deleted: { type: 'boolean' },
    name: { type: 'string', maxLength: 255 },
    query: { type: 'string', maxLength: 255 },
    sort_by: { type: 'string', enum: ['created_at', 'name', 'expires_at'], default: 'created_at' },
    sort_direction: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
  },
} as const;

const projectName = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' } as const;

export const projectCreateParams = { type: 'object', additionalProperties: false, required: ['name'], properties: { name: projectName } } as const;
export const projectUpdateParams = {
  type: 'object',
  additionalProperties: false,
  properties: { name: projectName, status: projectStatus },
} as const;
export const projectLimitsUpdateParams = {
  type: 'object',
  additionalProperties: false,
  properties: { max_concurrent_sessions: limitValue, max_concurrent_invocations: limitValue, max_pooled_sessions: limitValue },
} as const;

const stringOrList = { anyOf: [{ type: 'string', maxLength: 2000 }, { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 255 } }] } as const;

/** What both audit reads filter by: the hosted filters, then ours (exact fields of the record). */
const auditLogFilters = {
  start: { type: 'string', minLength: 1, maxLength: 64 },
  end: { type: 'string', minLength: 1, maxLength: 64 },
  method: { type: 'string', minLength: 1, maxLength: 16 },
  exclude_method: stringOrList,
  auth_strategy: { type: 'string', maxLength: 64 },
  service: { type: 'string', minLength: 1, maxLength: 255 },
  search: { type: 'string', maxLength: 255 },
  search_user_id: stringOrList,
  path: ours({ type: 'string', pattern: '^/', maxLength: 2048 }),
  route: ours({ type: 'string', maxLength: 2048 }),
  status: ours({ type: 'integer', minimum: 100, maximum: 599 }),
  api_key_id: ours({ type: 'string', maxLength: 255 }),
  project_id: ours({ type: 'string', maxLength: 255 }),
} as const;

/** `GET /audit-logs`: a window of at most 30 days, filtered. */
export const auditLogListQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['start', 'end'],
  properties: {
    ...auditLogFilters,
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    page_token: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

/** The most records one export chunk holds (the hosted API's bound, which the SDK checks). */
export const AUDIT_EXPORT_MAX_ROWS = 50_000;

/** `GET /audit-logs/export/chunk`: the same filters, any window, in chunks led on by `cursor`. */
export const auditLogExportChunkQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['start', 'end'],
  properties: {
    ...auditLogFilters,
    format: { type: 'string', enum: ['jsonl.gz', 'jsonl'], default: 'jsonl.gz', description: 'JSON Lines, gzip-compressed by default' },
    limit: { type: 'integer', minimum: 1, maximum: AUDIT_EXPORT_MAX_ROWS, default: 10_000 },
    cursor: { type: 'string', minLength: 1, maxLength: 300, description: 'The `X-Next-Cursor` of the previous chunk' },
  },
} as const;

export type OrgLimits = FromSchema<typeof orgLimits>;
export type ApiKeyCreator = FromSchema<typeof apiKeyCreator>;
export type ApiKey = FromSchema<typeof apiKey>;
export type CreatedApiKey = FromSchema<typeof createdApiKey>;
export type ProjectStatus = FromSchema<typeof projectStatus>;
export type Project = FromSchema<typeof project>;
export type ProjectLimits = FromSchema<typeof projectLimits>;
export type AuditLogEntry = FromSchema<typeof auditLogEntry>;
export type AuthContextInfo = FromSchema<typeof authContextInfo>;
export type ApiKeyCreateParams = FromSchema<typeof apiKeyCreateParams>;
export type ApiKeyRotateParams = FromSchema<typeof apiKeyRotateParams>;
