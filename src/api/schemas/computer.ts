// /browsers/{id}/computer/*: the actions' bodies (each also an action of a batch), and the answers that carry
// a JSON body (the actions answer with an empty 200, a screenshot with a PNG).
import type { FromSchema } from 'json-schema-to-ts';

const int = { type: 'integer' } as const;
const keyList = { type: 'array', maxItems: 32, items: { type: 'string', minLength: 1, maxLength: 64 } } as const;
/** `[x, y]`. */
const point = { type: 'array', items: [int, int], minItems: 2, additionalItems: false } as const;

export const clickMouse = {
  type: 'object',
  additionalProperties: false,
  required: ['x', 'y'],
  properties: {
    x: int,
    y: int,
    button: { enum: ['left', 'right', 'middle', 'back', 'forward'] },
    click_type: { enum: ['down', 'up', 'click'] },
    num_clicks: { type: 'integer', minimum: 1, maximum: 10 },
    hold_keys: keyList,
  },
} as const;
export const moveMouse = {
  type: 'object',
  additionalProperties: false,
  required: ['x', 'y'],
  properties: { x: int, y: int, hold_keys: keyList, smooth: { type: 'boolean' }, duration_ms: { type: 'integer', minimum: 50, maximum: 5000 } },
} as const;
export const pressKey = {
  type: 'object',
  additionalProperties: false,
  required: ['keys'],
  properties: { keys: { ...keyList, minItems: 1 }, duration: { type: 'integer', minimum: 0, maximum: 60_000 }, hold_keys: keyList },
} as const;
export const typeText = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: { text: { type: 'string', maxLength: 100_000 }, delay: { type: 'integer', minimum: 0, maximum: 10_000 } },
} as const;
export const scroll = {
  type: 'object',
  additionalProperties: false,
  required: ['x', 'y'],
  properties: { x: int, y: int, delta_x: { type: 'integer', minimum: -1000, maximum: 1000 }, delta_y: { type: 'integer', minimum: -1000, maximum: 1000 }, hold_keys: keyList },
} as const;
export const dragMouse = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: {
    path: { type: 'array', minItems: 2, maxItems: 1000, items: point },
    button: { enum: ['left', 'middle', 'right'] },
    delay: { type: 'integer', minimum: 0, maximum: 10_000 },
    steps_per_segment: { type: 'integer', minimum: 1, maximum: 100 },
    step_delay_ms: { type: 'integer', minimum: 0, maximum: 1000 },
    smooth: { type: 'boolean' },
    duration_ms: { type: 'integer', minimum: 50, maximum: 10_000 },
    hold_keys: keyList,
  },
} as const;
export const setCursor = { type: 'object', additionalProperties: false, required: ['hidden'], properties: { hidden: { type: 'boolean' } } } as const;
export const sleepAction = {
  type: 'object',
  additionalProperties: false,
  required: ['duration_ms'],
  properties: { duration_ms: { type: 'integer', minimum: 0, maximum: 30_000 } },
} as const;
export const region = {
  type: 'object',
  additionalProperties: false,
  required: ['x', 'y', 'width', 'height'],
  properties: { x: { type: 'integer', minimum: 0 }, y: { type: 'integer', minimum: 0 }, width: { type: 'integer', minimum: 1 }, height: { type: 'integer', minimum: 1 } },
} as const;

export const ACTION_SCHEMAS = {
  click_mouse: clickMouse,
  move_mouse: moveMouse,
  type_text: typeText,
  press_key: pressKey,
  scroll,
  drag_mouse: dragMouse,
  set_cursor: setCursor,
  sleep: sleepAction,
} as const;

/** Each action is `{type, <type>: {...}}`: the payload named by `type` is required, no other is allowed. */
export const batchAction = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: Object.keys(ACTION_SCHEMAS) }, ...ACTION_SCHEMAS },
  additionalProperties: false,
  allOf: Object.keys(ACTION_SCHEMAS).map((name) => ({
    if: { properties: { type: { const: name } }, required: ['type'] },
    then: { required: [name], maxProperties: 2 },
  })),
} as const;
export const screenshotBody = { type: 'object', additionalProperties: false, properties: { region } } as const;
export const writeClipboard = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: { text: { type: 'string', maxLength: 10_000_000 } },
} as const;
export const batch = {
  type: 'object',
  additionalProperties: false,
  required: ['actions'],
  properties: { actions: { type: 'array', minItems: 1, maxItems: 100, items: batchAction } },
} as const;

export type ClickParams = FromSchema<typeof clickMouse>;
export type MoveParams = FromSchema<typeof moveMouse>;
export type PressKeyParams = FromSchema<typeof pressKey>;
export type TypeParams = FromSchema<typeof typeText>;
export type ScrollParams = FromSchema<typeof scroll>;
export type DragParams = FromSchema<typeof dragMouse>;
export type Region = FromSchema<typeof region>;


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
