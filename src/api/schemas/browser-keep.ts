// Keeping a browser (ours: the hosted API has no such route): a check or `bcs run --keep-on-failure` leaves
// the failed scenario's session alive at the failing step for a bounded time, so the person on call opens its
// live view, takes over, runs `exec` or reads files, then ends it with DELETE.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, ours } from './common.js';

/** The longest a browser is kept (24 h): a keep is for someone to look soon, not a way around timeouts. */
export const KEEP_MAX_SECONDS = 86_400;

/** Text without NUL, which PostgreSQL's text cannot hold. */
const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength, pattern: '^[^\\u0000]*$' }) as const;

/** Why it is kept, as the runner that failed says it: shown on the session and in the end detail. */
export const browserKeepReason = {
  type: 'object',
  additionalProperties: false,
  properties: {
    run_id: { ...text(255), description: 'The run the scenario failed in' },
    scenario: { ...text(1024), description: 'The scenario that failed' },
    step: { ...text(4096), description: 'The step it failed at' },
    message: { ...text(16_384), description: 'What went wrong' },
  },
} as const;

/** `POST /browsers/{id}/keep`. */
export const browserKeepParams = {
  type: 'object',
  additionalProperties: false,
  required: ['seconds'],
  properties: {
    seconds: {
      type: 'integer',
      minimum: 1,
      maximum: KEEP_MAX_SECONDS,
      description: 'How long from now the browser is kept; keeping it again sets a new end from then',
    },
    reason: browserKeepReason,
  },
} as const;

/** The `kept` field of a session: until when, and why. */
export const browserKept = ours({
  type: 'object',
  additionalProperties: false,
  required: ['until', 'reason'],
  properties: {
    until: { ...dateTime, description: 'When the service ends the browser (end_reason `keep_expired`) unless it is deleted first' },
    reason: browserKeepReason,
  },
  description:
    'Our extension: the session is kept (POST /browsers/{id}/keep): its inactivity timeout does not end it before `until`, and a CDP client that leaves does not take its browser contexts and pages with it',
});

export type BrowserKeepReason = FromSchema<typeof browserKeepReason>;
export type BrowserKeepParams = FromSchema<typeof browserKeepParams>;
export type BrowserKept = FromSchema<typeof browserKept>;
