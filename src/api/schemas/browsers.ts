// Browser sessions: what creates, updates and lists send, and the session as answers show it.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, offsetPageQuery, ours, tags, viewport, type Input } from './common.js';
import { extensionSelectors } from './extensions.js';
import { profile, profileSelector } from './profiles.js';
import { telemetryCreateSchema, telemetryFlags, telemetryUpdateSchema } from './telemetry.js';
import { liveViewMode } from './live-view.js';
import { browserKept } from './browser-keep.js';

export const browserEndReason = ours({
  type: 'string',
  enum: ['deleted', 'timeout', 'browser_exited', 'service_shutdown', 'service_restart', 'host_lost', 'keep_expired'],
  description:
    'Our extension: why the session ended (the hosted API only sets `deleted_at`); `host_lost`: the cluster host running it stopped answering; `keep_expired`: it was kept and nobody deleted it before `kept.until`',
});

export const browserPoolRef = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string' }, name: { type: 'string' } },
} as const;

export const browserProxyMode = {
  type: 'string',
  enum: ['direct', 'default'],
  description: '`direct` never uses a proxy; `default` is the browser default, which here is direct egress too',
} as const;

/** A session's resolved egress: a selected proxy by id (and name), or a mode. */
export const browserProxy = {
  type: 'object',
  additionalProperties: false,
  properties: { id: { type: 'string' }, name: { type: 'string' }, mode: browserProxyMode },
} as const;

/** The session's telemetry capture: every configurable category with its flag, and the export's progress. */
export const browserTelemetryConfig = {
  type: 'object',
  additionalProperties: false,
  properties: {
    browser: telemetryFlags,
    export: {
      type: 'object',
      additionalProperties: false,
      required: ['otlp'],
      properties: {
        otlp: {
          type: 'object',
          additionalProperties: false,
          required: ['destination', 'state', 'exported_events'],
          properties: {
            destination: { type: 'string' },
            state: { type: 'string', enum: ['idle', 'ok', 'failing'] },
            exported_events: { type: 'integer' },
            last_error: { type: 'string' },
          },
        },
      },
    },
  },
} as const;

/** The seed's `network`: what a browser reaches directly instead of through managed egress. */
export const browserNetwork = {
  type: 'object',
  additionalProperties: false,
  properties: {
    private_hosts: {
      type: 'array',
      maxItems: 100,
      items: { type: 'string', minLength: 1, maxLength: 255 },
      description: 'Host names (`*.` for subdomains), addresses and CIDRs the browser may reach although they are private or non-public',
    },
  },
} as const;

/**
 * Chrome Enterprise policy overrides (https://chromeenterprise.google/policies/), keyed by policy name. The
 * service refuses the policies it manages itself (extensions, proxy, DevTools and automation) and the
 * serialized object above 5 MiB; each value is Chromium's to check (chrome://policy shows what it refused).
 */
export const chromePolicy = {
  type: 'object',
  propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9]*$', maxLength: 200 },
  additionalProperties: true,
  description: 'Chrome Enterprise policy overrides by policy name; kernel-managed ones (extensions, proxy, DevTools/automation) are refused',
} as const;

export const browserSession = {
  type: 'object',
  additionalProperties: false,
  required: ['session_id', 'cdp_ws_url', 'webdriver_ws_url', 'created_at', 'headless', 'stealth', 'timeout_seconds'],
  properties: {
    session_id: { type: 'string' },
    cdp_ws_url: { type: 'string', description: 'The DevTools WebSocket URL, with a token for this session' },
    webdriver_ws_url: { type: 'string', description: 'The WebDriver BiDi WebSocket URL, with the same token as `cdp_ws_url`' },
    base_url: {
      type: 'string',
      description:
        "The session's own HTTP base (`<origin>/browsers/{id}`): `curl`, `curl/raw` and `telemetry/stream` under it take the token of `cdp_ws_url` (`?jwt=`) in place of an API key",
    },
    browser_live_view_url: ours({
      type: 'string',
      description:
        "The session's live view in the console of `bcs serve` (`<origin>/live/{id}?token=…`): its screen, with mouse and keyboard; the link is the credential (no API key), bound to this session and dead once it ends. Headless sessions too. Ours in that the page is the console's: left out under --strict-wire",
    }),
    created_at: dateTime,
    headless: { type: 'boolean' },
    stealth: { type: 'boolean' },
    timeout_seconds: { type: 'integer' },
    kiosk_mode: { type: 'boolean' },
    name: { type: 'string' },
    tags,
    viewport,
    start_url: { type: 'string' },
    deleted_at: dateTime,
    end_reason: browserEndReason,
    end_detail: ours({ type: 'string', description: 'Our extension: what ended it, e.g. `chromium exited with signal SIGKILL`' }),
    usage: {
      type: 'object',
      additionalProperties: false,
      required: ['uptime_ms'],
      properties: { uptime_ms: { type: 'integer' } },
    },
    sandboxed: ours({ type: 'boolean', description: "Our extension: whether the browser and its processes run in the host's sandbox" }),
    pool: { ...browserPoolRef, description: 'The browser pool the session belongs to (acquired from it, or idle in it)' },
    telemetry: browserTelemetryConfig,
    proxy: browserProxy,
    proxy_id: { type: 'string', description: 'Deprecated in favour of `proxy.id`' },
    profile: { ...profile, description: 'The profile the session started from' },
    profile_save_changes: { type: 'boolean', description: 'Whether the session writes its state back to `profile` when it ends' },
    site_config_id: ours({ type: 'string', description: 'Our extension: the site config whose settings were this browser\'s defaults (its `start_url` matched)' }),
    network: browserNetwork,
    chrome_policy: { type: 'object', additionalProperties: true, description: 'The Chrome Enterprise policies the browser runs with, as given' },
    kept: browserKept,
  },
} as const;

const requestTags = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 255 },
  additionalProperties: { type: 'string', maxLength: 255 },
} as const;

/** Egress: exactly one of mode/id/name (checked by the service, to name the field), or the deprecated ones. */
const proxyFields = {
  proxy: {
    type: 'object',
    additionalProperties: false,
    properties: {
      mode: browserProxyMode,
      id: { type: 'string', minLength: 1, maxLength: 255 },
      name: { type: 'string', minLength: 1, maxLength: 255 },
    },
  },
  proxy_id: { type: 'string', maxLength: 255 },
  disable_default_proxy: { type: 'boolean' },
} as const;

/** `POST /browsers`; also the source of the browser fields of pool bodies. */
export const browserCreateParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    headless: { type: 'boolean' },
    stealth: { type: 'boolean' },
    timeout_seconds: { type: 'integer', minimum: 10, maximum: 259200 },
    viewport: {
      type: 'object',
      additionalProperties: false,
      required: ['width', 'height'],
      properties: {
        width: { type: 'integer', minimum: 100, maximum: 7680 },
        height: { type: 'integer', minimum: 100, maximum: 4320 },
        refresh_rate: { type: 'integer', minimum: 1, maximum: 240 },
      },
    },
    // Only URLs that cannot be read as a Chromium command-line switch.
    start_url: { type: 'string', maxLength: 8192, pattern: '^(https?://|about:|data:)' },
    invocation_id: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: 'The running invocation of a deployed action this browser belongs to: listed under it and ended with it',
    },
    name: { type: 'string', minLength: 1, maxLength: 255 },
    tags: requestTags,
    kiosk_mode: { type: 'boolean' },
    telemetry: telemetryCreateSchema,
    ...proxyFields,
    profile: profileSelector,
    extensions: extensionSelectors,
    network: browserNetwork,
    chrome_policy: chromePolicy,
  },
} as const;

export const browserUpdateParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 255 },
    tags: requestTags,
    telemetry: telemetryUpdateSchema,
    ...proxyFields,
    proxy_id: { type: ['string', 'null'], maxLength: 255 },
    profile: { ...profileSelector, description: 'A profile to load into a browser that has none: its Chromium restarts from the profile\'s saved state' },
  },
} as const;

export const browserListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...offsetPageQuery,
    status: { type: 'string', enum: ['active', 'deleted', 'all'] },
    query: { type: 'string', maxLength: 255 },
    tags: requestTags,
    include_deleted: { type: 'boolean' },
    kept: ours({ type: 'boolean', description: 'Our extension: only sessions that are kept (true) or not (false); see POST /browsers/{id}/keep' }),
  },
} as const;

export const liveViewQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { mode: { ...liveViewMode, default: 'interactive' } },
} as const;

export const liveViewLink = ours({
  type: 'object',
  additionalProperties: false,
  required: ['url', 'mode'],
  properties: {
    url: { type: 'string', description: 'Opens the live view without an API key, for as long as the session runs (a pool lease: until it is released)' },
    mode: liveViewMode,
  },
});

export type BrowserEndReason = FromSchema<typeof browserEndReason>;
export type BrowserPoolRef = FromSchema<typeof browserPoolRef>;
export type BrowserProxyMode = FromSchema<typeof browserProxyMode>;
export type BrowserProxy = FromSchema<typeof browserProxy>;
export type BrowserProxyConfig = FromSchema<typeof browserCreateParams.properties.proxy>;
export type BrowserTelemetryConfig = FromSchema<typeof browserTelemetryConfig>;
export type BrowserSession = FromSchema<typeof browserSession>;
export type BrowserCreateParams = FromSchema<typeof browserCreateParams>;
export type BrowserUpdateParams = FromSchema<typeof browserUpdateParams>;
export type BrowserListParams = Input<typeof browserListQuery>;
export type LiveViewLink = FromSchema<typeof liveViewLink>;
export type BrowserStatusFilter = FromSchema<typeof browserListQuery.properties.status>;
