// The live view's WebSocket (/browsers/{id}/live): what a viewer may send (checked by the service) and what
// the service sends back between the JPEG frames. The console and the service both take their types here.
import type { FromSchema } from 'json-schema-to-ts';

const coordinate = { type: 'integer', minimum: -100_000, maximum: 100_000 } as const;
const delta = { type: 'number', minimum: -100_000, maximum: 100_000 } as const;

export const LIVE_MESSAGE_TYPES = ['mouse', 'wheel', 'key', 'text', 'ping'] as const;

export const liveMessage = {
  oneOf: [
    {
      type: 'object', additionalProperties: false, required: ['type', 'action', 'x', 'y'],
      properties: { type: { const: 'mouse' }, action: { enum: ['move', 'down', 'up'] }, x: coordinate, y: coordinate, button: { enum: ['left', 'middle', 'right'] } },
    },
    {
      type: 'object', additionalProperties: false, required: ['type', 'x', 'y', 'delta_x', 'delta_y'],
      properties: { type: { const: 'wheel' }, x: coordinate, y: coordinate, delta_x: delta, delta_y: delta },
    },
    {
      type: 'object', additionalProperties: false, required: ['type', 'action', 'key'],
      properties: { type: { const: 'key' }, action: { enum: ['down', 'up'] }, key: { type: 'string', minLength: 1, maxLength: 64 }, code: { type: 'string', maxLength: 64 } },
    },
    { type: 'object', additionalProperties: false, required: ['type', 'text'], properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1, maxLength: 10_000 } } },
    { type: 'object', additionalProperties: false, required: ['type', 't'], properties: { type: { const: 'ping' }, t: { type: 'number' } } },
  ],
} as const;

export const liveViewMode = { enum: ['interactive', 'view'], description: '`view` watches only: input sent over it is refused' } as const;

export const liveServerMessage = {
  oneOf: [
    {
      type: 'object', additionalProperties: false, required: ['type', 'mode', 'headless', 'width', 'height'],
      properties: { type: { const: 'hello' }, mode: liveViewMode, headless: { type: 'boolean' }, width: { type: 'integer' }, height: { type: 'integer' } },
    },
    {
      type: 'object', additionalProperties: false, required: ['type', 'code', 'message'],
      properties: {
        type: { const: 'error' },
        code: { enum: ['unavailable', 'invalid_message', 'view_only', 'input_failed', 'stream_failed'] },
        message: { type: 'string' },
      },
    },
    { type: 'object', additionalProperties: false, required: ['type'], properties: { type: { const: 'ended' }, reason: { type: 'string' } } },
    { type: 'object', additionalProperties: false, required: ['type', 't'], properties: { type: { const: 'pong' }, t: { type: 'number' } } },
  ],
} as const;

/** A viewer's message: mouse, wheel (pixels), key (KeyboardEvent.key), text, ping. */
export type LiveMessage = FromSchema<typeof liveMessage>;
export type LiveViewMode = FromSchema<typeof liveViewMode>;
/** The service's messages besides the frames (binary JPEGs). */
export type LiveServerMessage = FromSchema<typeof liveServerMessage>;
