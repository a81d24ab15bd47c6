// Telemetry: which categories a session captures, and the events it captured.
import type { FromSchema } from 'json-schema-to-ts';

export const telemetryCategory = {
  type: 'string',
  enum: ['console', 'network', 'page', 'interaction', 'control', 'connection', 'system', 'captcha', 'screenshot', 'monitor'],
} as const;

const flag = { type: 'object', additionalProperties: false, properties: { enabled: { type: 'boolean' } } } as const;

/** Each configurable category (all but `monitor`) with its flag. */
export const telemetryFlags = {
  type: 'object',
  additionalProperties: false,
  properties: {
    console: flag,
    network: flag,
    page: flag,
    interaction: flag,
    control: flag,
    connection: flag,
    system: flag,
    captcha: flag,
    screenshot: flag,
  },
} as const;

/** One captured event, as `telemetry/events` and `telemetry/stream` carry it. */
export const telemetryEvent = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'category', 'ts', 'source'],
  properties: {
    type: { type: 'string' },
    category: telemetryCategory,
    ts: { type: 'integer', description: 'Unix microseconds' },
    source: {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: {
        kind: { type: 'string', enum: ['cdp', 'kernel_api', 'extension', 'local_process'] },
        event: { type: 'string' },
        metadata: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    data: { type: 'object' },
    truncated: { type: 'boolean' },
  },
} as const;

export const telemetryEnvelope = {
  type: 'object',
  additionalProperties: false,
  required: ['seq', 'event'],
  properties: {
    seq: { type: 'integer', description: 'Per session, from 1, without gaps unless events were dropped' },
    event: telemetryEvent,
  },
} as const;

/** The `telemetry` field of browser create bodies, pool configs and acquires. */
export const telemetryRequest = {
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean' },
    browser: telemetryFlags,
    export: {
      type: 'object',
      additionalProperties: false,
      required: ['otlp'],
      description: 'Create only: send captured events to a destination the service was configured with',
      properties: {
        otlp: {
          type: 'object',
          additionalProperties: false,
          required: ['destination'],
          properties: { destination: { type: 'string', minLength: 1, maxLength: 255 } },
        },
      },
    },
  },
} as const;

/** As a request field: null means no capture. */
export const telemetryCreateSchema = { ...telemetryRequest, type: ['object', 'null'] } as const;

/** PATCH takes the same flags; the export is chosen at creation only, as on the hosted service. */
export const telemetryUpdateSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { enabled: { type: 'boolean' }, browser: telemetryFlags },
} as const;

export type TelemetryCategory = FromSchema<typeof telemetryCategory>;
export type TelemetryCategoryFlags = FromSchema<typeof telemetryFlags>;
export type BrowserTelemetryRequest = FromSchema<typeof telemetryRequest>;
export type TelemetryEvent = FromSchema<typeof telemetryEvent>;
export type TelemetryEnvelope = FromSchema<typeof telemetryEnvelope>;
