// The `monitors:` section of bcs.config.yaml: how `bcs monitor deploy` turns the suite's scenario files into
// checks the service runs on schedules. Settings cascade: `defaults`, then each matching group (in order), then
// the file's own entry under `checks`. Durations are written as "30s", "5m", "2h" or "1d".

const span = { type: 'string', pattern: '^\\d+(s|m|h|d)$' } as const;
const name = { type: 'string', minLength: 1, maxLength: 255 } as const;
const secretRef = { type: 'object', additionalProperties: false, required: ['secret'], properties: { secret: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } } } as const;
const urlOrSecret = { anyOf: [{ type: 'string', pattern: '^https?://' }, secretRef] } as const;

/** What a check's settings may say, at every level of the cascade. */
const settings = {
  every: span,
  cron: { type: 'string', minLength: 9 },
  timezone: { type: 'string', minLength: 1 },
  timeout: span,
  retries: {
    type: 'object',
    additionalProperties: false,
    required: ['count'],
    properties: { count: { type: 'integer', minimum: 0, maximum: 10 }, strategy: { enum: ['immediate', 'fixed', 'exponential'] }, delay: span, max_delay: span },
  },
  alert: {
    type: 'object',
    additionalProperties: false,
    properties: {
      after_failures: { type: 'integer', minimum: 1, maximum: 1000 },
      after: span,
      on_recovery: { type: 'boolean' },
      remind_every: { type: 'integer', minimum: 1, maximum: 10_000 },
      degraded_after: span,
    },
  },
  channels: { type: 'array', items: name },
  keep_on_failure: span,
  tags: { type: 'array', items: name },
  paused: { type: 'boolean' },
} as const;

export const monitorsConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    suite: name,
    paths: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] },
    defaults: { type: 'object', additionalProperties: false, properties: settings },
    groups: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'paths'],
        properties: { name, paths: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } }, ...settings },
      },
    },
    checks: { type: 'object', additionalProperties: { type: 'object', additionalProperties: false, properties: { name, ...settings } } },
    channels: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['type'],
        properties: {
          type: { enum: ['webhook', 'slack', 'email', 'pagerduty'] },
          url: urlOrSecret,
          secret: secretRef,
          routing_key: secretRef,
          smtp: { type: 'object' },
          from: { type: 'string' },
          to: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        },
        additionalProperties: false,
      },
    },
    secrets: {
      type: 'object',
      additionalProperties: {
        anyOf: [
          { type: 'object', additionalProperties: false, required: ['credential', 'field'], properties: { credential: name, field: name } },
          { type: 'object', additionalProperties: false, required: ['env'], properties: { env: { type: 'string', pattern: '^BCS_SECRET_[A-Za-z0-9_]+$' } } },
        ],
      },
    },
    maintenance: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: { start: { type: 'string' }, end: { type: 'string' }, cron: { type: 'string' }, timezone: { type: 'string' }, duration: span, checks: { type: 'array', items: name } },
      },
    },
  },
} as const;

export type SpanText = string;

export interface CheckSettings {
  every?: SpanText;
  cron?: string;
  timezone?: string;
  timeout?: SpanText;
  retries?: { count: number; strategy?: 'immediate' | 'fixed' | 'exponential'; delay?: SpanText; max_delay?: SpanText };
  alert?: { after_failures?: number; after?: SpanText; on_recovery?: boolean; remind_every?: number; degraded_after?: SpanText };
  channels?: string[];
  keep_on_failure?: SpanText;
  tags?: string[];
  paused?: boolean;
}

/** The section as written (paths still relative to the config file). */
export interface MonitorsConfig {
  suite?: string;
  paths?: string | string[];
  defaults?: CheckSettings;
  groups?: (CheckSettings & { name: string; paths: string[] })[];
  checks?: Record<string, CheckSettings & { name?: string }>;
  channels?: Record<string, Record<string, unknown>>;
  secrets?: Record<string, { credential: string; field: string } | { env: string }>;
  maintenance?: { start?: string; end?: string; cron?: string; timezone?: string; duration?: SpanText; checks?: string[] }[];
}

const SPAN_S = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** Seconds of "30s", "5m", "2h", "1d". */
export function spanSeconds(text: SpanText): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(text);
  if (!m) throw new Error(`invalid duration '${text}'; expected one such as "30s", "5m", "2h" or "1d"`);
  return Number(m[1]) * SPAN_S[m[2] as keyof typeof SPAN_S];
}
