// The `bcs` command line: run, list, schedule, plan, validate, merge-reports and serve, and the administration commands
// (keys, projects, profiles, extensions, proxies) of runner/admin/.
import { Command, CommanderError, Option } from 'commander';
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative, resolve } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { DEFAULTS_FILE, PART_FILE, ScenarioError, formatDiagnostic, loadDefaultsFile, loadScenarioFile, validateScenario, type Diagnostic } from '../../src/scenario/index.js';
import { loadConfig, type SuiteConfig } from '../suite/config.js';
import { registerAdmin } from './admin/index.js';
import { registerServe } from './serve.js';
import { registerMergeReports } from './merge-reports.js';
import { registerCodegen } from './codegen.js';
import { addApiKeyOptions, resolveApiKey } from './api-key.js';
import { EXIT } from '../suite/exit-codes.js';
import { findScenarioFiles } from '../suite/files.js';
import { formatPlan } from './plan-format.js';
import { integerOption, UsageError } from './usage-error.js';
import { buildReporters, collectVar, executionOptions, reporterNames, runFlags, selectionFlags, suiteOptions } from './run-flags.js';
import { compileAll, prepareSuite, runScenarios, type RunOutcome } from '../suite/run.js';
import { TargetError, openTarget } from '../suite/target.js';
import { stepPause, type StepPause } from '../exec/debug-pause.js';
import { registerSchedule } from './schedule/command.js';
import { registerMonitor } from './monitor/command.js';
import { startWebServer } from '../exec/web-server.js';
import { poolOfPlan } from '../suite/workers.js';
import { liveLinksReporter } from '../reporters/live-links.js';
import { reportToReporters } from './report-to.js';

function printDiagnostics(diagnostics: Diagnostic[], message?: string): void {
  for (const d of diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
  if (message) process.stderr.write(`bcs: ${message}\n`);
}

/** A scenario that does not compile, or a path that does not exist: report it and exit 2. */
function failInvalid(err: unknown): void {
  if (err instanceof ScenarioError) printDiagnostics(err.diagnostics);
  else printDiagnostics([], (err as Error).message);
  finish(EXIT.invalid);
}

/** Exits once stdout has drained, so piped output (`--json | jq`) is never cut short. */
function finish(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

const notice = (message: string) => process.stderr.write(`bcs: ${message}\n`);

// Code a scenario runs (a `script` step's `page.on(...)` handler) can fail outside any step; say so, and
// let the run go on and report, instead of the process dying with every browser left to clean up.
process.on('unhandledRejection', (reason) => notice(`a handler set by a scenario failed outside its step: ${(reason as Error)?.message ?? String(reason)}`));

/** `--debug`: asks on stderr, reads stdin; `q` stops the run as Ctrl-C does. */
function debugPause(): StepPause {
  const pause = stepPause(process.stdin, process.stderr);
  return {
    async before(scenario, step, where) {
      const answer = await pause.before(scenario, step, where);
      if (answer === 'stop') process.kill(process.pid, 'SIGINT');
      return answer;
    },
    close: () => pause.close(),
  };
}

function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    process.stderr.write('\nbcs: interrupted; releasing browsers and writing reports (press Ctrl-C again to quit now)\n');
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller.signal;
}

/**
 * The suite's `web_server`, started once around the whole run. Scenarios find its URL as
 * `{{ env.BCS_WEB_SERVER_URL }}` (compiled after this is set, so it substitutes like any variable).
 */
function webServerOf(config: SuiteConfig | undefined): ((signal: AbortSignal) => Promise<{ url?: string; stop(): Promise<void> }>) | undefined {
  const ws = config?.webServer;
  if (!ws) return undefined;
  process.env.BCS_WEB_SERVER_URL = ws.url;
  return async (signal) => {
    notice(`starting the web server: ${ws.command}`);
    const server = await startWebServer({ ...ws, signal });
    notice(server.reused ? `using the server already answering at ${ws.url}` : `web server answering at ${ws.url}`);
    return server;
  };
}

/**
 * `bcs list`, and `bcs run --list` (the same list: a run's command line with --list added lists what it
 * would run, as Playwright Test's --list does; the flags that only say how scenarios run are not used).
 */
async function listScenarios(paths: string[], o: Record<string, any>): Promise<void> {
  const config = await loadConfig(o.config);
  const suite = suiteOptions(paths, o, config);
  let prepared;
  try {
    prepared = await prepareSuite({ ...suite, checkSecrets: false }, notice);
  } catch (err) {
    return failInvalid(err);
  }
  const entry = (c: (typeof prepared.selected)[number]) => {
    const pool = poolOfPlan(c.plan);
    const annotations = c.plan.scenario.annotations;
    return {
      name: c.plan.scenario.name, file: c.plan.scenario.file, tags: c.plan.scenario.tags, ...(pool ? { pool } : {}),
      ...(annotations ? { annotations } : {}), ...(c.repeat ? { repeat: c.repeat } : {}), artifact_dir: relative(suite.outputDir, prepared.dirs.get(c)!),
    };
  };
  const listed = {
    total: prepared.selected.length,
    ...(suite.selection?.shard ? { shard: suite.selection.shard } : {}),
    scenarios: prepared.selected.map(entry),
    skipped: prepared.marked.map(entry),
    before: prepared.before.map(entry),
    after: prepared.after.map(entry),
  };
  if (o.json) {
    process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
  } else {
    for (const h of listed.before) process.stdout.write(`before  ${h.file}  ${h.name}\n`);
    for (const s of listed.scenarios) process.stdout.write(`${s.file}  ${s.name}${s.tags.length ? `  [${s.tags.join(', ')}]` : ''}${s.pool ? `  pool ${s.pool}` : ''}\n`);
    for (const h of listed.after) process.stdout.write(`after   ${h.file}  ${h.name}\n`);
    for (const m of listed.skipped) process.stdout.write(`skip    ${m.file}  ${m.name}  (${m.annotations?.skip ?? `fixme: ${m.annotations?.fixme}`})\n`);
    process.stdout.write(`${listed.total} scenario${listed.total === 1 ? '' : 's'}${prepared.nothing ? ` (${prepared.nothing})` : ''}\n`);
  }
  finish(EXIT.passed);
}

const program = new Command('bcs')
  .description('Browser scenarios on a local, wire-compatible Browser Cloud API')
  .version(pkg.version)
  // Options after a command are that command's: `bcs deploy DIR --version 1.0` is the app's version, while
  // `bcs --version` still prints bcs's own.
  .enablePositionalOptions()
  .showHelpAfterError()
  .exitOverride();

runFlags(
  program
    .command('run')
    .description('run scenario files (or every scenario in the given folders)')
    .argument('[paths...]', 'scenario files or folders (default: `paths` in bcs.config.yaml)'),
).action(async (paths: string[], o) => {
  if (o.list) return listScenarios(paths, o);
  const config = await loadConfig(o.config);
  const suite = suiteOptions(paths, o, config);
  const exec = executionOptions(o, config);
  const makeReporters = (say: (m: string) => void = notice) => [
    ...buildReporters(reporterNames(o, config), suite.outputDir, { list: !o.json, workers: exec.workers, shard: suite.selection?.shard, runId: o.runId }),
    ...(o.live ? [liveLinksReporter(say)] : []),
    // After the list: the run's summary is printed before its end waits for the uploads.
    ...reportToReporters(o, config, { outputDir: suite.outputDir, shard: suite.selection?.shard, apiKey: exec.apiKey, say }),
  ];
  const settle = (outcome: RunOutcome) => {
    if (outcome.kind === 'invalid') printDiagnostics(outcome.diagnostics, outcome.message);
    if (outcome.kind === 'infrastructure') process.stderr.write(`bcs: ${outcome.message}\n`);
    if (outcome.kind === 'nothing') notice(outcome.message);
    if (outcome.kind === 'ran' && o.json) process.stdout.write(`${JSON.stringify(outcome.result, null, 2)}\n`);
  };
  if (o.watch) {
    const signal = interruptSignal();
    const { watchRuns } = await import('../suite/watch.js');
    const open = () => openTarget(exec).catch((err: Error) => {
      throw err instanceof TargetError ? new UsageError(err.message) : err;
    });
    const code = await watchRuns({ ...suite, ...exec, notice, webServer: webServerOf(config), signal }, { open, reporters: () => makeReporters(), settle, say: notice, signal });
    return finish(code);
  }
  const pause = o.debug ? debugPause() : undefined;
  // On a terminal the live tree owns the screen: notices go through it, or they would tear the tree apart.
  const say = (m: string) => (tree ? reporters.forEach((r) => r.notice?.(m)) : notice(m));
  const reporters = makeReporters(say);
  const tree = Boolean(process.stdout.isTTY) && reporters.some((r) => r.name === 'list');
  const outcome = await runScenarios({ ...suite, ...exec, reporters, signal: interruptSignal(), notice: say, webServer: webServerOf(config), pause });
  pause?.close();
  settle(outcome);
  finish(outcome.exitCode);
});

selectionFlags(
  program
    .command('list')
    .description('list the scenarios a run with the same flags would run, without running them (`bcs run ... --list` is the same)')
    .argument('[paths...]', 'scenario files or folders (default: `paths` in bcs.config.yaml)'),
)
  .option('--json', 'print the list as JSON')
  .action(listScenarios);

registerSchedule(program, finish, webServerOf);

program
  .command('plan')
  .description('print the plan a scenario compiles to, without running it')
  .argument('<file>', 'scenario file')
  .option('--var <name=value>', 'set a scenario variable (repeatable)', collectVar, {})
  .option('--json', 'print the plan as JSON')
  .action(async (file: string, o) => {
    try {
      // A TypeScript file may hold several scenarios: one plan each (a JSON list then).
      const plans = (await compileAll([file], { vars: o.var, checkSecrets: false })).map((c) => c.plan);
      if (o.json) process.stdout.write(`${JSON.stringify(plans.length === 1 ? plans[0] : plans, null, 2)}\n`);
      else process.stdout.write(plans.map((p) => formatPlan(p)).join('\n'));
      finish(EXIT.passed);
    } catch (err) {
      failInvalid(err);
    }
  });

program
  .command('validate')
  .description('check scenario files without starting a browser')
  .argument('<paths...>', 'scenario files or folders')
  .option('--var <name=value>', 'set a scenario variable (repeatable)', collectVar, {})
  .action(async (paths: string[], o) => {
    try {
      const files = await findScenarioFiles(paths, process.cwd(), { parts: true });
      const parts = files.filter((f) => PART_FILE.test(f));
      const defaults = files.filter((f) => DEFAULTS_FILE.test(f));
      // A part compiles inside the scenarios that include it; on its own only its shape can be checked.
      const partProblems = (await Promise.all(parts.map(async (f) => validateScenario(await loadScenarioFile(f))))).flat();
      // A defaults file is checked on its own too, so one with no scenario below it yet is checked as well.
      for (const f of defaults) {
        try {
          loadDefaultsFile(f);
        } catch (err) {
          if (!(err instanceof ScenarioError)) throw err;
          partProblems.push(...err.diagnostics);
        }
      }
      const scenarios = files.filter((f) => !PART_FILE.test(f) && !DEFAULTS_FILE.test(f));
      await compileAll(scenarios, { vars: o.var, checkSecrets: false }).catch((err) => {
        if (err instanceof ScenarioError) {
          const seen = new Set(partProblems.map(formatDiagnostic));
          throw new ScenarioError([...partProblems, ...err.diagnostics.filter((d) => !seen.has(formatDiagnostic(d)))]);
        }
        throw err;
      });
      if (partProblems.length) throw new ScenarioError(partProblems);
      const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
      const extras = [parts.length ? count(parts.length, 'part') : '', defaults.length ? count(defaults.length, 'defaults file') : ''].filter(Boolean);
      process.stdout.write(`${count(scenarios.length, 'scenario file')}${extras.length ? ` and ${extras.join(' and ')}` : ''} valid\n`);
      finish(EXIT.passed);
    } catch (err) {
      failInvalid(err);
    }
  });

registerServe(program, finish);

registerMergeReports(program, finish);
registerCodegen(program, finish);

program
  .command('show-trace')
  .description("open a scenario's Playwright trace (trace.zip in its artifacts) in Playwright's trace viewer")
  .argument('<file>', 'the trace.zip a run wrote')
  .option('--host <host>', 'address to serve the viewer on', '127.0.0.1')
  .option('--port <port>', 'port to serve the viewer on (0 picks a free one)', '9323')
  .action(async (file: string, o) => {
    const { stat } = await import('node:fs/promises');
    if (!(await stat(file).catch(() => undefined))?.isFile()) throw new UsageError(`no such trace file: ${file}`);
    // Playwright's own viewer, shipped in playwright-core: served over HTTP, so it works without a display.
    const cli = join(dirname(fileURLToPath(import.meta.resolve('playwright-core/package.json'))), 'cli.js');
    const child = spawn(process.execPath, [cli, 'show-trace', '--host', o.host, '--port', String(o.port), resolve(file)], { stdio: 'inherit' });
    // The viewer goes when bcs goes, however it is stopped.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
    child.on('exit', (code) => finish(code ?? 0));
  });

registerAdmin(program, finish);
registerMonitor(program, finish);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exit(err.exitCode === 0 ? 0 : EXIT.invalid);
  } else if (err instanceof ScenarioError) {
    printDiagnostics(err.diagnostics);
    process.exit(EXIT.invalid);
  } else if (err instanceof UsageError) {
    process.stderr.write(`bcs: ${err.message}\n`);
    process.exit(EXIT.invalid);
  } else {
    process.stderr.write(`bcs: ${(err as Error).message}\n`);
    process.exit(EXIT.infrastructure);
  }
}
