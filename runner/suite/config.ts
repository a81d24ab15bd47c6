// The suite config, `bcs.config.yaml` in the working directory or `--config FILE`: defaults for the run
// flags, the suite's `before`/`after` hook scenarios and its `web_server`. Checked against a JSON Schema;
// problems are reported at their line and column like scenario problems (exit 2).
import type { ErrorObject, ValidateFunction } from 'ajv';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { ScenarioError, loadScenarioSource, bareNumber, parseDuration, type Diagnostic } from '../../src/scenario/index.js';
import { formatPath, pointerToPath } from '../../src/scenario/path.js';
import type { BrowserPoolCreateParams } from '../../src/api/index.js';
import type { WebServerOptions } from '../exec/web-server.js';
import { monitorsConfigSchema, type MonitorsConfig } from './monitors-config.js';
import { templateProblem } from '../exec/snapshot-path.js';

/** A run of a thousand repetitions of one scenario is a soak test; more is a typo. */
export const REPEAT_EACH_MAX = 1000;

export const CONFIG_FILES = ['bcs.config.yaml', 'bcs.config.yml'];

/** How scenarios that only drive pages are kept apart: a fresh context in a shared session, or a session each. */
export type Isolation = 'context' | 'session';

/** The suite's `web_server`: what startWebServer takes, without the abort signal the run adds. */
export type WebServerConfig = Omit<WebServerOptions, 'signal'>;

/** The config with every path made relative to the working directory and every duration in ms. */
export interface SuiteConfig {
  file: string;
  paths?: string[];
  workers?: number;
  retries?: number;
  isolation?: Isolation;
  timeoutMs?: number;
  reporter?: string[];
  outputDir?: string;
  tags?: string[];
  excludeTags?: string[];
  grep?: string;
  grepInvert?: string;
  bail?: boolean;
  /** `repeat_each` (`--repeat-each`): every scenario this many times. */
  repeatEach?: number;
  /** `max_failures` (`--max-failures`): stop after this many failed scenarios; 0 is no limit. */
  maxFailures?: number;
  /** `fail_on_flaky_tests` (`--fail-on-flaky-tests`). */
  failOnFlakyTests?: boolean;
  vars?: Record<string, string>;
  before?: string[];
  after?: string[];
  webServer?: WebServerConfig;
  schedule?: { cron?: string; history?: string };
  /** Pools the embedded service is given before the run: name → the create body's settings. */
  pools?: Record<string, PoolSettings>;
  /** `report_to`: the service runs are sent to (`--report-to`), and what they are kept as there. */
  reportTo?: { url: string; suite?: string; tags?: string[] };
  /** `monitors`: how `bcs monitor deploy` makes checks of the suite (paths still relative to the config's folder). */
  monitors?: MonitorsConfig;
  /** The folder the config file is in. */
  dir?: string;
  /** `keep_on_failure` (`--keep-on-failure`): how long a failed scenario's browser is kept (ms; 0: not kept). */
  keepOnFailureMs?: number;
  /** `snapshot_path_template`: where screenshot baselines live (runner/exec/snapshot-path.ts). */
  snapshotPathTemplate?: string;
}

/** A pool as `POST /browser_pools` takes it, less the name (the key it is written under). */
export type PoolSettings = Omit<BrowserPoolCreateParams, 'name'>;

// As in scenarios, a bare number has no unit (5 ms or 5 s?): only 0 is taken as one.
const duration = { anyOf: [{ type: 'number', const: 0 }, { type: 'string', pattern: '^\\d+(\\.\\d+)?(ms|s|m)$' }] };
/** A browser is kept for minutes or hours: `h` too. */
const keepDuration = { anyOf: [{ type: 'number', const: 0 }, { type: 'string', pattern: '^\\d+(\\.\\d+)?(ms|s|m|h)$' }] };
const strings = { type: 'array', items: { type: 'string', minLength: 1 } };
const stringOrStrings = { anyOf: [{ type: 'string', minLength: 1 }, strings] };

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    paths: stringOrStrings,
    workers: { type: 'integer', minimum: 1, maximum: 64 },
    retries: { type: 'integer', minimum: 0, maximum: 10 },
    timeout: duration,
    reporter: stringOrStrings,
    output_dir: { type: 'string', minLength: 1 },
    tags: strings,
    exclude_tags: strings,
    grep: { type: 'string' },
    grep_invert: { type: 'string' },
    bail: { type: 'boolean' },
    repeat_each: { type: 'integer', minimum: 1, maximum: REPEAT_EACH_MAX },
    max_failures: { type: 'integer', minimum: 0 },
    fail_on_flaky_tests: { type: 'boolean' },
    keep_on_failure: keepDuration,
    isolation: { enum: ['context', 'session'] },
    snapshot_path_template: { type: 'string', minLength: 1 },
    vars: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
    before: stringOrStrings,
    after: stringOrStrings,
    web_server: {
      type: 'object',
      additionalProperties: false,
      required: ['command', 'url'],
      properties: {
        command: { type: 'string', minLength: 1 },
        url: { type: 'string', pattern: '^https?://' },
        timeout: duration,
        cwd: { type: 'string' },
        env: { type: 'object', additionalProperties: { type: 'string' } },
        reuse_existing: { type: 'boolean' },
      },
    },
    report_to: {
      anyOf: [
        { type: 'string', pattern: '^https?://' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: { url: { type: 'string', pattern: '^https?://' }, suite: { type: 'string', minLength: 1, maxLength: 255 }, tags: strings },
        },
      ],
    },
    schedule: {
      type: 'object',
      additionalProperties: false,
      properties: { cron: { type: 'string', minLength: 1 }, history: { type: 'string', minLength: 1 } },
    },
    monitors: monitorsConfigSchema,
    // The shape only: the service checks the values as it checks any create, and its message is reported.
    pools: {
      type: 'object',
      propertyNames: { minLength: 1 },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['size'],
        properties: {
          size: { type: 'integer', minimum: 1 },
          headless: { type: 'boolean' },
          stealth: { type: 'boolean' },
          kiosk_mode: { type: 'boolean' },
          chrome_policy: { type: 'object' },
          viewport: { type: 'object' },
          start_url: { type: 'string' },
          timeout_seconds: { type: 'integer' },
          fill_rate_per_minute: { type: 'number' },
          proxy_id: { type: 'string' },
          extensions: { type: 'array' },
          profile: { type: 'object' },
          telemetry: { type: 'object' },
        },
      },
    },
  },
} as const;

let compiled: ValidateFunction | undefined;
/** Compiled on the first config file read: a run without one (and every run's start) does not pay for ajv. */
function validator(): ValidateFunction {
  if (!compiled) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    compiled = new Ajv({ allErrors: true, allowUnionTypes: true, verbose: true }).compile(configSchema);
  }
  return compiled;
}

/**
 * Loads `explicit` (an error when missing), else `bcs.config.yaml`/`.yml` in `cwd` when there is one.
 * Throws ScenarioError with a diagnostic per problem.
 */
export async function loadConfig(explicit: string | undefined, cwd = process.cwd()): Promise<SuiteConfig | undefined> {
  const candidates = explicit ? [explicit] : CONFIG_FILES;
  for (const name of candidates) {
    const file = resolve(cwd, name);
    let source: string;
    try {
      source = await readFile(file, 'utf8');
    } catch {
      if (explicit) throw new ScenarioError([{ file: explicit, line: 1, col: 1, message: 'config file not found' }]);
      continue;
    }
    return parseConfig(explicit ?? name, source, dirname(file), cwd);
  }
  return undefined;
}

export function parseConfig(file: string, source: string, dir: string, cwd = process.cwd()): SuiteConfig {
  const loaded = loadScenarioSource(file, source);
  const data = (loaded.data ?? {}) as Record<string, any>;
  const validate = validator();
  if (!validate(data)) {
    const errors = validate.errors ?? [];
    // A failed union reports each branch's complaint too; the union's own message says it better.
    const unions = errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath);
    const inUnion = (e: ErrorObject) => e.keyword !== 'anyOf' && unions.some((u) => e.instancePath === u || e.instancePath.startsWith(`${u}/`));
    const diagnostics = errors.filter((e) => !inUnion(e)).map((e): Diagnostic => {
      const path = pointerToPath(e.instancePath, data);
      const where = formatPath(path);
      // An unknown field is pointed at by its key, not its parent object.
      const which = e.keyword === 'additionalProperties' ? 'key' : 'value';
      if (which === 'key') path.push(String((e.params as { additionalProperty: string }).additionalProperty));
      return { file, ...loaded.locate(path, which), message: messageFor(e, where) };
    });
    throw new ScenarioError(dedupe(diagnostics));
  }
  const templateError = typeof data.snapshot_path_template === 'string' ? templateProblem(data.snapshot_path_template) : undefined;
  if (templateError) throw new ScenarioError([{ file, ...loaded.locate(['snapshot_path_template'], 'value'), message: `snapshot_path_template: ${templateError}` }]);
  // Paths in the config are relative to the config file, and kept short (relative to the cwd) for messages.
  const path = (p: string) => relative(cwd, resolve(dir, p)) || '.';
  const list = (v: string | string[] | undefined) => (v === undefined ? undefined : typeof v === 'string' ? [v] : v);
  const ws = data.web_server;
  return {
    file,
    paths: list(data.paths)?.map(path),
    workers: data.workers,
    isolation: data.isolation,
    retries: data.retries,
    timeoutMs: data.timeout !== undefined ? parseDuration(data.timeout) : undefined,
    reporter: list(data.reporter)?.flatMap((r) => r.split(',').map((s) => s.trim()).filter(Boolean)),
    outputDir: data.output_dir !== undefined ? path(data.output_dir) : undefined,
    tags: data.tags,
    excludeTags: data.exclude_tags,
    grep: data.grep,
    grepInvert: data.grep_invert,
    bail: data.bail,
    repeatEach: data.repeat_each,
    maxFailures: data.max_failures,
    failOnFlakyTests: data.fail_on_flaky_tests,
    vars: data.vars ? Object.fromEntries(Object.entries(data.vars).map(([k, v]) => [k, String(v)])) : undefined,
    before: list(data.before)?.map(path),
    after: list(data.after)?.map(path),
    webServer: ws && {
      command: ws.command,
      url: ws.url,
      timeoutMs: ws.timeout !== undefined ? parseDuration(ws.timeout) : undefined,
      cwd: resolve(dir, ws.cwd ?? '.'),
      env: ws.env,
      reuseExisting: ws.reuse_existing,
    },
    schedule: data.schedule && { cron: data.schedule.cron, history: data.schedule.history !== undefined ? path(data.schedule.history) : undefined },
    pools: data.pools,
    reportTo: typeof data.report_to === 'string' ? { url: data.report_to } : data.report_to,
    monitors: data.monitors,
    dir,
    keepOnFailureMs: data.keep_on_failure !== undefined ? parseKeepDuration(data.keep_on_failure) : undefined,
    snapshotPathTemplate: data.snapshot_path_template,
  };
}

const HOUR_MS = 3_600_000;

/** `keep_on_failure` and `--keep-on-failure`: a duration as scenarios write one, or hours (`2h`); 0 is off. */
export function parseKeepDuration(value: string | number): number {
  if (value === 0 || value === '0') return 0;
  const hours = typeof value === 'string' ? /^(\d+(?:\.\d+)?)h$/.exec(value.trim()) : null;
  if (hours) return Math.round(Number(hours[1]) * HOUR_MS);
  try {
    return parseDuration(value);
  } catch {
    throw new Error(`invalid duration ${JSON.stringify(value)}; expected one such as "15m", "90s" or "2h" (0: do not keep)`);
  }
}

function messageFor(e: ErrorObject, where: string): string {
  const at = where || 'the config';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown field '${String(p.additionalProperty)}' in ${at}; expected one of ${Object.keys(fieldsAt(e.schemaPath)).join(', ')}`;
    case 'required':
      return `${at} needs '${String(p.missingProperty)}'`;
    case 'type':
      return `${at} must be ${Array.isArray(p.type) ? p.type.join(' or ') : String(p.type)}`;
    case 'anyOf':
      if (where === 'report_to') return `${at} must be an http:// or https:// URL, or { url, suite?, tags? }`;
      if (where === 'keep_on_failure') return `${at} must be a duration such as "15m" or "2h" (0: do not keep)`;
      if (!where.endsWith('timeout')) return `${at} must be a string or a list of strings`;
      return typeof e.data === 'number' && e.data > 0 ? `${at}: ${bareNumber(e.data)}` : `${at} must be a duration such as "500ms", "30s" or "2m"`;
    case 'pattern':
      if (where.startsWith('monitors') && !where.endsWith('url')) {
        return /\.env$|\.secret$/.test(where) ? `${at}: ${e.message ?? 'is invalid'}` : `${at} must be a duration such as "30s", "5m", "2h" or "1d"`;
      }
      return where.endsWith('url') ? `${at} must be an http:// or https:// URL` : `${at} must be a duration such as "500ms", "30s" or "2m"`;
    default:
      return `${at} ${e.message ?? 'is invalid'}`;
  }
}

function fieldsAt(schemaPath: string): Record<string, unknown> {
  // `#/properties/web_server/additionalProperties` → the properties of web_server.
  const parts = schemaPath.replace(/^#\//, '').split('/').slice(0, -1);
  let node: any = configSchema;
  for (const part of parts) node = node?.[part];
  return node?.properties ?? {};
}

function dedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.line}:${d.col}:${d.message}`;
    return !seen.has(key) && Boolean(seen.add(key));
  });
}
