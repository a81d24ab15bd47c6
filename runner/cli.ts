// The `bcs` command line: run, plan, validate and serve.
import { Command, CommanderError, Option } from 'commander';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import pkg from '../package.json' with { type: 'json' };
import { ScenarioError, formatDiagnostic, type Diagnostic } from '../src/scenario/index.js';
import { startService } from '../src/service/index.js';
import { EXIT } from './exit-codes.js';
import { findScenarioFiles } from './files.js';
import { formatPlan } from './plan-format.js';
import type { RunReporter } from './reporter.js';
import { consoleReporter } from './reporters/console.js';
import { jsonReporter } from './reporters/json.js';
import { compileAll, runScenarios } from './run.js';

const REPORTERS = ['list', 'json'] as const;

class UsageError extends Error {}

function collectVar(value: string, vars: Record<string, string>): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new UsageError(`--var expects name=value, got '${value}'`);
  return { ...vars, [value.slice(0, eq)]: value.slice(eq + 1) };
}

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

function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    process.stderr.write('\nbcs: interrupted; releasing browsers (press Ctrl-C again to quit now)\n');
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller.signal;
}

const program = new Command('bcs')
  .description('Browser scenarios on a local, wire-compatible Browser Cloud API')
  .version(pkg.version)
  .showHelpAfterError()
  .exitOverride();

program
  .command('run')
  .description('run scenario files (or every scenario in the given folders)')
  .argument('<paths...>', 'scenario files or folders')
  .addOption(new Option('--base-url <url>', 'target a running service instead of the embedded one').env('BCS_BASE_URL'))
  .addOption(new Option('--api-key <key>', 'API key for --base-url').env('BCS_API_KEY'))
  .addOption(new Option('--chromium <path>', 'Chromium for the embedded service').env('BCS_CHROMIUM'))
  .option('--var <name=value>', 'set a scenario variable (repeatable)', collectVar, {})
  .option('--reporter <names>', `comma-separated reporters: ${REPORTERS.join(', ')}`, 'list')
  .option('--output-dir <dir>', 'where results and artifacts are written', 'bcs-results')
  .option('--json', 'print the results as JSON on stdout instead of the step list')
  .action(async (paths: string[], o) => {
    const names = String(o.reporter).split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = names.filter((n) => !(REPORTERS as readonly string[]).includes(n));
    if (unknown.length) throw new UsageError(`unknown reporter '${unknown[0]}'; expected ${REPORTERS.join(', ')}`);
    const outputDir = resolve(o.outputDir);
    const reporters: RunReporter[] = [];
    if (names.includes('list') && !o.json) {
      const tty = Boolean(process.stdout.isTTY);
      reporters.push(consoleReporter(process.stdout, { tty, color: tty && !process.env.NO_COLOR }));
    }
    if (names.includes('json')) reporters.push(jsonReporter(outputDir));
    const outcome = await runScenarios({
      paths,
      vars: o.var,
      outputDir,
      reporters,
      // An empty environment variable means "not set", not "an empty key".
      baseUrl: o.baseUrl || undefined,
      apiKey: o.apiKey || undefined,
      chromium: o.chromium || undefined,
      signal: interruptSignal(),
    });
    if (outcome.kind === 'invalid') printDiagnostics(outcome.diagnostics, outcome.message);
    if (outcome.kind === 'infrastructure') process.stderr.write(`bcs: ${outcome.message}\n`);
    if (outcome.kind === 'ran' && o.json) process.stdout.write(`${JSON.stringify(outcome.result, null, 2)}\n`);
    finish(outcome.exitCode);
  });

program
  .command('plan')
  .description('print the plan a scenario compiles to, without running it')
  .argument('<file>', 'scenario file')
  .option('--var <name=value>', 'set a scenario variable (repeatable)', collectVar, {})
  .option('--json', 'print the plan as JSON')
  .action(async (file: string, o) => {
    try {
      const { plan } = (await compileAll([file], o.var))[0]!;
      process.stdout.write(o.json ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
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
      const files = await findScenarioFiles(paths);
      await compileAll(files, o.var);
      process.stdout.write(`${files.length} scenario file${files.length === 1 ? '' : 's'} valid\n`);
      finish(EXIT.passed);
    } catch (err) {
      failInvalid(err);
    }
  });

program
  .command('serve')
  .description('run the Browser Cloud API service standalone')
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--port <port>', 'port to listen on (0 picks a free one)', '8340')
  .addOption(new Option('--api-key <key>', 'the admin API key (generated and printed once when absent)').env('BCS_API_KEY'))
  .addOption(
    new Option('--data-dir <dir>', 'where the database and session files live').default(
      join(process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'browser-scenarios'),
    ),
  )
  .addOption(new Option('--chromium <path>', 'Chromium executable to launch').env('BCS_CHROMIUM'))
  .addOption(new Option('--log-level <level>', 'log level').choices(['silent', 'error', 'warn', 'info', 'debug']).default('info'))
  .option('--standby <n>', 'browsers kept launched so POST /browsers with default options is a handoff (0 turns it off)', '1')
  .action(async (o) => {
    const port = Number(o.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535, got '${o.port}'`);
    const standby = Number(o.standby);
    if (!Number.isInteger(standby) || standby < 0 || standby > 100) throw new UsageError(`--standby must be 0-100, got '${o.standby}'`);
    const service = await startService({
      host: o.host,
      port,
      apiKey: o.apiKey || undefined,
      dataDir: resolve(o.dataDir),
      chromium: o.chromium || undefined,
      logLevel: o.logLevel,
      standby,
    });
    process.stdout.write(`BCS_BASE_URL=${service.baseUrl}\n`);
    if (service.apiKeyGenerated) process.stdout.write(`BCS_API_KEY=${service.apiKey}\n`);
    process.stderr.write(
      `bcs serve: listening on ${service.baseUrl}; chromium ${service.chromium.path} (${service.chromium.source}); data in ${resolve(o.dataDir)}\n` +
        (service.apiKeyGenerated ? 'bcs serve: the API key above is shown only once; only its hash is stored\n' : ''),
    );
    const stop = async () => {
      process.stderr.write('bcs serve: stopping; closing every browser\n');
      await service.close();
      finish(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exit(err.exitCode === 0 ? 0 : EXIT.invalid);
  } else if (err instanceof UsageError) {
    process.stderr.write(`bcs: ${err.message}\n`);
    process.exit(EXIT.invalid);
  } else {
    process.stderr.write(`bcs: ${(err as Error).message}\n`);
    process.exit(EXIT.infrastructure);
  }
}
