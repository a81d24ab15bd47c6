// `bcs schedule PATHS... --cron EXPR`: the CLI side of the scheduler (flags, config, signals).
import { Command, Option } from 'commander';
import { resolve } from 'node:path';
import { loadConfig, type SuiteConfig } from '../../suite/config.js';
import { EXIT } from '../../suite/exit-codes.js';
import { buildReporters, executionOptions, reporterNames, runFlags, suiteOptions } from '../run-flags.js';
import { UsageError } from '../usage-error.js';
import { reportToReporters } from '../report-to.js';
import { runScenarios } from '../../suite/run.js';
import { checkCron, startSchedule } from './scheduler.js';

const DEFAULT_HISTORY = 'bcs-history';

export function registerSchedule(
  program: Command,
  finish: (code: number) => void,
  webServer: (config: SuiteConfig | undefined) => ((signal: AbortSignal) => Promise<{ stop(): Promise<void> }>) | undefined,
): void {
  const cmd = program
    .command('schedule')
    .description("run scenarios on a cron schedule in one long-lived process, keeping every run's reports in a history folder")
    .argument('[paths...]', 'scenario files or folders (default: `paths` in bcs.config.yaml)');
  runFlags(cmd, { lastFailed: false, outputDir: false, json: false })
    .option('--cron <expr>', 'when to run: 5 fields (minute hour day month weekday), or 6 with seconds first')
    .option('--timezone <tz>', 'IANA time zone the cron expression is read in (default: the system\'s)')
    .option('--history <dir>', `where each run's reports go, one folder per run, plus index.json and index.html (default ${DEFAULT_HISTORY})`)
    .addOption(new Option('--webhook <url>', 'POST failing runs (and the next passing one) as JSON to this URL').env('BCS_WEBHOOK_URL'))
    .option('--max-runs <n>', 'stop after n runs and exit with the last run\'s exit code')
    .option('--keep <n>', 'keep the folders of only the newest n runs (their index entries stay)')
    .action(async (paths: string[], o) => {
      const config = await loadConfig(o.config);
      const cron = o.cron ?? config?.schedule?.cron;
      if (!cron) throw new UsageError('--cron is required (or `schedule: { cron }` in bcs.config.yaml), e.g. --cron "*/15 * * * *"');
      try {
        checkCron(cron, o.timezone);
      } catch (err) {
        throw new UsageError(`--cron '${cron}': ${(err as Error).message}`);
      }
      const history = resolve(o.history ?? config?.schedule?.history ?? DEFAULT_HISTORY);
      const suite = suiteOptions(paths, o, config);
      const exec = executionOptions(o, config);
      const names = reporterNames(o, config);
      // Every run's folder gets results.json: the history index and anyone looking later read it.
      const withJson = names.includes('json') ? names : [...names, 'json'];
      const maxRuns = count(o.maxRuns, '--max-runs');
      const keep = count(o.keep, '--keep');
      if (o.webhook) {
        try {
          new URL(o.webhook);
        } catch {
          throw new UsageError('--webhook must be an http:// or https:// URL');
        }
      }
      // Checked now (a URL, a key), not at the first run hours from now.
      reportToReporters(o, config, { outputDir: history, trigger: 'schedule', apiKey: exec.apiKey, say: () => {} });
      const schedule = startSchedule({
        cron,
        history,
        ...(o.webhook ? { webhook: String(o.webhook) } : {}),
        ...(maxRuns !== undefined ? { maxRuns } : {}),
        ...(keep !== undefined ? { keep } : {}),
        ...(o.timezone ? { timezone: o.timezone } : {}),
        runOnce: (outputDir, signal) =>
          runScenarios({
            ...suite,
            ...exec,
            outputDir,
            reporters: [
              ...buildReporters(withJson, outputDir, { list: true, workers: exec.workers }),
              // Scheduled runs are kept with the CI ones: one history per suite.
              ...reportToReporters(o, config, { outputDir, trigger: 'schedule', shard: suite.selection?.shard, apiKey: exec.apiKey, say: (m) => process.stderr.write(`bcs: ${m}\n`) }),
            ],
            signal,
            notice: (m) => process.stderr.write(`bcs: ${m}\n`),
            webServer: webServer(config),
          }),
        log: (line) => process.stdout.write(`bcs schedule: ${line}\n`),
        alert: (line) => process.stderr.write(`bcs schedule: ${line}\n`),
      });
      let stopping = false;
      const onSignal = () => {
        if (stopping) process.exit(EXIT.interrupted);
        stopping = true;
        process.stderr.write('\nbcs schedule: stopping (press Ctrl-C again to quit now)\n');
        void schedule.stop();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const code = await schedule.finished;
      finish(code ?? EXIT.passed);
    });
}

function count(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number of at least 1, got '${String(value)}'`);
  return n;
}
