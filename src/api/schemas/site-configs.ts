// Site configs (our extension of the seed's group, which has no public shape): per domain, what works against
// a site (stealth, headless or headful, a proxy) and notes. Browser creates with a `start_url` and auth
// connections take a matching config's settings as defaults; explicit fields win.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, offsetPageQuery, type Input } from './common.js';

/** `example.com` (the domain and its subdomains) or `*.example.com` (subdomains only). */
const domainPattern = {
  type: 'string',
  minLength: 1,
  maxLength: 253,
  pattern: '^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$',
} as const;

const settings = {
  stealth: { type: 'boolean' },
  headless: { type: 'boolean' },
  proxy_id: { type: 'string', minLength: 1, maxLength: 255, description: 'A proxy of the project that works for the site' },
  notes: { type: 'string', maxLength: 4096 },
} as const;

export const siteConfig = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'domain', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    domain: { type: 'string' },
    stealth: { type: 'boolean' },
    headless: { type: 'boolean' },
    proxy_id: { type: 'string' },
    notes: { type: 'string' },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;

export const siteConfigCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['domain'],
  properties: { domain: domainPattern, ...settings },
} as const;

export const siteConfigUpdateParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    domain: domainPattern,
    stealth: { type: ['boolean', 'null'] },
    headless: { type: ['boolean', 'null'] },
    proxy_id: { type: ['string', 'null'], minLength: 1, maxLength: 255 },
    notes: { type: ['string', 'null'], maxLength: 4096 },
  },
  description: 'null removes a setting',
} as const;

export const siteConfigListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...offsetPageQuery, query: { type: 'string', maxLength: 255 } },
} as const;

export const siteConfigLookupQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    url: { type: 'string', maxLength: 8192, description: 'A URL whose host is looked up' },
    domain: { type: 'string', maxLength: 253 },
  },
} as const;

export type SiteConfig = FromSchema<typeof siteConfig>;
export type SiteConfigCreateParams = FromSchema<typeof siteConfigCreateParams>;
export type SiteConfigUpdateParams = FromSchema<typeof siteConfigUpdateParams>;
export type SiteConfigListParams = Input<typeof siteConfigListQuery>;
