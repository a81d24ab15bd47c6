// Profiles: browser state (cookies, storage, preferences) that sessions start from.
import type { FromSchema } from 'json-schema-to-ts';
import { NAME_PATTERN, dateTime, namedListQuery, type Input } from './common.js';

export const profile = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'created_at'],
  properties: {
    id: { type: 'string' },
    name: { type: ['string', 'null'] },
    created_at: dateTime,
    updated_at: { ...dateTime, description: 'When the name or the stored state last changed' },
    last_used_at: { ...dateTime, description: 'When a browser last loaded it' },
  },
} as const;

const name = { type: 'string', pattern: NAME_PATTERN } as const;

/** The `profile` of a browser create body: exactly one of id and name (checked by the service, to name the field). */
export const profileSelector = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 255 },
    name,
    save_changes: { type: 'boolean', description: 'Write the state back to the profile when the session ends' },
  },
} as const;

export const profileCreateParams = { type: 'object', additionalProperties: false, properties: { name } } as const;

export const profileUpdateParams = { type: 'object', additionalProperties: false, required: ['name'], properties: { name } } as const;

export type Profile = FromSchema<typeof profile>;
export type BrowserProfileSelector = FromSchema<typeof profileSelector>;
export type ProfileCreateParams = FromSchema<typeof profileCreateParams>;
export type ProfileUpdateParams = FromSchema<typeof profileUpdateParams>;
export type ProfileListParams = Input<typeof namedListQuery>;
