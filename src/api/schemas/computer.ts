// The answers of /browsers/{id}/computer/* that carry a JSON body (the actions answer with an empty 200,
// a screenshot with a PNG).
import type { FromSchema } from 'json-schema-to-ts';

export const mousePosition = {
  type: 'object',
  additionalProperties: false,
  required: ['x', 'y'],
  properties: { x: { type: 'integer' }, y: { type: 'integer' } },
} as const;
export type MousePosition = FromSchema<typeof mousePosition>;

export const clipboardText = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: { text: { type: 'string' } },
} as const;
export type ClipboardText = FromSchema<typeof clipboardText>;
