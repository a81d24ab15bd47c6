// Recording a scenario on a running browser (ours: the hosted API has no such routes). Playwright's recorder
// watches the session's page, its overlay and toolbar drawn inside it, so what someone does through the live
// view is recorded; the steps come back as a scenario's YAML (docs/codegen.md, "From the console").
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime } from './common.js';

/** `POST /browsers/{id}/recording/codegen`. */
export const codegenStartParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[^\\u0000-\\u001f]*$',
      description: "The scenario's name in the YAML (default: the host of the page the recording starts on)",
    },
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 8192,
      description:
        'The page to open once the recorder is on (http or https; a bare `host:port/path` gets http://): the scenario starts there. Without it the recording starts on the page as it is',
    },
  },
} as const;

/** What a recording has so far, or had when it stopped. */
export const codegenRecording = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'name', 'start_url', 'started_at', 'step_count', 'skipped', 'yaml'],
  properties: {
    status: {
      type: 'string',
      enum: ['recording', 'stopped'],
      description: '`recording` until DELETE stops it; a stopped recording stays readable until the next one starts or the session ends',
    },
    name: { type: 'string', description: "The scenario's name" },
    start_url: { type: 'string', description: "The page the recording started on: the scenario's first step goes there" },
    started_at: dateTime,
    step_count: { type: 'integer', minimum: 0, description: 'How many steps the YAML has (the first `goto` included)' },
    skipped: {
      type: 'array',
      items: { type: 'string' },
      description: 'Recorded actions no step says (a click with a modifier held, ...): listed as comments at the top of the YAML',
    },
    yaml: { type: 'string', description: 'The scenario as a YAML file, runnable with `bcs run`' },
  },
} as const;

export type CodegenStartParams = FromSchema<typeof codegenStartParams>;
export type CodegenRecording = FromSchema<typeof codegenRecording>;
