// POST /browsers/{id}/playwright/execute as the wire shows it: whatever the code did, a 200 saying so.
import type { FromSchema } from 'json-schema-to-ts';

export const DEFAULT_TIMEOUT_SEC = 60;
export const MAX_TIMEOUT_SEC = 300;

/** `POST /browsers/{id}/playwright/execute`: `timeout_sec` defaults to DEFAULT_TIMEOUT_SEC. */
export const playwrightExecuteParams = {
  type: 'object',
  additionalProperties: false,
  required: ['code'],
  properties: {
    code: { type: 'string', minLength: 1 },
    timeout_sec: { type: ['integer', 'null'], minimum: 1, maximum: MAX_TIMEOUT_SEC },
  },
} as const;

export const playwrightExecuteResult = {
  type: 'object',
  additionalProperties: false,
  required: ['success', 'stdout', 'stderr'],
  properties: {
    success: { type: 'boolean', description: 'Whether the code returned (rather than threw, timed out or ended its process)' },
    result: { description: 'What the code returned (`null` when it returned nothing); only when `success` is true' },
    error: { type: 'string', description: 'Why it failed; only when `success` is false' },
    stdout: { type: 'string', description: 'What the code wrote to stdout (`console.log`); past a cap it is cut, and the text says so' },
    stderr: { type: 'string', description: 'What the code wrote to stderr, likewise capped' },
  },
} as const;
export type PlaywrightExecuteResult = FromSchema<typeof playwrightExecuteResult>;
