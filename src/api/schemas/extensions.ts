// Extensions: uploaded zips of unpacked Chromium extensions that browsers load.
import type { FromSchema } from 'json-schema-to-ts';
import { NAME_PATTERN, dateTime, namedListQuery, type Input } from './common.js';

export const extension = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'created_at', 'size_bytes', 'checksum', 'last_used_at'],
  properties: {
    id: { type: 'string' },
    name: { type: ['string', 'null'] },
    created_at: dateTime,
    size_bytes: { type: 'integer', description: 'Size of the uploaded archive' },
    checksum: { type: ['string', 'null'], description: 'Lowercase hex SHA-256 of the exact uploaded bytes' },
    last_used_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

/** The `extensions` of browser and pool create bodies: each exactly one of id and name (checked by the service). */
export const extensionSelectors = {
  type: 'array',
  maxItems: 50,
  items: {
    type: 'object',
    additionalProperties: false,
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 255 },
      name: { type: 'string', pattern: NAME_PATTERN },
    },
  },
} as const;

export type Extension = FromSchema<typeof extension>;
export type BrowserExtensionSelector = FromSchema<typeof extensionSelectors.items>;
export type ExtensionListParams = Input<typeof namedListQuery>;
