// `bcs schedule`: one long-lived process that runs the suite on a cron schedule (croner). Runs never
// overlap: a tick that comes while a run is going is skipped and logged. Each run is recorded in the
// history folder; a failing one is logged loudly and, with a webhook, posted.
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import type { RunOutcome } from '../../suite/run.js';
import type { HistoryEntry } from './history-entry.js';
import { entryFor, newRunDir, recordRun } from './history.js';
import { postWebhook, redactUrl, webhookPayload } from './webhook.js';

/** croner, loaded by the schedule command rather than by every `bcs` command. */
const croner = () => createRequire(import.meta.url)('croner') as typeof import('croner');

export interface ScheduleOptions {
  cron: string;
  history: string;
  webhook?: string;
  /** Stop after this many runs (skipped ticks do not count); the process then exits with the last run's code. */
  maxRuns?: number;
  /** Keep the folders of only the newest `keep` runs. */
  keep?: number;
  timezone?: string;
  /** Runs the suite once with its reports in `outputDir`; `signal` aborts it (stop). */
  runOnce(outputDir: string, signal: AbortSignal): Promise<RunOutcome>;
  /** Progress lines (stdout). */
  log(line: string): void;
  /** Failures (stderr). */
  alert(line: string): void;
}

export interface Schedule {
  /** Stops ticking, interrupts the run going on (its partial report is kept) and waits for it. */
  stop(): Promise<void>;
  /** Resolves when the schedule ended: with the last run's exit code after --max-runs, else undefined. */
  finished: Promise<number | undefined>;
}

/** Throws for a pattern croner does not accept (5 fields, or 6 with seconds first). */
export function checkCron(pattern: string, timezone?: string): Date | null {
  const { Cron } = croner();
  const probe = new Cron(pattern, { paused: true, ...(timezone ? { timezone } : {}) });
  const next = probe.nextRun();
  probe.stop();
  return next;
}

export function startSchedule(opts: ScheduleOptions): Schedule {
  let current: { controller: AbortController; done: Promise<void> } | undefined;
  let completed = 0;
  let stopped = false;
  let finish!: (code: number | undefined) => void;
  const finished = new Promise<number | undefined>((resolve) => (finish = resolve));

  const tick = async () => {
    if (stopped) return;
    const controller = new AbortController();
    const done = runAndRecord(opts, controller.signal).then((entry) => {
      completed++;
      const next = job.nextRun();
      if (opts.maxRuns !== undefined && completed >= opts.maxRuns) {
        stopped = true;
        job.stop();
        finish(entry.exit_code);
      } else if (!stopped && next) {
        opts.log(`next run at ${next.toISOString()}`);
      }
    });
    current = { controller, done };
    try {
      await done;
    } finally {
      current = undefined;
    }
  };

  const { Cron } = croner();
  const job = new Cron(
    opts.cron,
    {
      ...(opts.timezone ? { timezone: opts.timezone } : {}),
      ...(opts.maxRuns !== undefined ? { maxRuns: opts.maxRuns } : {}),
      protect: () => opts.log(`tick at ${new Date().toISOString()} skipped: the previous run is still going`),
      catch: (err: unknown) => opts.alert(`the scheduled run crashed: ${(err as Error)?.stack ?? String(err)}`),
    },
    tick,
  );
  const first = job.nextRun();
  opts.log(`schedule '${opts.cron}': first run at ${first?.toISOString() ?? 'never'}; history in ${opts.history}${opts.webhook ? `; failures posted to ${redactUrl(opts.webhook)}` : ''}`);

  return {
    finished,
    async stop() {
      stopped = true;
      job.stop();
      const running = current;
      if (running) {
        opts.log('stopping: interrupting the current run (its partial report is kept)');
        running.controller.abort(new Error('interrupted'));
        await running.done.catch(() => {});
      }
      finish(undefined);
    },
  };
}

async function runAndRecord(opts: ScheduleOptions, signal: AbortSignal): Promise<HistoryEntry> {
  const startedAt = new Date();
  const { id, dir } = await newRunDir(opts.history, startedAt);
  opts.log(`run ${id} started`);
  let outcome: RunOutcome;
  try {
    outcome = await opts.runOnce(dir, signal);
  } catch (err) {
    outcome = { kind: 'infrastructure', exitCode: 3, message: (err as Error).message };
  }
  const entry = entryFor(id, startedAt, outcome);
  const index = await recordRun(opts.history, entry, opts.keep);
  const previous = index.runs.at(-2);
  const where = relative(process.cwd(), join(dir, 'results.json'));
  const s = entry.summary;
  if (entry.status === 'passed') {
    opts.log(`run ${id} passed: ${s.passed}/${s.total} scenarios${s.flaky ? ` (${s.flaky} flaky)` : ''} in ${(entry.duration_ms / 1000).toFixed(1)} s`);
    if (opts.webhook && previous && failing(previous)) await notify(opts, webhookPayload('run_recovered', entry));
  } else if (entry.status === 'interrupted') {
    opts.log(`run ${id} interrupted; partial report in ${where}`);
  } else {
    loudly(opts.alert, entry, where);
    if (opts.webhook) await notify(opts, webhookPayload('run_failed', entry));
  }
  return entry;
}

function failing(entry: HistoryEntry): boolean {
  return entry.status !== 'passed' && entry.status !== 'interrupted';
}

async function notify(opts: ScheduleOptions, payload: ReturnType<typeof webhookPayload>): Promise<void> {
  const problem = await postWebhook(opts.webhook!, payload);
  if (problem) opts.alert(`${problem} (${redactUrl(opts.webhook!)})`);
  else opts.log(`posted '${payload.event}' to ${redactUrl(opts.webhook!)}`);
}

/** A failing run in a long log must stand out: a banner, every failure on its own line, where the report is. */
function loudly(alert: (line: string) => void, entry: HistoryEntry, where: string): void {
  const s = entry.summary;
  alert('='.repeat(72));
  alert(`RUN FAILED: ${entry.id} — ${entry.status} (exit ${entry.exit_code}); ${s.passed}/${s.total} passed, ${s.failed} failed, ${s.errored} errored`);
  for (const f of entry.failures) alert(`  ✗ ${[f.scenario, f.message.split('\n')[0]].filter(Boolean).join(': ')}${f.location ? `  at ${f.location}` : ''}`);
  alert(`  report: ${where}`);
  alert('='.repeat(72));
}
