// Credentials (login values and TOTP secrets, sealed at rest and never returned) and the organisation's
// external credential providers (1Password), which resolve credentials by path.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, offsetPageQuery, ours, type Input } from './common.js';

const name = { type: 'string', minLength: 1, maxLength: 255, pattern: '^\\S(.*\\S)?$' } as const;
const domain = {
  type: 'string',
  minLength: 1,
  maxLength: 253,
  pattern: '^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$',
  description: 'A host name such as `example.com` (`*.example.com` for its subdomains)',
} as const;
const valueKey = { type: 'string', minLength: 1, maxLength: 255 } as const;
const values = {
  type: 'object',
  maxProperties: 100,
  propertyNames: valueKey,
  additionalProperties: { type: 'string', maxLength: 65_536 },
  description: 'Field name to value (username, email, password...)',
} as const;
const ssoProvider = { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9._-]*$' } as const;
const totpSecret = {
  type: 'string',
  maxLength: 1024,
  description: 'A base32 TOTP secret (spaces and dashes are ignored) or an `otpauth://totp/...` URI',
} as const;

export const credential = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'domain', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    domain: { type: 'string' },
    created_at: dateTime,
    updated_at: dateTime,
    sso_provider: { type: ['string', 'null'] },
    has_values: { type: 'boolean' },
    has_totp_secret: { type: 'boolean' },
    value_keys: { type: 'array', items: { type: 'string' }, description: 'On single-credential answers only, not in lists' },
    totp_code: { type: 'string', description: 'The current code, on create and update answers that just set `totp_secret`' },
    totp_code_expires_at: dateTime,
  },
} as const;

export const credentialCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['domain', 'name', 'values'],
  properties: { domain, name, values, sso_provider: ssoProvider, totp_secret: totpSecret },
} as const;

export const credentialUpdateParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name,
    values,
    remove_value_keys: { type: 'array', maxItems: 100, items: valueKey, description: 'Removed before `values` are merged' },
    sso_provider: { type: ['string', 'null'], maxLength: 64, pattern: '^[A-Za-z0-9._-]*$', description: 'Empty or null removes it' },
    totp_secret: { ...totpSecret, description: `${totpSecret.description}; empty removes it` },
  },
} as const;

export const credentialListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...offsetPageQuery,
    domain: { type: 'string', maxLength: 253 },
    query: { type: 'string', maxLength: 255, description: 'A substring of the name or domain, or an id' },
  },
} as const;

export const totpCode = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'expires_at'],
  properties: { code: { type: 'string' }, expires_at: dateTime },
} as const;

const providerType = { type: 'string', enum: ['onepassword'] } as const;
const cacheTtl = { type: 'integer', minimum: 0, maximum: 86_400, description: 'How long resolved items are cached (seconds)' } as const;
const token = { type: 'string', minLength: 1, maxLength: 4096, description: 'The provider\'s access token (a 1Password service account token)' } as const;

export const credentialProvider = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'provider_type', 'enabled', 'priority', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    provider_type: providerType,
    enabled: { type: 'boolean' },
    priority: { type: 'integer', description: 'Lower is tried first when a credential is resolved with `auto`' },
    cache_ttl_seconds: ours({ type: 'integer', description: 'Our extension: as set on create or update' }),
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;

export const credentialProviderCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'token', 'provider_type'],
  properties: { name, token, provider_type: providerType, cache_ttl_seconds: { ...cacheTtl, default: 300 } },
} as const;

export const credentialProviderUpdateParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name,
    token,
    enabled: { type: 'boolean' },
    priority: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    cache_ttl_seconds: cacheTtl,
  },
} as const;

export const credentialProviderListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...offsetPageQuery, query: { type: 'string', maxLength: 255 } },
} as const;

export const credentialProviderItem = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'path', 'title', 'vault_id', 'vault_name'],
  properties: {
    id: { type: 'string' },
    path: { type: 'string', description: '`Vault/Item`, what an auth connection\'s `credential.path` names' },
    title: { type: 'string' },
    vault_id: { type: 'string' },
    vault_name: { type: 'string' },
    urls: { type: 'array', items: { type: 'string' } },
  },
} as const;

export const credentialProviderItems = {
  type: 'object',
  additionalProperties: false,
  properties: { items: { type: 'array', items: credentialProviderItem } },
} as const;

export const credentialProviderTestResult = {
  type: 'object',
  additionalProperties: false,
  required: ['success', 'vaults'],
  properties: {
    success: { type: 'boolean' },
    vaults: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
    },
    error: { type: 'string' },
  },
} as const;

export type Credential = FromSchema<typeof credential>;
export type CredentialCreateParams = FromSchema<typeof credentialCreateParams>;
export type CredentialUpdateParams = FromSchema<typeof credentialUpdateParams>;
export type CredentialListParams = Input<typeof credentialListQuery>;
export type TotpCode = FromSchema<typeof totpCode>;
export type CredentialProvider = FromSchema<typeof credentialProvider>;
export type CredentialProviderCreateParams = Input<typeof credentialProviderCreateParams>;
export type CredentialProviderUpdateParams = FromSchema<typeof credentialProviderUpdateParams>;
export type CredentialProviderListParams = Input<typeof credentialProviderListQuery>;
export type CredentialProviderItem = FromSchema<typeof credentialProviderItem>;
export type CredentialProviderTestResult = FromSchema<typeof credentialProviderTestResult>;
