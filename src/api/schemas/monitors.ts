// Monitors (ours: the hosted API has no such group): suites deployed to the service (`bcs monitor deploy`) whose
// checks run on the service's own schedule and browsers, with retries, alert policies and channels. A check is
// one scenario file of the deployed folder. The CLI resolves the config's defaults and groups into one manifest
// per deploy, so the service is given every check's settings whole; this module is the one source of its shape.
import type { FromSchema } from 'json-schema-to-ts';
import { instant } from './runs.js';
import type { Input } from './common.js';

const label = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\u0000-\\u001f\\u007f]*$' } as const;
/** A path inside the deployed folder: relative, `/`-separated, no `..`. */
const bundlePath = { type: 'string', minLength: 1, maxLength: 1024, pattern: '^(?!/)(?!.*(^|/)\\.\\.(/|$))[^\\u0000-\\u001f\\\\]+$' } as const;
/** An environment variable's name, as scenarios read secrets by. */
const envName = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } as const;
const seconds = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum }) as const;

/** A secret's value never travels in a deploy: the manifest names where the service reads it. */
export const secretRef = {
  type: 'object',
  additionalProperties: false,
  required: ['secret'],
  properties: { secret: { ...envName, description: 'A name in the manifest\'s `secrets`' } },
} as const;
const urlOrSecret = { anyOf: [{ type: 'string', minLength: 1, maxLength: 2048, pattern: '^https?://' }, secretRef] } as const;
const textOrSecret = { anyOf: [{ ...label }, secretRef] } as const;

export const schedule = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['cron'],
      properties: { cron: { type: 'string', minLength: 9, maxLength: 120 }, timezone: { type: 'string', minLength: 1, maxLength: 64 } },
    },
    { type: 'object', additionalProperties: false, required: ['every_seconds'], properties: { every_seconds: seconds(10, 7 * 86_400) } },
  ],
} as const;

export const retryPolicy = {
  type: 'object',
  additionalProperties: false,
  required: ['count'],
  properties: {
    count: { type: 'integer', minimum: 0, maximum: 10, description: 'Attempts after the first' },
    strategy: { type: 'string', enum: ['immediate', 'fixed', 'exponential'], default: 'fixed' },
    delay_seconds: seconds(0, 3600),
    max_delay_seconds: seconds(0, 86_400),
  },
} as const;

export const alertPolicy = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after_failures: { type: 'integer', minimum: 1, maximum: 1000, description: 'Alert once this many runs in a row failed' },
    after_minutes: { type: 'integer', minimum: 1, maximum: 10_080, description: 'Or once the check has been failing this long' },
    on_recovery: { type: 'boolean', description: 'Tell the channels when a check that alerted passes again (default true)' },
    remind_every: { type: 'integer', minimum: 1, maximum: 10_000, description: 'While failing, alert again every this many runs' },
    degraded_ms: { type: 'integer', minimum: 1, maximum: 86_400_000, description: 'A passing run slower than this is degraded' },
  },
} as const;

export const monitorCheck = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'file', 'schedule'],
  properties: {
    name: { ...label, description: 'Unique in the suite' },
    file: bundlePath,
    group: label,
    schedule,
    timeout_seconds: seconds(1, 6 * 3600),
    retries: retryPolicy,
    alert: alertPolicy,
    channels: { type: 'array', maxItems: 20, uniqueItems: true, items: label },
    keep_on_failure_seconds: seconds(0, 86_400),
    tags: { type: 'array', maxItems: 50, uniqueItems: true, items: label },
    paused: { type: 'boolean', description: 'Deployed paused: it runs once resumed (a redeploy without it leaves a pause as it is)' },
  },
} as const;

export const monitorChannel = {
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['type', 'url'], properties: { type: { const: 'webhook' }, url: urlOrSecret, secret: secretRef } },
    { type: 'object', additionalProperties: false, required: ['type', 'url'], properties: { type: { const: 'slack' }, url: urlOrSecret } },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'smtp', 'from', 'to'],
      properties: {
        type: { const: 'email' },
        smtp: {
          type: 'object',
          additionalProperties: false,
          required: ['host', 'port'],
          properties: {
            host: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:\\[\\]-]+$' },
            port: { type: 'integer', minimum: 1, maximum: 65_535 },
            secure: { type: 'boolean', description: 'Implicit TLS (port 465); otherwise STARTTLS when the server offers it' },
            user: textOrSecret,
            password: secretRef,
          },
        },
        from: label,
        to: { type: 'array', minItems: 1, maxItems: 50, items: label },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'routing_key'],
      properties: { type: { const: 'pagerduty' }, url: urlOrSecret, routing_key: secretRef },
    },
  ],
} as const;

export const secretSource = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['credential', 'field'],
      properties: { credential: label, field: { type: 'string', minLength: 1, maxLength: 255 } },
      description: "A value of one of the service's credentials (in the deploying key's project)",
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['env'],
      properties: { env: { ...envName, pattern: '^BCS_SECRET_[A-Za-z0-9_]+$' } },
      description: "A variable of the service's own environment; only BCS_SECRET_* ones, which its operator set for monitors",
    },
  ],
} as const;

export const maintenanceWindow = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['start', 'end'],
      properties: { start: instant, end: instant, checks: { type: 'array', maxItems: 1000, items: label } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['cron', 'duration_minutes'],
      properties: {
        cron: { type: 'string', minLength: 9, maxLength: 120 },
        timezone: { type: 'string', minLength: 1, maxLength: 64 },
        duration_minutes: { type: 'integer', minimum: 1, maximum: 10_080 },
        checks: { type: 'array', maxItems: 1000, items: label },
      },
    },
  ],
} as const;

/** `POST /monitors/deployments`: the `manifest` part beside the zipped folder in `file`. */
export const monitorManifest = {
  type: 'object',
  additionalProperties: false,
  required: ['suite', 'checks'],
  properties: {
    suite: { ...label, description: 'Redeploying a suite replaces its checks; their state and history stay with their names' },
    checks: { type: 'array', minItems: 1, maxItems: 2000, items: monitorCheck },
    channels: { type: 'object', maxProperties: 50, propertyNames: { ...label, pattern: '^[A-Za-z0-9_.-]+$' }, additionalProperties: monitorChannel },
    secrets: { type: 'object', maxProperties: 200, propertyNames: envName, additionalProperties: secretSource },
    maintenance: { type: 'array', maxItems: 100, items: maintenanceWindow },
  },
} as const;

export const MONITOR_STATUSES = ['pending', 'passing', 'failing', 'degraded'] as const;

export const checkIdParams = { type: 'object', required: ['check_id'], properties: { check_id: { type: 'string', minLength: 1, maxLength: 255 } } } as const;
export const suiteNameParams = { type: 'object', required: ['suite'], properties: { suite: label } } as const;

export const checkListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    suite: label,
    status: { type: 'string', enum: MONITOR_STATUSES },
    recent: { type: 'integer', minimum: 0, maximum: 100, default: 20, description: 'How many of each check\'s latest runs to include' },
  },
} as const;

const checkRunPoint = {
  type: 'object',
  additionalProperties: false,
  required: ['run_id', 'status', 'started_at', 'duration_ms', 'attempt'],
  properties: {
    run_id: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['passed', 'failed', 'error', 'timed_out'] },
    started_at: { type: 'string' },
    duration_ms: { type: 'integer' },
    attempt: { type: 'integer' },
    message: { type: 'string' },
  },
} as const;

export const monitorCheckState = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id', 'suite', 'name', 'file', 'group', 'schedule', 'timeout_seconds', 'retries', 'alert', 'channels', 'keep_on_failure_seconds', 'tags',
    'paused', 'status', 'running', 'consecutive_failures', 'failing_since', 'last_run_at', 'last_run_id', 'last_duration_ms', 'next_run_at', 'recent',
  ],
  properties: {
    id: { type: 'string' },
    suite: { type: 'string' },
    name: { type: 'string' },
    file: { type: 'string' },
    group: { type: ['string', 'null'] },
    schedule,
    timeout_seconds: { type: 'integer' },
    retries: retryPolicy,
    alert: alertPolicy,
    channels: { type: 'array', items: { type: 'string' } },
    keep_on_failure_seconds: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
    paused: { type: 'boolean' },
    status: { type: 'string', enum: MONITOR_STATUSES },
    running: { type: 'boolean' },
    consecutive_failures: { type: 'integer' },
    failing_since: { type: ['string', 'null'] },
    last_run_at: { type: ['string', 'null'] },
    last_run_id: { type: ['string', 'null'] },
    last_duration_ms: { type: ['integer', 'null'] },
    next_run_at: { type: ['string', 'null'], description: 'Null while paused' },
    recent: { type: 'array', items: checkRunPoint, description: 'The latest runs, newest first' },
  },
} as const;

export const monitorDeployment = {
  type: 'object',
  additionalProperties: false,
  required: ['suite', 'version', 'deployed_at', 'checks', 'removed'],
  properties: {
    suite: { type: 'string' },
    version: { type: 'integer' },
    deployed_at: { type: 'string' },
    checks: { type: 'array', items: monitorCheckState },
    removed: { type: 'array', items: { type: 'string' }, description: 'Checks of the previous deploy that this one no longer has' },
  },
} as const;

export const alertListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { check_id: { type: 'string', minLength: 1, maxLength: 255 }, limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
} as const;

export const monitorAlertRecord = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'check_id', 'kind', 'at', 'muted', 'deliveries'],
  properties: {
    id: { type: 'string' },
    check_id: { type: 'string' },
    kind: { type: 'string', enum: ['failing', 'recovered', 'reminder', 'degraded'] },
    at: { type: 'string' },
    muted: { type: 'boolean', description: 'Raised in a maintenance window: kept, not sent' },
    run_id: { type: ['string', 'null'] },
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['channel', 'ok', 'attempts'],
        properties: { channel: { type: 'string' }, ok: { type: 'boolean' }, attempts: { type: 'integer' }, error: { type: 'string' } },
      },
    },
  },
} as const;

export type MonitorManifest = Input<typeof monitorManifest>;
export type MonitorCheckSpec = Input<typeof monitorCheck>;
export type MonitorChannelSpec = Input<typeof monitorChannel>;
export type SecretSource = Input<typeof secretSource>;
export type MaintenanceWindow = Input<typeof maintenanceWindow>;
export type MonitorSchedule = Input<typeof schedule>;
export type RetryPolicy = Input<typeof retryPolicy>;
export type AlertPolicy = Input<typeof alertPolicy>;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];
export type MonitorCheckState = FromSchema<typeof monitorCheckState>;
export type MonitorDeployment = FromSchema<typeof monitorDeployment>;
export type MonitorAlertRecord = FromSchema<typeof monitorAlertRecord>;
export type CheckRunPoint = FromSchema<typeof checkRunPoint>;

/** How `POST /monitors/deployments` is sent (multipart/form-data), for the OpenAPI document. */
export const monitorDeployMultipart = {
  type: 'object',
  required: ['file', 'manifest'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'A zip of the suite folder (scenario files, their config, what they load)' },
    manifest: { type: 'string', description: 'The manifest as JSON text: the checks with their schedules and policies, channels, secrets by name, maintenance' },
  },
} as const;
