// Runs kept by the service (ours: the hosted API has no such group). A runner (`bcs run --report-to`) creates a
// run, adds each scenario's result as it finishes and uploads its artifacts, then finishes the run; lists,
// a run with its results, artifact downloads and a scenario's history across runs read them back. The runner
// sends exactly these shapes (runner/reporters/report-to.ts), so this module is their one source.
import type { FromSchema } from 'json-schema-to-ts';
import { offsetPageQuery, type Input } from './common.js';

/** An ISO 8601 instant with its offset (`2026-11-27T23:00:00.000Z`); the service also checks it is a real date. */
export const instant = {
  type: 'string',
  maxLength: 40,
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$',
} as const;

/** Text of any kind but NUL, which PostgreSQL's text cannot hold. */
const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength, pattern: '^[^\\u0000]*$' }) as const;
/** Names, branches, tags: one line of readable text. */
const label = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\u0000-\\u001f\\u007f]*$' } as const;
const count = { type: 'integer', minimum: 0, maximum: 1_000_000 } as const;
/**
 * A client's key for a create it may send again after losing the answer: the same key with the same body
 * answers what the first one made; with another body it is a 409. 512 characters keep it within what a
 * PostgreSQL index entry holds.
 */
const requestKey = (description: string) => ({ type: 'string', minLength: 1, maxLength: 512, pattern: '^[^\\u0000-\\u001f\\u007f]*$', description }) as const;
/** Milliseconds; 2^31 is 24 days, more than any run is given. */
const millis = { type: 'integer', minimum: 0, maximum: 2 ** 31 - 1 } as const;

export const RUN_TRIGGERS = ['ci', 'schedule', 'manual'] as const;
export const RUN_END_STATUSES = ['passed', 'failed', 'interrupted', 'error'] as const;
export const RESULT_STATUSES = ['passed', 'failed', 'error'] as const;
export const ARTIFACT_KINDS = ['screenshot', 'trace', 'video', 'vtt', 'file', 'error_context'] as const;

const shard = {
  type: 'object',
  additionalProperties: false,
  required: ['index', 'total'],
  properties: { index: { type: 'integer', minimum: 1, maximum: 1000 }, total: { type: 'integer', minimum: 1, maximum: 1000 } },
  description: 'Which part of a sharded run this is (1-based)',
} as const;

const summary = {
  type: 'object',
  additionalProperties: false,
  required: ['total', 'passed', 'failed', 'errored', 'flaky'],
  properties: { total: count, passed: count, failed: count, errored: count, flaky: count, timed_out: count, skipped: count },
} as const;

// What requests send.

/** `POST /runs`. */
export const runCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['suite', 'trigger', 'started_at'],
  properties: {
    suite: { ...label, description: 'What the run ran: results of the same suite make one history' },
    branch: label,
    commit: label,
    tags: { type: 'array', maxItems: 50, uniqueItems: true, items: label },
    trigger: { type: 'string', enum: RUN_TRIGGERS },
    shard,
    started_at: instant,
    key: requestKey('Unique within the project: a create sent again with it (a retry) answers the run it made'),
  },
} as const;

const stepError = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'message'],
  properties: {
    kind: { type: 'string', enum: ['assertion', 'step', 'infrastructure', 'timeout', 'interrupted'] },
    message: text(65_536),
    location: text(2048),
  },
} as const;

/** One step of a scenario's result, as the runner's results.json has it (less the step's output). */
export const runStep = {
  type: 'object',
  additionalProperties: false,
  required: ['index', 'phase', 'kind', 'name', 'status', 'duration_ms'],
  properties: {
    index: { type: 'integer', minimum: 0, maximum: 100_000 },
    phase: { type: 'string', enum: ['setup', 'main', 'teardown'] },
    kind: text(100),
    name: text(4096),
    status: { type: 'string', enum: ['passed', 'failed', 'skipped'] },
    started_at: instant,
    duration_ms: millis,
    location: text(2048),
    error: stepError,
    note: text(4096),
    continued: { type: 'string', enum: ['soft', 'ignored'] },
    depth: { type: 'integer', minimum: 0, maximum: 1000 },
    iteration: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    attempts: { type: 'integer', minimum: 1, maximum: 1000 },
    replay_offset_ms: millis,
    /** The artifacts' names as uploaded (their paths in the runner's output directory). */
    artifacts: { type: 'array', maxItems: 100, items: text(1024) },
  },
} as const;

const attemptFields = {
  status: { type: 'string', enum: RESULT_STATUSES },
  attempt: { type: 'integer', minimum: 1, maximum: 100 },
  started_at: instant,
  duration_ms: millis,
  timed_out: { type: 'boolean' },
  steps: { type: 'array', maxItems: 5000, items: runStep },
} as const;

const replayInfo = {
  type: 'object',
  additionalProperties: false,
  properties: {
    video: text(1024),
    vtt: text(1024),
    duration_ms: millis,
    markers: {
      type: 'array',
      maxItems: 5000,
      items: { type: 'object', additionalProperties: false, required: ['name', 'offset_ms'], properties: { name: text(4096), offset_ms: millis } },
    },
  },
  description: "The scenario's replay: the video's and markers' artifact names, and where each marker is",
} as const;

/** A failed scenario's browser the service kept at the failing step (`bcs run --keep-on-failure`). */
const keptSession = {
  type: 'object',
  additionalProperties: false,
  required: ['session_id', 'until'],
  properties: {
    session_id: text(255),
    live_view_url: { ...text(4096), description: 'Its live view: the page as the failing step left it' },
    until: { ...instant, description: 'When the service that keeps it ends it, unless someone deletes it first' },
  },
  description: 'The browser kept at the failing step, for the person on call to open, take over, then end',
} as const;

/** `POST /runs/{run_id}/results`: one scenario's result (its last attempt; earlier ones in previous_attempts). */
export const runResultParams = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'file', 'status', 'started_at', 'duration_ms', 'steps'],
  properties: {
    name: label,
    file: text(1024),
    key: requestKey('Unique within the run (`bcs run` sends `file::name::attempt`): the result sent again with it (a retry) is answered, not added twice'),
    tags: { type: 'array', maxItems: 100, items: label },
    ...attemptFields,
    flaky: { type: 'boolean', description: 'Passed on a retry after failing before' },
    interrupted: { type: 'boolean' },
    hook: { type: 'string', enum: ['before', 'after'] },
    session_id: text(255),
    trace: { ...text(1024), description: "The trace's artifact name" },
    replay: replayInfo,
    kept_session: keptSession,
    previous_attempts: {
      type: 'array',
      maxItems: 10,
      items: { type: 'object', additionalProperties: false, required: ['status', 'attempt', 'started_at', 'duration_ms', 'steps'], properties: attemptFields },
    },
  },
} as const;

/** `POST /runs/{run_id}/finish`. */
export const runFinishParams = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: {
    status: { type: 'string', enum: RUN_END_STATUSES },
    summary,
    finished_at: instant,
  },
} as const;

/** `POST /runs/{run_id}/results/{result_id}/artifacts`: the file is the body, what it is the query. */
export const artifactUploadQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'name'],
  properties: {
    kind: { type: 'string', enum: ARTIFACT_KINDS },
    name: { ...text(1024), description: 'Its path in the runner\'s output directory, as the steps name it' },
    step_index: { type: 'integer', minimum: 0, maximum: 100_000 },
    attempt: { type: 'integer', minimum: 1, maximum: 100 },
  },
} as const;

export const runListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...offsetPageQuery,
    suite: label,
    branch: label,
    tag: label,
    status: { type: 'string', enum: ['running', ...RUN_END_STATUSES] },
    trigger: { type: 'string', enum: RUN_TRIGGERS },
  },
} as const;

export const MAX_HISTORY = 500;

export const scenarioHistoryQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['suite', 'name'],
  properties: {
    suite: label,
    name: { ...label, description: "The scenario's name" },
    file: { ...text(1024), description: 'Only results from this file (when two files hold scenarios of one name)' },
    branch: label,
    limit: { type: 'integer', minimum: 1, maximum: MAX_HISTORY, default: 100, description: 'How many of the newest results are counted' },
  },
} as const;

export const runIdParams = { type: 'object', required: ['run_id'], properties: { run_id: text(255) } } as const;
export const runResultIdParams = { type: 'object', required: ['run_id', 'result_id'], properties: { run_id: text(255), result_id: text(255) } } as const;
export const runArtifactIdParams = { type: 'object', required: ['run_id', 'artifact_id'], properties: { run_id: text(255), artifact_id: text(255) } } as const;

// What answers carry.

const nullable = <const S extends object>(schema: S) => ({ anyOf: [schema, { type: 'null' }] }) as const;

export const run = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'suite', 'branch', 'commit', 'tags', 'trigger', 'shard', 'status', 'summary', 'started_at', 'finished_at', 'created_at'],
  properties: {
    id: { type: 'string' },
    suite: { type: 'string' },
    branch: { type: ['string', 'null'] },
    commit: { type: ['string', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    trigger: { type: 'string', enum: RUN_TRIGGERS },
    shard: nullable(shard),
    status: { type: 'string', enum: ['running', ...RUN_END_STATUSES] },
    summary: nullable(summary),
    started_at: { type: 'string' },
    finished_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    key: { type: 'string', description: "The create's key, when it was given one" },
  },
} as const;

export const runArtifact = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'result_id', 'kind', 'name', 'step_index', 'attempt', 'content_type', 'size_bytes', 'url'],
  properties: {
    id: { type: 'string' },
    result_id: { type: 'string' },
    kind: { type: 'string', enum: ARTIFACT_KINDS },
    name: { type: 'string' },
    step_index: { type: ['integer', 'null'] },
    attempt: { type: 'integer' },
    content_type: { type: 'string' },
    size_bytes: { type: 'integer' },
    url: { type: 'string', description: 'Where its bytes are downloaded' },
  },
} as const;

export const runResult = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'run_id', 'name', 'file', 'tags', 'status', 'flaky', 'attempt', 'started_at', 'duration_ms', 'steps', 'previous_attempts', 'artifacts'],
  properties: {
    id: { type: 'string' },
    run_id: { type: 'string' },
    ...runResultParams.properties,
    tags: { type: 'array', items: { type: 'string' } },
    flaky: { type: 'boolean' },
    attempt: { type: 'integer' },
    previous_attempts: runResultParams.properties.previous_attempts,
    artifacts: { type: 'array', items: runArtifact },
  },
} as const;

export const runWithResults = {
  type: 'object',
  additionalProperties: false,
  required: [...run.required, 'results'],
  properties: { ...run.properties, results: { type: 'array', items: runResult } },
} as const;

/** Where the failure a history names can be looked at. */
const failureLinks = {
  type: 'object',
  additionalProperties: false,
  required: ['run_id', 'result_id', 'started_at', 'status', 'step', 'message', 'screenshot_url', 'trace_url', 'replay'],
  properties: {
    run_id: { type: 'string' },
    result_id: { type: 'string' },
    started_at: { type: 'string' },
    status: { type: 'string', enum: ['failed', 'error'] },
    branch: { type: ['string', 'null'] },
    commit: { type: ['string', 'null'] },
    step: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['index', 'name', 'kind'],
      properties: { index: { type: 'integer' }, name: { type: 'string' }, kind: { type: 'string' }, location: { type: 'string' } },
    }),
    message: { type: ['string', 'null'] },
    screenshot_url: { type: ['string', 'null'] },
    trace_url: { type: ['string', 'null'] },
    replay: nullable({
      type: 'object',
      additionalProperties: false,
      required: ['video_url', 'offset_ms'],
      properties: { video_url: { type: 'string' }, offset_ms: { type: ['integer', 'null'], description: "The failing step's marker: where the video is to be sought" } },
    }),
  },
} as const;

export const scenarioHistory = {
  type: 'object',
  additionalProperties: false,
  required: ['suite', 'name', 'results', 'passed', 'failed', 'errored', 'flaky', 'pass_rate', 'flaky_rate', 'duration_ms', 'points', 'by_day', 'last_failure'],
  properties: {
    suite: { type: 'string' },
    name: { type: 'string' },
    results: { type: 'integer', description: 'How many results were counted (the newest, up to `limit`)' },
    passed: { type: 'integer', description: 'Passed, on the first attempt or a retry' },
    failed: { type: 'integer' },
    errored: { type: 'integer' },
    flaky: { type: 'integer', description: 'Passed on a retry' },
    pass_rate: { type: ['number', 'null'], description: 'passed / results; null with no results' },
    flaky_rate: { type: ['number', 'null'], description: 'flaky / results' },
    duration_ms: {
      type: 'object',
      additionalProperties: false,
      required: ['p50', 'p95'],
      properties: { p50: { type: ['integer', 'null'] }, p95: { type: ['integer', 'null'] } },
    },
    points: {
      type: 'array',
      description: 'Each counted result, oldest first',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['run_id', 'result_id', 'started_at', 'status', 'flaky', 'duration_ms'],
        properties: {
          run_id: { type: 'string' },
          result_id: { type: 'string' },
          started_at: { type: 'string' },
          status: { type: 'string', enum: RESULT_STATUSES },
          flaky: { type: 'boolean' },
          duration_ms: { type: 'integer' },
        },
      },
    },
    by_day: {
      type: 'array',
      description: 'Per UTC day of the counted results, oldest first: duration percentiles over time',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['day', 'results', 'passed', 'flaky', 'p50', 'p95'],
        properties: { day: { type: 'string' }, results: { type: 'integer' }, passed: { type: 'integer' }, flaky: { type: 'integer' }, p50: { type: 'integer' }, p95: { type: 'integer' } },
      },
    },
    last_failure: nullable(failureLinks),
  },
} as const;

export type RunCreateParams = FromSchema<typeof runCreateParams>;
export type RunResultParams = FromSchema<typeof runResultParams>;
export type RunFinishParams = FromSchema<typeof runFinishParams>;
export type RunStep = FromSchema<typeof runStep>;
export type ArtifactUploadParams = FromSchema<typeof artifactUploadQuery>;
export type RunListParams = Input<typeof runListQuery>;
export type ScenarioHistoryParams = Input<typeof scenarioHistoryQuery>;
export type Run = FromSchema<typeof run>;
export type RunArtifact = FromSchema<typeof runArtifact>;
export type RunResult = FromSchema<typeof runResult>;
export type RunWithResults = FromSchema<typeof runWithResults>;
export type ScenarioHistory = FromSchema<typeof scenarioHistory>;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];
