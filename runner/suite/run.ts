// One `bcs run`: compile every scenario first (an invalid file stops everything before any browser
// starts), select, open the target, run the suite's `before` hooks, the selected scenarios on a bounded
// worker queue (with retries), the `after` hooks whatever happened, report, and close the target.
import { resolve } from 'node:path';
import { deviceNames } from '../exec/context-options.js';
import type { StepPause } from '../exec/debug-pause.js';
import type { UpdateSnapshots } from '../exec/page-snapshot.js';
import type { SnapshotPaths } from '../exec/snapshot-path.js';
import { TargetGaps } from '../exec/target-gaps.js';
import type { KeepOnFailure } from '../exec/run-context.js';
import { ScenarioError, loadScenarios, type CompileOptions, type CompiledScenario, type Diagnostic, type TraceMode } from '../../src/scenario/index.js';
import { artifactDirs, runAttempts } from './attempts.js';
import type { Isolation } from './config.js';
import { BrowserSupply } from './browser-supply.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { findScenarioFiles } from './files.js';
import { failedIn, readLastRun, writeLastRun } from './last-failed.js';
import { ReporterError, combine, type RunReporter, type SuiteInfo } from '../reporters/reporter.js';
import { summarize, type RunResult, type ScenarioResult } from '../reporters/results.js';
import { selectScenarios, shardOf, type Selection, type Shard } from './select.js';
import { playwrightCore } from '../exec/playwright-lib.js';
import { browserNeed } from './browser-need.js';
import { TargetError, openTarget, type Target, type TargetOptions } from './target.js';
import { poolOfPlan, poolSizes, runQueue } from './workers.js';
import { changedFiles, changedScenarios } from './changed.js';
import { repeatEach, type RunScenario } from './repeat.js';

export interface SuiteOptions {
  paths: string[];
  vars?: Record<string, string>;
  selection?: Omit<Selection, 'only'>;
  /** Only the scenarios that failed in the last run in `outputDir`. */
  lastFailed?: boolean;
  outputDir: string;
  /** Scenario files run once before all others / after all others (after always runs). */
  before?: string[];
  after?: string[];
  /** Whether secrets must be readable now (default true); `bcs list` only looks at the scenarios. */
  checkSecrets?: boolean;
  /** A scenario marked `only: true` is an error (CI, where a forgotten `only` would hide the rest). */
  forbidOnly?: boolean;
  /** Every created browser headful (`--headed`). */
  headed?: boolean;
  /** `--repeat-each N`: every selected scenario N times, each repetition a scenario of its own (before --shard cuts). */
  repeatEach?: number;
  /** `--only-changed [REF]`: only scenarios that depend on a file git says changed since `ref` (default HEAD). */
  onlyChanged?: { ref?: string };
  /** The suite config file: it applies to every scenario, so a change to it changes them all (--only-changed). */
  configFile?: string;
}

export interface RunOptions extends SuiteOptions, TargetOptions {
  reporters: RunReporter[];
  signal: AbortSignal;
  /** Scenarios running at once (default 1). */
  workers?: number;
  /** `session`: every scenario gets a session of its own, page-only ones included (default `context`). */
  isolation?: Isolation;
  /** Extra attempts for a scenario that did not pass (default 0). */
  retries?: number;
  /** Each scenario's budget; it then fails as timed out, teardown still runs. */
  timeoutMs?: number;
  /** Stop starting scenarios after the first one that did not pass. */
  bail?: boolean;
  /** `--max-failures N` (`-x`: 1): after N failed scenarios (after their retries) stop: running ones are interrupted, the rest not started. 0: no limit. */
  maxFailures?: number;
  /** `--fail-on-flaky-tests`: a scenario that passed only on a retry fails the run (exit 1). */
  failOnFlakyTests?: boolean;
  /** Overrides every scenario's `trace`. */
  trace?: TraceMode;
  updateSnapshots?: UpdateSnapshots;
  /** `snapshot_path_template` (bcs.config.yaml) and its `{test_dir}`; default: keyed by build, beside the scenario. */
  snapshotPaths?: SnapshotPaths;
  /** `--debug`: asked before each main step. */
  pause?: StepPause;
  /** Started before the hooks and stopped after everything (the suite's `web_server`); `signal` aborts the start. */
  webServer?: (signal: AbortSignal) => Promise<{ url?: string; stop(): Promise<void> }>;
  /** Progress and decisions worth a line (caps, retries, skips); the CLI prints them on stderr. */
  notice?: (message: string) => void;
  /** A target opened by the caller (`--watch` keeps one across runs): used, and left open. */
  target?: Target;
  /** `--keep-on-failure`: a scenario that fails on its last attempt leaves its browser kept by the service. */
  keepOnFailure?: KeepOnFailure;
}

/** What a suite run adds to RunResult (until runner/reporters/results.ts has these fields). */
/** Kept as names for the run's own code; the fields live in reporters/results.ts with the rest of the schema. */
export type SuiteRunResult = RunResult;
export type SuiteScenarioResult = ScenarioResult;

const SLOW_FACTOR = 3;

export type RunOutcome =
  | { kind: 'invalid'; exitCode: 2; diagnostics: Diagnostic[]; message?: string }
  | { kind: 'infrastructure'; exitCode: 3; message: string }
  /** Nothing to run, and that is fine: an empty shard, or no failures in the last run. */
  | { kind: 'nothing'; exitCode: 0; message: string }
  | { kind: 'ran'; exitCode: number; result: SuiteRunResult };

export interface PreparedSuite {
  /** With --repeat-each, each repetition is an item of its own. */
  selected: RunScenario[];
  before: CompiledScenario[];
  after: CompiledScenario[];
  /** Artifact folder per scenario, decided over everything found so it does not depend on the selection. */
  dirs: Map<CompiledScenario, string>;
  /** Selected, but marked `skip` or `fixme`: reported as skipped, never started. */
  marked: RunScenario[];
  /** The selection before `--shard` cut it, in run order: what every shard of one run shares. */
  whole: RunScenario[];
  /** Set when the selection is legitimately empty. */
  nothing?: string;
}

/** Compiles and selects; throws ScenarioError (invalid files) or Error (usage) — both exit 2. */
export async function prepareSuite(opts: SuiteOptions, notice: (m: string) => void = () => {}): Promise<PreparedSuite> {
  // A hook file inside a folder being run is a hook, not also a scenario of the suite.
  const hookFiles = new Set([...(opts.before ?? []), ...(opts.after ?? [])].map((f) => resolve(f)));
  const files = (await findScenarioFiles(opts.paths)).filter((f) => !hookFiles.has(resolve(f)));
  const compile = { vars: opts.vars, checkSecrets: opts.checkSecrets, headed: opts.headed };
  const found = await compileAll(files, compile);
  const before = await compileAll(opts.before ?? [], compile);
  const after = await compileAll(opts.after ?? [], compile);
  if (found.length === 0) throw new Error('no scenario files found');
  const dirs = artifactDirs([...before, ...found, ...after], opts.outputDir);
  let only: Selection['only'];
  if (opts.lastFailed) {
    const last = await readLastRun(opts.outputDir);
    if (!last) notice(`--last-failed: no earlier run recorded in ${opts.outputDir}; running every selected scenario`);
    else if (last.failed.length === 0) return { selected: [], before, after, dirs, marked: [], whole: [], nothing: 'no scenario failed in the last run; nothing to re-run' };
    else only = failedIn(last);
  }
  if (opts.forbidOnly) {
    const onlies = found.filter((c) => c.plan.scenario.annotations?.only);
    if (onlies.length) throw new Error(`--forbid-only: ${onlies.map((c) => `'${c.plan.scenario.name}' (${c.plan.scenario.file})`).join(', ')} ${onlies.length === 1 ? 'is' : 'are'} marked only: true`);
  }
  let candidates = found;
  if (opts.onlyChanged) {
    const since = opts.onlyChanged.ref ?? 'HEAD';
    const changed = await changedFiles(opts.onlyChanged.ref);
    candidates = await changedScenarios(found, changed, opts.configFile ? [resolve(opts.configFile)] : []);
    const what = opts.onlyChanged.ref === undefined ? 'the uncommitted changes' : `the changes since ${since}`;
    notice(`--only-changed: ${candidates.length} of ${found.length} scenario${found.length === 1 ? '' : 's'} depend${candidates.length === 1 ? 's' : ''} on ${what} (${changed.size} file${changed.size === 1 ? '' : 's'})`);
    if (candidates.length === 0) return { selected: [], before, after, dirs, marked: [], whole: [], nothing: `no scenario depends on ${what}; nothing to run` };
  }
  const sel = opts.selection ?? {};
  const filtered = selectScenarios(candidates, { ...sel, only, shard: undefined });
  // Repetitions before the shard cut, as Playwright shards repeated tests: they spread over the shards.
  const whole = repeatEach(filtered.items, opts.repeatEach ?? 1, dirs);
  const matched = whole.length;
  const mine = sel.shard ? new Set(shardOf(whole, sel.shard)) : undefined;
  let items = mine ? whole.filter((c) => mine.has(c)) : whole;
  const onlies = items.filter((c) => c.plan.scenario.annotations?.only);
  if (onlies.length) {
    notice(`only: running the ${onlies.length} scenario${onlies.length === 1 ? '' : 's'} marked only: true`);
    items = onlies;
  }
  const marked = items.filter((c) => c.plan.scenario.annotations?.skip || c.plan.scenario.annotations?.fixme);
  items = items.filter((c) => !marked.includes(c));
  if (matched === 0) {
    if (opts.onlyChanged) return { selected: [], before, after, dirs, marked: [], whole, nothing: 'none of the scenarios that depend on changed files is selected' };
    if (only) return { selected: [], before, after, dirs, marked: [], whole, nothing: 'none of the scenarios that failed last time is selected now' };
    throw new Error(`no scenario matches the selection (${describeSelection(sel)}) among ${found.length} found`);
  }
  if (sel.shard) {
    notice(`shard ${sel.shard.index}/${sel.shard.total}: ${items.length} of ${matched} scenario${matched === 1 ? '' : 's'}`);
    if (items.length === 0 && marked.length === 0) return { selected: [], before, after, dirs, marked, whole, nothing: `shard ${sel.shard.index}/${sel.shard.total} has no scenarios` };
  }
  return { selected: items, before, after, dirs, marked, whole };
}

export async function runScenarios(opts: RunOptions): Promise<RunOutcome> {
  const notice = opts.notice ?? (() => {});
  const startedAt = new Date();
  // The service starts while the scenarios compile; a run that turns out to have nothing to do closes it.
  const opening = opts.target ? Promise.resolve(opts.target) : openTarget(opts);
  opening.catch(() => {}); // awaited below, or closed once open
  const discardTarget = () => opening.then((t) => (opts.target ? undefined : t.close()), () => {});
  let suite: PreparedSuite;
  try {
    suite = await prepareSuite(opts, notice);
  } catch (err) {
    await discardTarget();
    if (err instanceof ScenarioError) return { kind: 'invalid', exitCode: EXIT.invalid, diagnostics: err.diagnostics };
    return { kind: 'invalid', exitCode: EXIT.invalid, diagnostics: [], message: (err as Error).message };
  }
  const workers = Math.max(1, opts.workers ?? 1);
  // Playwright loads (a fifth of a second of this thread) while the embedded service starts on its own.
  if (!opts.target && suite.selected.some((c) => browserNeed(c.plan, { share: true }))) playwrightCore();
  const info = { workers, retries: opts.retries ?? 0, suite: suiteInfo(suite) };
  if (suite.nothing) {
    await discardTarget();
    try {
      await combine(opts.reporters).runEmpty(info, suite.nothing);
    } catch (err) {
      if (!(err instanceof ReporterError)) throw err;
      return { kind: 'infrastructure', exitCode: EXIT.infrastructure, message: `writing reports failed: ${err.message}` };
    }
    return { kind: 'nothing', exitCode: EXIT.passed, message: suite.nothing };
  }

  const reporter = combine(opts.reporters);
  let target: Target;
  try {
    target = await opening;
  } catch (err) {
    if (err instanceof TargetError) return { kind: 'infrastructure', exitCode: EXIT.infrastructure, message: err.message };
    throw err;
  }
  let server: { url?: string; stop(): Promise<void> } | undefined;
  // Found by the scenarios as they run, said once at the end: a target without our extensions is no failure.
  const gaps = new TargetGaps();
  const done: SuiteScenarioResult[] = [];
  /** Set when --max-failures stopped the run: how many had failed. */
  let stoppedAt: number | undefined;
  const skipped: NonNullable<SuiteRunResult['skipped']> = suite.marked.map((c) => {
    const { skip, fixme } = c.plan.scenario.annotations!;
    return { name: c.plan.scenario.name, file: c.plan.scenario.file, reason: skip ? 'skip' : 'fixme', note: skip ?? fixme };
  });
  try {
    reporter.runStarted(target.info, [...suite.before, ...suite.selected, ...suite.after].map((c) => c.plan), info);
    if (opts.webServer) {
      try {
        server = await opts.webServer(opts.signal);
      } catch (err) {
        return { kind: 'infrastructure', exitCode: EXIT.infrastructure, message: `the web server did not start: ${(err as Error).message}` };
      }
    }
    const localServers = target.info.kind === 'embedded' ? { urls: server?.url ? [server.url] : [] } : undefined;
    const attemptDeps = (c: CompiledScenario, retries: number, signal: AbortSignal, suiteHook?: 'before' | 'after', browsers?: BrowserSupply) => ({
      browsers,
      localServers,
      gaps,
      client: target.client, outputDir: opts.outputDir, reporter, signal, retries, artifactDir: suite.dirs.get(c)!, notice, suiteHook, trace: opts.trace, updateSnapshots: opts.updateSnapshots, snapshotPaths: opts.snapshotPaths, pause: opts.pause,
      keepOnFailure: opts.keepOnFailure,
      // `slow: true` triples the scenario's budget as it tripled its steps' timeouts.
      timeoutMs: opts.timeoutMs !== undefined && c.plan.scenario.annotations?.slow ? opts.timeoutMs * SLOW_FACTOR : opts.timeoutMs,
    });

    // Each `before` hook prepares for the next and for the suite: after one fails, nothing else starts.
    for (const hook of suite.before) {
      if (opts.signal.aborted || done.some((r) => r.status !== 'passed')) break;
      done.push(await runAttempts(hook, attemptDeps(hook, 0, opts.signal, 'before')));
    }
    const beforeFailed = done.some((r) => r.status !== 'passed');
    const results = new Map<CompiledScenario, ScenarioResult>();
    if (beforeFailed || opts.signal.aborted) {
      const reason = opts.signal.aborted ? 'interrupted' : 'before hook failed';
      if (!opts.signal.aborted) notice(`a before hook failed: the ${suite.selected.length} selected scenario${suite.selected.length === 1 ? '' : 's'} do not run`);
      for (const c of suite.selected) skipped.push({ name: c.plan.scenario.name, file: c.plan.scenario.file, reason });
    } else {
      const caps = await poolCaps(suite.selected, target, workers, opts.signal, notice);
      // The step list's header says it already; said once.
      if (workers > 1 && !opts.reporters.some((r) => r.name === 'list')) notice(`running ${suite.selected.length} scenarios on ${workers} workers`);
      let bailed = false;
      // --max-failures: once reached, running scenarios are interrupted (their teardown still releases
      // their browsers) and no other starts; the run's own signal (Ctrl-C) is untouched.
      const maxFailures = opts.maxFailures ?? 0;
      let failures = 0;
      const stop = new AbortController();
      const scenarioSignal = maxFailures > 0 ? AbortSignal.any([opts.signal, stop.signal]) : opts.signal;
      const supply = new BrowserSupply({ client: target.client, workers, notice, share: opts.isolation !== 'session', ...(localServers ? { localServers } : {}) });
      supply.expect(suite.selected.map((c) => c.plan));
      const notStarted = await runQueue(
        suite.selected,
        { workers, poolOf: (c) => poolOfPlan(c.plan), poolCapacity: (p) => caps.get(p) ?? Infinity, canStart: () => !bailed && !stop.signal.aborted && !opts.signal.aborted },
        async (c) => {
          const result = await runAttempts(c, attemptDeps(c, opts.retries ?? 0, scenarioSignal, undefined, supply));
          results.set(c, result);
          // Counted after its retries, as Playwright counts; one cut short by the stop is not a failure of its own.
          if (result.status !== 'passed' && !result.interrupted && ++failures === maxFailures) {
            stoppedAt = failures;
            notice(`--max-failures ${maxFailures}: ${failures} scenario${failures === 1 ? '' : 's'} failed ('${c.plan.scenario.name}' last); stopping the run`);
            stop.abort(new Error(`max failures (${maxFailures}) reached`));
          }
          if (opts.bail && result.status !== 'passed' && !bailed) {
            bailed = true;
            notice(`--bail: '${c.plan.scenario.name}' did not pass; starting no further scenarios`);
          }
        },
      ).finally(() => supply.close());
      for (const c of notStarted) {
        skipped.push({ name: c.plan.scenario.name, file: c.plan.scenario.file, reason: opts.signal.aborted ? 'interrupted' : stoppedAt ? 'max failures' : 'bail' });
      }
    }
    // Results in selection order, whatever order the workers finished in.
    for (const c of suite.selected) if (results.has(c)) done.push(results.get(c)!);

    // `after` hooks are cleanup: they run even after Ctrl-C, with a signal of their own (a second Ctrl-C quits).
    const afterSignal = new AbortController().signal;
    for (const hook of suite.after) done.push(await runAttempts(hook, attemptDeps(hook, 0, afterSignal, 'after')));
  } finally {
    await server?.stop().catch((err: Error) => notice(`stopping the web server failed: ${err.message}`));
    if (!opts.target) await target.close();
  }
  const notStarted = skipped.filter((s) => s.reason !== 'skip' && s.reason !== 'fixme');
  if (notStarted.length) notice(`${notStarted.length} scenario${notStarted.length === 1 ? '' : 's'} not started (${notStarted[0]!.reason})`);

  const lacked = gaps.note();
  if (lacked) notice(lacked);
  const result = suiteResult(startedAt, target, gaps, done, skipped, opts.selection?.shard);
  await writeLastRun(opts.outputDir, done.filter((r) => !r.hook)).catch((err: Error) => notice(`could not record the run for --last-failed: ${err.message}`));
  // Scenarios --max-failures cut short are not an interruption of the run: it failed, as the failures say.
  let exitCode = stoppedAt && !opts.signal.aborted ? exitCodeFor(done.filter((r) => !r.interrupted)) : exitCodeFor(done, opts.signal.aborted);
  if (stoppedAt) {
    const cut = done.filter((r) => r.interrupted && !r.hook).length;
    const unstarted = skipped.filter((s) => s.reason === 'max failures').length;
    notice(`--max-failures ${opts.maxFailures}: stopped after ${stoppedAt} failed scenario${stoppedAt === 1 ? '' : 's'}; ${cut} interrupted, ${unstarted} not started`);
  }
  const flaky = done.filter((r) => r.flaky);
  if (opts.failOnFlakyTests && flaky.length) {
    notice(`--fail-on-flaky-tests: ${flaky.length} scenario${flaky.length === 1 ? ' was' : 's were'} flaky (passed only on a retry): ${flaky.map((r) => `'${r.name}' (${r.file})`).join(', ')}`);
    if (exitCode === EXIT.passed) exitCode = EXIT.failed;
  }
  try {
    await reporter.runFinished(result);
  } catch (err) {
    if (!(err instanceof ReporterError)) throw err;
    // A report CI relies on is missing: as broken as an unreachable service, unless the run was cut short anyway.
    notice(`writing reports failed: ${err.message}`);
    if (exitCode !== EXIT.interrupted) exitCode = EXIT.infrastructure;
  }
  return { kind: 'ran', exitCode, result };
}

function suiteInfo(suite: PreparedSuite): SuiteInfo {
  const refs = (list: CompiledScenario[]) => list.map(({ plan }) => ({ file: plan.scenario.file, name: plan.scenario.name }));
  return { selection: refs(suite.whole), before: refs(suite.before), after: refs(suite.after) };
}

function suiteResult(
  startedAt: Date,
  target: Target,
  gaps: TargetGaps,
  scenarios: SuiteScenarioResult[],
  skipped: NonNullable<SuiteRunResult['skipped']>,
  shard: Shard | undefined,
): SuiteRunResult {
  return {
    version: 1,
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
    target: { kind: target.info.kind, base_url: target.info.base_url, ...(gaps.list().length ? { lacks: gaps.list() } : {}) },
    scenarios,
    summary: summarize(scenarios, skipped.length),
    ...(shard ? { shard } : {}),
    ...(skipped.length ? { skipped } : {}),
  };
}

/** Pool sizes for the pools the selected scenarios lease from, with a notice where a pool is the bound. */
async function poolCaps(selected: CompiledScenario[], target: Target, workers: number, signal: AbortSignal, notice: (m: string) => void) {
  const perPool = new Map<string, number>();
  for (const c of selected) {
    const pool = poolOfPlan(c.plan);
    if (pool !== undefined) perPool.set(pool, (perPool.get(pool) ?? 0) + 1);
  }
  if (workers === 1 || perPool.size === 0) return new Map<string, number>();
  const sizes = await poolSizes(target.client, perPool.keys(), signal);
  for (const [pool, size] of sizes) {
    const count = perPool.get(pool)!;
    if (size < workers && size < count) {
      notice(`pool '${pool}' has ${size} browser${size === 1 ? '' : 's'}: at most ${size} of its ${count} scenarios run at once; the rest queue for a lease`);
    }
  }
  return sizes;
}

function describeSelection(sel: Omit<Selection, 'only'>): string {
  const parts: string[] = [];
  for (const re of sel.grep ?? []) parts.push(`--grep ${re.source}`);
  for (const re of sel.grepInvert ?? []) parts.push(`--grep-invert ${re.source}`);
  for (const t of sel.tags ?? []) parts.push(`--tag ${t}`);
  for (const t of sel.excludeTags ?? []) parts.push(`--exclude-tag ${t}`);
  return parts.join(' ') || 'no filters';
}

/** Compiles every file (a TypeScript file may hold several scenarios), collecting the diagnostics of all of them before giving up. */
export async function compileAll(files: string[], opts: Pick<CompileOptions, 'vars' | 'checkSecrets' | 'headed'> = {}): Promise<CompiledScenario[]> {
  const plans: CompiledScenario[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    try {
      plans.push(...(await loadScenarios(file, { ...opts, devices: deviceNames })));
    } catch (err) {
      if (!(err instanceof ScenarioError)) throw err;
      diagnostics.push(...err.diagnostics);
    }
  }
  // A broken defaults file is reported by every scenario below it: once is enough.
  if (diagnostics.length) throw new ScenarioError(diagnostics.filter((d, i) => diagnostics.findIndex((e) => e.file === d.file && e.line === d.line && e.col === d.col && e.message === d.message) === i));
  return plans;
}
