// GET /browsers/{id}/logs/stream as the wire shows it: one server-sent event per log line.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime } from './common.js';

export const logFrame = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'message', 'timestamp'],
  properties: {
    event: { type: 'string', const: 'log' },
    message: { type: 'string', description: 'One line, without its line break' },
    timestamp: { ...dateTime, description: 'When the service received the line' },
  },
} as const;
export type LogFrame = FromSchema<typeof logFrame>;
