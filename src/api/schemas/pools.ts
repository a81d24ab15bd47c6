// Browser pools: browsers launched ahead with shared settings, leased out by acquire and taken back by release.
import type { FromSchema } from 'json-schema-to-ts';
import { browserCreateParams } from './browsers.js';
import { dateTime, viewport } from './common.js';
import { extensionSelectors } from './extensions.js';
import { telemetryCreateSchema, telemetryRequest } from './telemetry.js';

const browser = browserCreateParams.properties;

/** The browser settings a pool shares; the same rules as for a single browser. */
const poolFields = {
  size: { type: 'integer', minimum: 1, maximum: 1000 },
  name: browser.name,
  headless: browser.headless,
  stealth: browser.stealth,
  kiosk_mode: browser.kiosk_mode,
  viewport: browser.viewport,
  start_url: browser.start_url,
  timeout_seconds: { ...browser.timeout_seconds, description: 'Inactivity timeout of an acquired browser, in seconds' },
  // Only the lower bound is the hosted API's; above 100 % the pool could not fill any faster.
  fill_rate_per_minute: { type: 'number', exclusiveMinimum: 0, maximum: 100, description: 'Percent of `size` launched per minute' },
  telemetry: { ...telemetryCreateSchema, description: "Every browser the pool launches; an acquire's own `telemetry` overrides it for that lease" },
  proxy_id: { ...browser.proxy_id, description: 'A custom proxy of the project for every browser of the pool; `""` clears it on update' },
  // Pool browsers load the profile read-only: save_changes is accepted and ignored, as on the hosted API.
  profile: browser.profile,
  refresh_on_profile_update: { type: 'boolean', description: 'Replace idle browsers when the profile is updated (default true with a profile)' },
  extensions: browser.extensions,
  network: browser.network,
  chrome_policy: { ...browser.chrome_policy, description: 'Chrome Enterprise policy overrides for every browser of the pool (at most 5 MiB as JSON); `{}` clears them on update' },
} as const;

/** `POST /browser_pools`. */
export const browserPoolCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['size'],
  properties: poolFields,
} as const;

/** `PATCH /browser_pools/{id_or_name}`: the create fields, all optional, plus `discard_all_idle`. */
export const browserPoolUpdateParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...poolFields,
    // "" is a no-op for the name and clears the start URL, as on the hosted API.
    name: { type: 'string', maxLength: 255 },
    start_url: { type: 'string', maxLength: 8192, pattern: '^$|^(https?://|about:|data:)' },
    // `profile: {id: ""}` (or name "") clears the profile.
    profile: {
      ...browser.profile,
      properties: {
        ...browser.profile.properties,
        id: { type: 'string', maxLength: 255 },
        name: { type: 'string', pattern: `^$|${browser.profile.properties.name.pattern}` },
      },
    },
    discard_all_idle: { type: 'boolean', description: 'End the idle browsers now, so that the new settings apply at once' },
  },
} as const;

export const browserPoolDeleteParams = {
  type: 'object',
  additionalProperties: false,
  properties: { force: { type: 'boolean', description: 'Delete even with acquired browsers (ending them)' } },
} as const;

export const browserPoolAcquireParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    acquire_timeout_seconds: { type: 'integer', minimum: 0, maximum: 3600 },
    name: browser.name,
    tags: browser.tags,
    start_url: browser.start_url,
    // Lease-scoped: applied to the leased browser now, back to the default when the lease ends.
    telemetry: { ...telemetryCreateSchema, description: 'Capture for this lease; back to the default when it is released' },
  },
} as const;

export const browserPoolReleaseParams = {
  type: 'object',
  additionalProperties: false,
  required: ['session_id'],
  properties: {
    session_id: { type: 'string', minLength: 1, maxLength: 255 },
    reuse: { type: 'boolean', default: true },
  },
} as const;

/** The launch settings every browser of a pool shares, as stored and echoed (the create body with its defaults). */
export const browserPoolConfig = {
  type: 'object',
  additionalProperties: false,
  required: ['size', 'headless', 'stealth', 'kiosk_mode', 'timeout_seconds', 'fill_rate_per_minute'],
  properties: {
    size: { type: 'integer' },
    name: { type: 'string' },
    headless: { type: 'boolean' },
    stealth: { type: 'boolean' },
    kiosk_mode: { type: 'boolean' },
    viewport,
    start_url: { type: 'string' },
    timeout_seconds: { type: 'integer', description: 'Inactivity timeout of an acquired browser, in seconds' },
    fill_rate_per_minute: { type: 'number', description: 'Percent of `size` launched per minute' },
    telemetry: telemetryRequest,
    proxy_id: { type: 'string' },
    extensions: { ...extensionSelectors, description: "As sent; the resolved ids are the pool's `extension_ids`" },
    profile: {
      type: 'object',
      additionalProperties: false,
      properties: { id: { type: 'string' }, name: { type: 'string' } },
      description: "As sent, without `save_changes` (pool browsers load profiles read-only); resolved as the pool's `profile_id`",
    },
    refresh_on_profile_update: { type: 'boolean' },
    network: browser.network,
    chrome_policy: { type: 'object', additionalProperties: true },
  },
} as const;

export const browserPool = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'acquired_count', 'available_count', 'browser_pool_config', 'created_at', 'extension_ids'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    acquired_count: { type: 'integer' },
    available_count: { type: 'integer' },
    browser_pool_config: browserPoolConfig,
    created_at: dateTime,
    extension_ids: { type: 'array', items: { type: 'string' } },
    profile_id: { type: 'string' },
  },
} as const;

export type BrowserPoolConfig = FromSchema<typeof browserPoolConfig>;
export type BrowserPool = FromSchema<typeof browserPool>;
export type BrowserPoolCreateParams = FromSchema<typeof browserPoolCreateParams>;
export type BrowserPoolUpdateParams = FromSchema<typeof browserPoolUpdateParams>;
export type BrowserPoolAcquireParams = FromSchema<typeof browserPoolAcquireParams>;
/** What a client sends to release: `reuse` defaults to true. */
export type BrowserPoolReleaseParams = FromSchema<typeof browserPoolReleaseParams, { keepDefaultedPropertiesOptional: true }>;
