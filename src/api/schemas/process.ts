// Processes on the browser host as the wire shows them (/browsers/{id}/process/*). The hosted API's shapes,
// with our additions marked: a timeout is exit_code 124 with timed_out, and exec output is capped per stream.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, ours } from './common.js';

// What requests send.

const NO_NUL = '^[^\\u0000]*$';

const execProperties = {
  command: { type: 'string', minLength: 1, maxLength: 4096, pattern: NO_NUL },
  args: { type: 'array', maxItems: 4096, items: { type: 'string', maxLength: 131072, pattern: NO_NUL } },
  cwd: { type: ['string', 'null'], maxLength: 4096, pattern: '^/[^\\u0000]*$' },
  env: {
    type: 'object',
    maxProperties: 1024,
    propertyNames: { minLength: 1, maxLength: 1024, pattern: '^[^=\\u0000]+$' },
    additionalProperties: { type: 'string', maxLength: 131072, pattern: NO_NUL },
  },
  as_user: { type: ['string', 'null'], minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' },
  as_root: { type: 'boolean' },
  timeout_sec: { type: ['integer', 'null'], minimum: 1, maximum: 86400 },
} as const;

/** `POST /browsers/{id}/process/exec`. */
export const processExecParams = { type: 'object', additionalProperties: false, required: ['command'], properties: execProperties } as const;

/** `POST /browsers/{id}/process/spawn`: exec's fields, and a terminal. */
export const processSpawnParams = {
  type: 'object',
  additionalProperties: false,
  required: ['command'],
  properties: {
    ...execProperties,
    allocate_tty: { type: 'boolean' },
    rows: { type: 'integer', minimum: 1, maximum: 65535 },
    cols: { type: 'integer', minimum: 1, maximum: 65535 },
  },
} as const;

export const processStdinParams = {
  type: 'object',
  additionalProperties: false,
  required: ['data_b64'],
  properties: { data_b64: { type: 'string', pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$' } },
} as const;

/** The signals `kill` sends, by the names the API takes. */
export const SIGNALS = { TERM: 'SIGTERM', KILL: 'SIGKILL', INT: 'SIGINT', HUP: 'SIGHUP' } as const;

export const processKillParams = {
  type: 'object',
  additionalProperties: false,
  properties: { signal: { type: 'string', enum: Object.keys(SIGNALS) as (keyof typeof SIGNALS)[], default: 'TERM' } },
} as const;

export const processResizeParams = {
  type: 'object',
  additionalProperties: false,
  required: ['rows', 'cols'],
  properties: { rows: { type: 'integer', minimum: 1, maximum: 65535 }, cols: { type: 'integer', minimum: 1, maximum: 65535 } },
} as const;

export type ProcessExecParams = FromSchema<typeof processExecParams>;
export type ProcessSpawnParams = FromSchema<typeof processSpawnParams>;

// What answers carry.

export const execResult = {
  type: 'object',
  additionalProperties: false,
  required: ['exit_code', 'duration_ms', 'stdout_b64', 'stderr_b64', 'timed_out', 'stdout_truncated', 'stderr_truncated'],
  properties: {
    exit_code: { type: 'integer', description: '124 when `timeout_sec` killed the command; 128 + the signal number when a signal did' },
    duration_ms: { type: 'integer' },
    stdout_b64: { type: 'string', description: 'Base64 of what the command wrote to stdout' },
    stderr_b64: { type: 'string', description: 'Base64 of what the command wrote to stderr' },
    timed_out: ours({ type: 'boolean', description: 'Our extension: whether `timeout_sec` killed the command' }),
    stdout_truncated: ours({ type: 'boolean', description: 'Our extension: whether stdout passed the per-stream cap and was cut there' }),
    stderr_truncated: ours({ type: 'boolean', description: 'Our extension: whether stderr passed the per-stream cap and was cut there' }),
  },
} as const;
export type ExecResult = FromSchema<typeof execResult>;

export const spawnResult = {
  type: 'object',
  additionalProperties: false,
  required: ['process_id', 'pid', 'started_at'],
  properties: {
    process_id: { type: 'string', format: 'uuid', description: 'The id the other process routes take' },
    pid: { type: 'integer', description: "The host's pid of the process (of its sandbox, when sandboxed)" },
    started_at: dateTime,
  },
} as const;
export type SpawnResult = FromSchema<typeof spawnResult>;

export const processStatus = {
  type: 'object',
  additionalProperties: false,
  required: ['state', 'cpu_pct', 'mem_bytes'],
  properties: {
    state: { type: 'string', enum: ['running', 'exited'] },
    exit_code: { type: 'integer', description: 'Only once exited' },
    cpu_pct: { type: 'number', description: 'CPU use since the previous status call (or the start), in percent of one core; 0 once exited' },
    mem_bytes: { type: 'integer', description: 'Resident memory of the process and its descendants; 0 once exited' },
  },
} as const;
export type ProcessStatus = FromSchema<typeof processStatus>;

export const stdinResult = {
  type: 'object',
  additionalProperties: false,
  required: ['written_bytes'],
  properties: { written_bytes: { type: 'integer' } },
} as const;
export type StdinResult = FromSchema<typeof stdinResult>;


/** One event of the stdout stream: a chunk of output, or (last) the process's exit. */
export const processOutputFrame = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['stream', 'data_b64'],
      properties: { stream: { type: 'string', enum: ['stdout', 'stderr'] }, data_b64: { type: 'string' } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['event', 'exit_code'],
      properties: { event: { type: 'string', const: 'exit' }, exit_code: { type: 'integer' } },
    },
  ],
} as const;
export type ProcessOutputFrame = FromSchema<typeof processOutputFrame>;
