// Apps, deployments and invocations: code deployed to the service and the actions it defines, run on
// demand. The shapes are the hosted API's (§15 of the reference, `@onkernel/sdk` resources deployments,
// apps and invocations).
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, errorBody, offsetPageQuery, ours, type Input } from './common.js';

export const REGION = 'aws.us-east-1a';
const region = { type: 'string', enum: [REGION], description: 'The only region, as on the hosted service' } as const;

export const deploymentStatus = { type: 'string', enum: ['queued', 'in_progress', 'running', 'failed', 'stopped'] } as const;
export const invocationStatus = { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] } as const;

const envVars = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Environment variables of the deployment; values are redacted (empty strings) in answers, as the hosted service does for API-key callers',
} as const;

export const deployment = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'created_at', 'region', 'status'],
  properties: {
    id: { type: 'string' },
    created_at: dateTime,
    updated_at: { ...dateTime, type: ['string', 'null'] },
    region,
    status: deploymentStatus,
    status_reason: { type: 'string', description: 'Why it failed or stopped; a build or load error names file:line where there is one' },
    entrypoint_rel_path: { type: 'string' },
    env_vars: envVars,
    source_type: { type: 'string', enum: ['file', 'github'] },
    source_checksum: { type: 'string', description: 'Hex SHA-256 of the uploaded archive' },
    source_url: { type: 'string' },
    source_ref: { type: 'string' },
    source_path: { type: 'string' },
    app_name: ours({ type: 'string', description: 'Our extension: the app the deployment registered, once it is running' }),
    version: ours({ type: 'string', description: 'Our extension: the version label the deployment was made with' }),
  },
} as const;

export const appAction = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string' },
    input_schema: { type: ['object', 'null'] },
    output_schema: { type: ['object', 'null'] },
  },
} as const;

/** One version of an app, as `GET /apps` lists it. */
export const appVersion = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'app_name', 'version', 'region', 'deployment', 'actions', 'env_vars'],
  properties: {
    id: { type: 'string' },
    app_name: { type: 'string' },
    version: { type: 'string' },
    region,
    deployment: { type: 'string', description: 'The id of the deployment that registered this version' },
    actions: { type: 'array', items: appAction },
    env_vars: envVars,
  },
} as const;

const SOURCE_FIELDS = {
  entrypoint_rel_path: { type: 'string', minLength: 1, maxLength: 1024 },
  env_vars: {
    type: 'object',
    maxProperties: 200,
    propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,254}$' },
    additionalProperties: { type: 'string', maxLength: 65536 },
  },
  version: { type: 'string', minLength: 1, maxLength: 255 },
  region,
  force: { type: 'boolean' },
} as const;

/**
 * `POST /deployments` as JSON: a GitHub source (this host has no route to GitHub, so it is refused with a
 * reason). A zip comes as multipart with the same fields and a `file` part; see deploymentMultipart.
 */
export const deploymentCreateParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...SOURCE_FIELDS,
    source: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'url', 'ref', 'entrypoint'],
      properties: {
        type: { type: 'string', enum: ['github'] },
        url: { type: 'string', minLength: 1, maxLength: 2048 },
        ref: { type: 'string', minLength: 1, maxLength: 255 },
        entrypoint: { type: 'string', minLength: 1, maxLength: 1024 },
        path: { type: 'string', maxLength: 1024 },
        auth: {
          type: 'object',
          additionalProperties: false,
          required: ['method', 'token'],
          properties: { method: { type: 'string', enum: ['github_token'] }, token: { type: 'string', maxLength: 1024 } },
        },
      },
    },
  },
} as const;

/** The multipart fields of `POST /deployments` with a zip (documented; the route reads the parts itself). */
export const deploymentMultipart = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'A zip of the app folder' },
    entrypoint_rel_path: { type: 'string', description: 'The entrypoint, relative to the zip root (default: index.ts, index.js, src/index.ts, main.ts...)' },
    env_vars: { type: 'string', description: 'A JSON object of strings; also accepted as env_vars[NAME] fields' },
    version: { type: 'string', description: 'The version label (default `latest`)' },
    region,
    force: { type: 'string', enum: ['true', 'false'], description: 'Replace a running deployment of the same app and version' },
  },
} as const;

export const deploymentListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...offsetPageQuery,
    app_name: { type: 'string', maxLength: 255 },
    app_version: { type: 'string', maxLength: 255 },
    query: { type: 'string', maxLength: 255 },
  },
} as const;

export const appListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...offsetPageQuery,
    app_name: { type: 'string', maxLength: 255 },
    version: { type: 'string', maxLength: 255 },
    query: { type: 'string', maxLength: 255 },
  },
} as const;

/** `since` of the event streams: an RFC 3339 time or a duration back from now (`5m`, `90s`, `2h`). */
export const followQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { since: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

export const invocation = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'action_name', 'app_name', 'version', 'status', 'started_at'],
  properties: {
    id: { type: 'string' },
    app_name: { type: 'string' },
    action_name: { type: 'string' },
    version: { type: 'string' },
    status: invocationStatus,
    status_reason: { type: 'string' },
    started_at: dateTime,
    finished_at: { ...dateTime, type: ['string', 'null'] },
    payload: { type: 'string', description: 'The payload as sent: JSON text' },
    output: { type: 'string', description: "The action's return value as JSON text (any JSON value)" },
    deployment_id: ours({ type: 'string', description: 'Our extension: the deployment that ran it' }),
  },
} as const;

/** `POST /invocations`' answer: the invocation so far (the output too, when it ran synchronously). */
export const invocationCreated = invocation;

export const invocationCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['app_name', 'version', 'action_name'],
  properties: {
    app_name: { type: 'string', minLength: 1, maxLength: 255 },
    version: { type: 'string', minLength: 1, maxLength: 255 },
    action_name: { type: 'string', minLength: 1, maxLength: 255 },
    payload: { type: 'string', maxLength: 4 * 1024 * 1024, description: 'JSON text, handed to the action parsed' },
    async: { type: 'boolean' },
    async_timeout_seconds: { type: 'integer', minimum: 10, maximum: 3600, description: 'Only with async (default 900)' },
  },
} as const;

export const invocationUpdateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: {
    status: { type: 'string', enum: ['succeeded', 'failed'] },
    output: { type: 'string', maxLength: 4 * 1024 * 1024 },
  },
} as const;

export const invocationListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...offsetPageQuery,
    app_name: { type: 'string', maxLength: 255 },
    action_name: { type: 'string', maxLength: 255 },
    deployment_id: { type: 'string', maxLength: 255 },
    status: invocationStatus,
    version: { type: 'string', maxLength: 255 },
    since: { type: 'string', minLength: 1, maxLength: 64 },
    query: { type: 'string', maxLength: 255 },
  },
} as const;

const timestamp = dateTime;

export const logEvent = {
  type: 'object',
  required: ['event', 'message', 'timestamp'],
  properties: { event: { const: 'log' }, message: { type: 'string' }, timestamp },
} as const;

export const errorEvent = {
  type: 'object',
  required: ['event', 'error', 'timestamp'],
  properties: { event: { const: 'error' }, error: errorBody, timestamp },
} as const;

export const heartbeatEvent = {
  type: 'object',
  required: ['event', 'timestamp'],
  properties: { event: { const: 'sse_heartbeat' }, timestamp },
} as const;

export const deploymentEvent = {
  oneOf: [
    logEvent,
    { type: 'object', required: ['event', 'deployment', 'timestamp'], properties: { event: { const: 'deployment_state' }, deployment, timestamp } },
    {
      type: 'object',
      required: ['event', 'id', 'app_name', 'version', 'region', 'actions', 'timestamp'],
      properties: {
        event: { const: 'app_version_summary' },
        id: { type: 'string' },
        app_name: { type: 'string' },
        version: { type: 'string' },
        region,
        actions: { type: 'array', items: appAction },
        timestamp,
      },
    },
    errorEvent,
    heartbeatEvent,
  ],
} as const;

export const invocationEvent = {
  oneOf: [
    logEvent,
    { type: 'object', required: ['event', 'invocation', 'timestamp'], properties: { event: { const: 'invocation_state' }, invocation, timestamp } },
    errorEvent,
    heartbeatEvent,
  ],
} as const;

export type Deployment = FromSchema<typeof deployment>;
export type DeploymentStatus = FromSchema<typeof deploymentStatus>;
export type AppAction = FromSchema<typeof appAction>;
export type AppVersion = FromSchema<typeof appVersion>;
export type DeploymentCreateParams = Input<typeof deploymentCreateParams>;
export type DeploymentListQuery = FromSchema<typeof deploymentListQuery>;
export type AppListQuery = FromSchema<typeof appListQuery>;
export type Invocation = FromSchema<typeof invocation>;
export type InvocationStatus = FromSchema<typeof invocationStatus>;
export type InvocationCreateParams = Input<typeof invocationCreateParams>;
export type InvocationUpdateParams = Input<typeof invocationUpdateParams>;
export type InvocationListQuery = FromSchema<typeof invocationListQuery>;
