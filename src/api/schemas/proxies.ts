// Proxies: egress configurations sessions route through.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, namedListQuery, ours, type Input } from './common.js';

export const proxyType = { type: 'string', enum: ['datacenter', 'isp', 'residential', 'mobile', 'custom'] } as const;
export const proxyProtocol = { type: 'string', enum: ['http', 'https'] } as const;

/** `config` as answers show it: per type, and for custom proxies `has_password`, never the password. */
export const proxyConfig = {
  type: 'object',
  additionalProperties: false,
  properties: {
    country: { type: 'string' },
    state: { type: 'string' },
    city: { type: 'string' },
    zip: { type: 'string' },
    asn: { type: 'string' },
    os: { type: 'string', enum: ['windows', 'macos', 'android'] },
    host: { type: 'string' },
    port: { type: 'integer' },
    username: { type: 'string' },
    has_password: { type: 'boolean' },
  },
} as const;

/** The fields a create may send in `config`: those answers show, with `password` for `has_password`. */
const { has_password: _shown, ...configFields } = proxyConfig.properties;

export const proxy = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'protocol', 'bypass_hosts', 'config'],
  properties: {
    id: { type: 'string' },
    type: proxyType,
    name: { type: 'string' },
    protocol: proxyProtocol,
    bypass_hosts: { type: 'array', items: { type: 'string' } },
    config: proxyConfig,
    ip_address: {
      type: 'string',
      description: 'For custom proxies, the address of the proxy server the last check reached (the exit IP is not discoverable offline)',
    },
    status: {
      type: 'string',
      enum: ['available', 'unavailable'],
      description: 'Absent until the first check of a custom proxy; hosted-only types are always `unavailable` here',
    },
    status_detail: ours({ type: 'string', description: 'Our extension: why the status is what it is' }),
    last_checked: dateTime,
  },
} as const;

/** The shape `bypass_hosts` entries must have: a host, `*.host` or `.host`, an IP address or CIDR range, each with an optional `:port`. */
export const BYPASS_HOST_PATTERN = '^(\\*?\\.?[A-Za-z0-9_.-]+|\\[?[0-9A-Fa-f:.]+\\]?(/[0-9]{1,3})?)(:[0-9]{1,5})?$';

const name = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' } as const;

export const proxyCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: proxyType,
    name,
    protocol: proxyProtocol,
    bypass_hosts: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 260, pattern: BYPASS_HOST_PATTERN } },
    // Which fields are allowed depends on `type`: the service checks that itself (to name each field).
    config: {
      type: 'object',
      properties: { ...configFields, password: { type: 'string' } },
      description:
        'Per type: country (datacenter, isp), country/state/city/zip/asn/os (residential), country/state/city (mobile), ' +
        'host/port/username/password (custom); checked against the type, each problem named under `body.config`',
    },
  },
} as const;

export const proxyUpdateParams = { type: 'object', additionalProperties: false, required: ['name'], properties: { name } } as const;

export const proxyCheckParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    url: {
      type: 'string',
      maxLength: 8192,
      pattern: '^https?://[^\\s/?#]+',
      description: 'An http(s) URL to reach through the proxy instead of the default target; the stored status is then left alone',
    },
  },
} as const;

export type ProxyType = FromSchema<typeof proxyType>;
export type ProxyProtocol = FromSchema<typeof proxyProtocol>;
export type ProxyConfig = FromSchema<typeof proxyConfig>;
export type Proxy = FromSchema<typeof proxy>;
export type ProxyCreateParams = FromSchema<typeof proxyCreateParams>;
export type ProxyUpdateParams = FromSchema<typeof proxyUpdateParams>;
export type ProxyCheckParams = FromSchema<typeof proxyCheckParams>;
export type ProxyListParams = Input<typeof namedListQuery>;
