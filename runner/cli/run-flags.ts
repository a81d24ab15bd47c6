// The flags `bcs run`, `bcs list` and `bcs schedule` share, and how they combine with the suite config:
// a flag given on the command line wins, then `bcs.config.yaml`, then the built-in default.
import type { TraceMode } from '../../src/scenario/index.js';
import { UPDATE_MODES, type UpdateSnapshots } from '../exec/page-snapshot.js';
import { DEFAULT_SNAPSHOT_PATH_TEMPLATE } from '../exec/snapshot-path.js';
import { addApiKeyOptions, resolveApiKey } from './api-key.js';
import { Option, type Command } from 'commander';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseDuration } from '../../src/scenario/index.js';
import { REPEAT_EACH_MAX, parseKeepDuration, type Isolation, type PoolSettings, type SuiteConfig } from '../suite/config.js';
import { KEEP_MAX_SECONDS } from '../../src/api/schemas/browser-keep.js';
import type { RunReporter } from '../reporters/reporter.js';
import { REPORTER_NAMES, createReporters } from '../reporters/index.js';
import { runIdentity } from '../reporters/run-id.js';
import type { RunOptions, SuiteOptions } from '../suite/run.js';
import { parsePattern, parseShard, type Selection, type Shard } from '../suite/select.js';
import { UsageError } from './usage-error.js';
import { isCommit } from '../suite/changed.js';

const DEFAULT_OUTPUT_DIR = 'bcs-results';

const collect = (value: string, list: string[] = []) => [...list, value];

export function collectVar(value: string, vars: Record<string, string>): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new UsageError(`--var expects name=value, got '${value}'`);
  return { ...vars, [value.slice(0, eq)]: value.slice(eq + 1) };
}

export interface FlagSet {
  /** --last-failed and --output-dir, which a schedule (one folder per run) has no use for. */
  lastFailed: boolean;
  outputDir: boolean;
  json: boolean;
  /** --watch, --headed and --debug: for the runs of `bcs run` someone watches. */
  watch?: boolean;
  /** --only-changed: for run and list (a schedule runs its suite whatever changed). */
  onlyChanged?: boolean;
  /** --list: `bcs run`'s way to say `bcs list`. */
  list?: boolean;
}

/** Flags that choose scenarios: for run, list and schedule. */
export function selectionFlags(cmd: Command, set: Omit<FlagSet, 'json'> = { lastFailed: true, outputDir: true, onlyChanged: true }): Command {
  cmd
    .option('--config <file>', 'suite config (default: bcs.config.yaml in the working directory, when present)')
    .option('--var <name=value>', 'set a scenario variable (repeatable)', collectVar, {})
    .option('--grep <regex>', 'only scenarios whose name or file matches (repeatable: any)', collect)
    .option('--grep-invert <regex>', 'leave out scenarios whose name or file matches (repeatable)', collect)
    .option('--tag <tag>', 'only scenarios with this tag (repeatable: any)', collect)
    .option('--exclude-tag <tag>', 'leave out scenarios with this tag (repeatable)', collect)
    .option('--shard <i/n>', 'run the i-th of n balanced parts (by file, then name; repetitions of --repeat-each spread over the parts)')
    .option('--repeat-each <n>', `run every selected scenario n times, each repetition a result of its own named "<name> (repeat K)" (1 to ${REPEAT_EACH_MAX}; default 1)`)
    .option('--forbid-only', 'fail (exit 2) when a scenario is marked only: true, as CI should');
  if (set.lastFailed) cmd.option('--last-failed', 'only the scenarios that failed in the last run in the output dir');
  if (set.onlyChanged) {
    cmd.option(
      '--only-changed [ref]',
      'only the scenarios whose files changed since the git ref (default: the uncommitted changes, against HEAD), untracked files included: the scenario file, a part it includes, its rows, a module it imports, its served folder, or the suite config; needs git',
    );
  }
  if (set.outputDir) cmd.option('--output-dir <dir>', `where results and artifacts are written (default ${DEFAULT_OUTPUT_DIR})`);
  return cmd;
}

/** Flags that say how scenarios run: for run and schedule. */
export function runFlags(cmd: Command, set: FlagSet = { lastFailed: true, outputDir: true, json: true, watch: true, onlyChanged: true, list: true }): Command {
  selectionFlags(cmd, set).addOption(new Option('--base-url <url>', 'target a running service instead of the embedded one').env('BCS_BASE_URL'));
  addApiKeyOptions(cmd, 'the API key for --base-url');
  cmd
    .addOption(new Option('--chromium <path>', 'Chromium for the embedded service').env('BCS_CHROMIUM'))
    .addOption(new Option('--headless-shell <path>', "the embedded service's browser for plain headless sessions, or off (default: chromium-headless-shell beside the system Chromium)").env('BCS_HEADLESS_SHELL'))
    .option('--workers <n>', 'scenarios run at once (default 1; pool leases are also bounded by the pool size)')
    .option('--retries <n>', 'run a scenario that did not pass again, up to n more times (default 0)')
    .addOption(new Option('--isolation <unit>', 'scenarios that only drive pages run in a fresh context of a shared session (context, the default) or each in a session of its own (session)').choices(['context', 'session']))
    .option('--timeout <duration>', 'each scenario\'s time budget, e.g. 90s or 5m (teardown still runs)')
    .option('--bail', 'start no further scenarios after the first that did not pass (running ones finish)')
    .option('--max-failures <n>', 'stop after n scenarios failed (after their retries): running ones are interrupted, their browsers released, the rest reported as not started; exit 1 (0: no limit)')
    .option('-x', 'stop after the first failed scenario (--max-failures 1)')
    .option('--fail-on-flaky-tests', 'fail the run (exit 1) when a scenario passed only on a retry, naming it')
    .option('--keep-on-failure <duration>', "keep a failed scenario's browser at the failing step this long (e.g. 15m, 2h; at most 24h) for someone to open its live view, then end it with DELETE /browsers/{id}; needs --base-url (0: off)")
    .addOption(new Option('--update-snapshots [mode]', 'write screenshot baselines: changed (the default) writes missing and differing ones, all every one, missing only new ones, none none').choices(UPDATE_MODES))
    .addOption(new Option('--trace <mode>', "record Playwright traces, whatever the scenarios' trace: says").choices(['on', 'off', 'retain-on-failure', 'on-first-retry']))
    .option('--reporter <names>', `comma-separated reporters: ${REPORTER_NAMES.join(', ')} (default list)`)
    .addOption(new Option('--report-to <url>', "also send the run, its results and artifacts to this service's /runs as they finish (its key: BCS_API_KEY or --api-key-file)").env('BCS_REPORT_TO'))
    .option('--suite <name>', 'the suite name --report-to keeps the run under (default: report_to.suite in the config, else the working directory\'s name)');
  if (set.watch) {
    cmd
      .option('--watch', 'after the run, run again the scenarios a changed file belongs to (scenario, part, rows, served files), until Ctrl-C')
      .option('--headed', 'headful browsers, shown on this display (DISPLAY) when the service is the embedded one')
      .option('--live', "print each scenario's live view link as its browser starts: watch it run, or take the mouse and keyboard")
      .option('--debug', 'stop before each step until Enter (c: the rest of the scenario, q: stop); headed where there is a display, one worker, no --timeout');
  }
  if (set.list) cmd.option('--list', 'list the scenarios this run would run (every filter, --shard, --only-changed and --repeat-each applied) and exit without running them: the same list as `bcs list` with these flags');
  if (set.json) {
    cmd
      .option('--json', 'print the results as JSON on stdout instead of the step list')
      .option('--run-id <id>', 'what every shard of one run shares, for `--reporter blob` and `bcs merge-reports` (default: BCS_RUN_ID, else the CI\'s run id such as GITHUB_RUN_ID)');
  }
  return cmd;
}

/** What `prepareSuite` needs, from flags and config. */
export function suiteOptions(paths: string[], o: Record<string, any>, config: SuiteConfig | undefined): SuiteOptions {
  // `--only-changed tests/`: commander takes the folder as the ref; a value that is a path and no commit is a path.
  if (typeof o.onlyChanged === 'string' && existsSync(o.onlyChanged) && !isCommit(o.onlyChanged)) {
    paths = [...paths, o.onlyChanged];
    o = { ...o, onlyChanged: true };
  }
  const chosen = paths.length ? paths : config?.paths;
  if (!chosen?.length) throw new UsageError('no scenario paths: pass files or folders, or set `paths` in bcs.config.yaml');
  const grep = o.grep ?? (config?.grep !== undefined ? [config.grep] : undefined);
  const grepInvert = o.grepInvert ?? (config?.grepInvert !== undefined ? [config.grepInvert] : undefined);
  const selection: Omit<Selection, 'only'> = {
    grep: grep?.map((g: string) => usage(() => parsePattern(g, '--grep'))),
    grepInvert: grepInvert?.map((g: string) => usage(() => parsePattern(g, '--grep-invert'))),
    tags: o.tag ?? config?.tags,
    excludeTags: o.excludeTag ?? config?.excludeTags,
    ...(o.shard !== undefined ? { shard: usage(() => parseShard(String(o.shard))) } : {}),
  };
  return {
    paths: chosen,
    vars: { ...config?.vars, ...o.var },
    selection,
    lastFailed: Boolean(o.lastFailed),
    outputDir: resolve(o.outputDir ?? config?.outputDir ?? DEFAULT_OUTPUT_DIR),
    before: config?.before,
    after: config?.after,
    forbidOnly: Boolean(o.forbidOnly),
    headed: Boolean(o.headed || (o.debug && process.env.DISPLAY)),
    repeatEach: integer(o.repeatEach, '--repeat-each', 1, REPEAT_EACH_MAX) ?? config?.repeatEach ?? 1,
    // `--only-changed` alone: against HEAD; `--only-changed main`: since main.
    ...(o.onlyChanged !== undefined ? { onlyChanged: typeof o.onlyChanged === 'string' ? { ref: o.onlyChanged } : {} } : {}),
    ...(config ? { configFile: config.file } : {}),
  };
}

/** Everything of RunOptions that comes from flags and config (not the reporters, signal and server). */
export function executionOptions(o: Record<string, any>, config: SuiteConfig | undefined) {
  // A step someone is looking at has no deadline for the scenario, and one scenario at a time.
  const timeout = o.debug ? undefined : o.timeout !== undefined ? usage(() => parseDuration(String(o.timeout))) : config?.timeoutMs;
  const headed = Boolean(o.headed || (o.debug && process.env.DISPLAY));
  return {
    workers: o.debug ? 1 : (integer(o.workers, '--workers', 1, 64) ?? config?.workers ?? 1),
    retries: integer(o.retries, '--retries', 0, 10) ?? config?.retries ?? 0,
    // A live view shows one browser's screen: with --live each scenario has a browser of its own to show.
    isolation: (o.live ? 'session' : (o.isolation ?? config?.isolation ?? 'context')) as Isolation,
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
    bail: Boolean(o.bail ?? config?.bail),
    maxFailures: maxFailures(o, config),
    failOnFlakyTests: Boolean(o.failOnFlakyTests ?? config?.failOnFlakyTests),
    ...keepOnFailure(o, config),
    ...(o.trace ? { trace: o.trace as TraceMode } : {}),
    ...(o.updateSnapshots ? { updateSnapshots: o.updateSnapshots === true ? 'changed' : (o.updateSnapshots as UpdateSnapshots) } : {}),
    snapshotPaths: { template: config?.snapshotPathTemplate ?? DEFAULT_SNAPSHOT_PATH_TEMPLATE, testDir: config?.dir ?? process.cwd() },
    // An empty environment variable means "not set", not "an empty key".
    baseUrl: o.baseUrl || undefined,
    apiKey: resolveApiKey(o),
    chromium: o.chromium || undefined,
    headlessShell: o.headlessShell || undefined,
    // For the embedded service only: a running service's pools are its administrators' (`bcs pools`).
    ...(config?.pools && !o.baseUrl ? { pools: headed ? headfulPools(config.pools) : config.pools } : {}),
    ...(headed && !o.baseUrl ? { display: hostDisplay() } : {}),
  } satisfies Partial<RunOptions>;
}

/** `--max-failures N`, `-x` (1), else `max_failures` in the config; 0 is no limit. */
function maxFailures(o: Record<string, any>, config: SuiteConfig | undefined): number {
  const flag = integer(o.maxFailures, '--max-failures', 0, 1_000_000);
  if (o.x && flag !== undefined && flag !== 1) throw new UsageError(`-x is --max-failures 1: give one or the other, not -x with --max-failures ${flag}`);
  return o.x ? 1 : (flag ?? config?.maxFailures ?? 0);
}

/**
 * `--keep-on-failure` (or `keep_on_failure`): in whole seconds, as the service takes it. The embedded service
 * ends with the run and its browsers with it, so keeping one there would only pretend.
 */
function keepOnFailure(o: Record<string, any>, config: SuiteConfig | undefined): Pick<RunOptions, 'keepOnFailure'> {
  const flag = o.keepOnFailure !== undefined;
  const ms = flag ? usage(() => parseKeepDuration(String(o.keepOnFailure))) : config?.keepOnFailureMs;
  if (!ms) return {};
  const name = flag ? '--keep-on-failure' : `keep_on_failure in ${config!.file}`;
  const seconds = Math.ceil(ms / 1000);
  if (seconds > KEEP_MAX_SECONDS) throw new UsageError(`${name} is at most 24h (a service keeps a browser at most a day)`);
  if (!o.baseUrl) {
    throw new UsageError(
      `${name} needs a service that outlives the run: the embedded one stops when the run ends, and its browsers with it. ` +
        'Run against one with --base-url (or BCS_BASE_URL), e.g. `bcs serve`; or pass --keep-on-failure 0 to run without it',
    );
  }
  const runId = runIdentity(o.runId)?.id;
  return { keepOnFailure: { seconds, ...(runId ? { runId } : {}) } };
}

/** The display `--headed` shows browsers on: this session's (DISPLAY, with its X authority file). */
function hostDisplay(): { display: string; xauthority?: string } {
  const display = process.env.DISPLAY;
  if (!display) throw new UsageError('--headed needs a display to show the browsers on, and DISPLAY is not set (without one, `browser: { headless: false }` still gives headful browsers on virtual screens, seen in replays)');
  const home = join(homedir(), '.Xauthority');
  const xauthority = process.env.XAUTHORITY || (existsSync(home) ? home : undefined);
  return { display, ...(xauthority ? { xauthority } : {}) };
}

function headfulPools(pools: Record<string, PoolSettings>): Record<string, PoolSettings> {
  return Object.fromEntries(Object.entries(pools).map(([name, p]) => [name, { ...p, headless: false }]));
}

export function reporterNames(o: Record<string, any>, config: SuiteConfig | undefined): string[] {
  const names = o.reporter !== undefined ? String(o.reporter).split(',').map((s) => s.trim()).filter(Boolean) : (config?.reporter ?? ['list']);
  const unknown = names.filter((n) => !(REPORTER_NAMES as string[]).includes(n));
  if (unknown.length) throw new UsageError(`unknown reporter '${unknown[0]}'; expected ${REPORTER_NAMES.join(', ')}`);
  return names;
}

/** The reporters for `names`; `list: false` keeps the step list off stdout (--json prints the results there). */
export function buildReporters(names: string[], outputDir: string, opts: { list: boolean; workers: number; shard?: Shard; runId?: string }): RunReporter[] {
  return createReporters(opts.list ? names : names.filter((n) => n !== 'list'), outputDir, {
    workers: opts.workers,
    ...(opts.shard ? { shard: opts.shard } : {}),
    ...(opts.runId ? { runId: opts.runId } : {}),
  });
}

function integer(value: unknown, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${String(value)}'`);
  return n;
}

function usage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
