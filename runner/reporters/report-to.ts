// `--report-to URL`: the run, each scenario's result and its artifacts, sent to a service's /runs as the run
// goes. Nothing here holds the run up: hooks only queue work, uploads run in the background a few at a time,
// and the run's end waits for what is still under way for a bounded time, then says what did not arrive.
// A failed upload is said, not a failed run: the scenarios' outcome is the run's, whatever the service did.
// Every request may be sent again after a lost answer (the client retries connection failures, timeouts and
// 5xx): the run's create and each result carry a key, an artifact is known by its name and a finish by what
// it says, so the service answers a retry with what the first made instead of keeping it twice.
import { randomUUID } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { join } from 'node:path';
import type { Requester, Run, RunCreateParams, RunFinishParams, RunResult } from '../../src/api/index.js';
import type { RunReporter } from './reporter.js';
import type { RunResult as LocalRun, ScenarioResult } from './results.js';
import { artifactFiles, resultKey, wireResult } from './report-wire.js';
import { TaskQueue } from './task-queue.js';

export interface ReportToOptions {
  /** A client of the service reported to (its base URL and API key). */
  client: Requester;
  /** Where the run wrote its artifacts: what results name is relative to it. */
  outputDir: string;
  /** What the run is, less when it started (the run's own start). */
  run: Omit<RunCreateParams, 'started_at' | 'key'>;
  /** Lines for people: where the run went, and what failed to. */
  say: (line: string) => void;
  /** How long the run's end waits for uploads still under way (default 60 s). */
  waitMs?: number;
  /** Uploads at once (default 2): enough to keep up, little beside the browsers. */
  concurrency?: number;
  /** How often a request is sent again after a connection failure, a timeout or a 5xx (default 3). */
  retries?: number;
}

const DEFAULT_WAIT_MS = 60_000;
const DEFAULT_RETRIES = 3;
/** The run's end, after the wait, retries included: not another minute. */
const FINISH_TIMEOUT_MS = 10_000;

export function reportToReporter(opts: ReportToOptions): RunReporter {
  const { client, say } = opts;
  const abort = new AbortController();
  const queue = new TaskQueue(opts.concurrency ?? 2);
  const maxRetries = opts.retries ?? DEFAULT_RETRIES;
  const failures: string[] = [];
  const sent = { results: 0, files: 0 };
  /** How many results each scenario has had in this run, for their keys. */
  const seen = new Map<string, number>();
  let created: Promise<Run | undefined> | undefined;

  const request = <T>(path: string, body: unknown) => client.request<T>('POST', path, { body, signal: abort.signal, maxRetries }).then((r) => r.data);
  const failed = (what: string, err: unknown) => {
    if (abort.signal.aborted) return;
    // The first one is said at once: a wrong URL or key shows while the run is still going.
    if (!failures.length) say(`--report-to: ${what} failed: ${(err as Error).message}`);
    failures.push(`${what} failed`);
  };

  /** The run as the service made it, once it has. */
  let made: Run | undefined;
  const start = () =>
    // One body, key and start time for every try: a create sent again is the same create.
    (created ??= request<Run>('/runs', { ...opts.run, started_at: new Date().toISOString(), key: randomUUID() }).then(
      (run) => (made = run),
      (err: unknown) => {
        failed('creating the run', err);
        return undefined;
      },
    ));

  const upload = async (run: Run, result: ScenarioResult, key: string) => {
    let stored: RunResult;
    try {
      stored = await request<RunResult>(`/runs/${run.id}/results`, { ...wireResult(result), key });
      sent.results++;
    } catch (err) {
      return failed(`the result of '${result.name}'`, err);
    }
    for (const file of artifactFiles(result)) {
      const query = new URLSearchParams({ kind: file.kind, name: file.path, attempt: String(file.attempt) });
      if (file.step_index !== undefined) query.set('step_index', String(file.step_index));
      try {
        // A file-backed blob: a video is streamed from disk, not read into memory first, and again on a retry.
        const body = await openAsBlob(join(opts.outputDir, file.path));
        await request(`/runs/${run.id}/results/${stored.id}/artifacts?${query}`, body);
        sent.files++;
      } catch (err) {
        failed(`${file.path} of '${result.name}'`, err);
      }
    }
  };

  /** Waits (bounded) for what is under way, finishes the run with `end` and says how it went. */
  const end = async (finish: RunFinishParams) => {
    const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
    // One bound for everything still under way, the run's creation included.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs)));
    const done = start().then(() => queue.idle());
    if ((await Promise.race([done, late])) === 'late') {
      abort.abort(new Error('the run ended'));
      failures.push(`${plural(queue.pending, 'scenario')} still uploading after ${waitMs / 1000} s`);
    }
    clearTimeout(timer);
    const run = made;
    if (run) {
      // Ended even when uploads were cut off: the run is over, whatever of it arrived. Retried within one bound.
      try {
        await client.request<Run>('POST', `/runs/${run.id}/finish`, { body: finish, timeoutMs: FINISH_TIMEOUT_MS, maxRetries, signal: AbortSignal.timeout(FINISH_TIMEOUT_MS) });
      } catch (err) {
        failures.push('finishing the run failed');
        if (failures.length === 1) say(`--report-to: finishing the run failed: ${(err as Error).message}`);
      }
    }
    if (failures.length) say(`--report-to: the service did not get all of the run: ${failures.slice(0, 3).join('; ')}${failures.length > 3 ? `; and ${failures.length - 3} more` : ''}`);
    else if (run) say(`--report-to: run ${run.id} stored: ${plural(sent.results, 'result')}, ${plural(sent.files, 'artifact')}`);
  };

  return {
    name: 'report-to',
    runStarted: () => void start(),
    scenarioFinished: (result) => {
      const run = start();
      const base = resultKey(result);
      const nth = (seen.get(base) ?? 0) + 1;
      seen.set(base, nth);
      const key = resultKey(result, nth);
      queue.add(async () => {
        const r = await run;
        if (r) await upload(r, result, key);
      });
    },
    runFinished: (local) => end(finishOf(local)),
    // A shard with nothing to run is still a shard of the run: it is kept, passed with nothing in it, so a
    // reader can tell it from one that never reported.
    runEmpty: () => end({ status: 'passed', summary: { total: 0, passed: 0, failed: 0, errored: 0, flaky: 0, timed_out: 0, skipped: 0 }, finished_at: new Date().toISOString() }),
  };
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** How the run ended, as the service keeps it. */
export function finishOf(local: LocalRun): RunFinishParams {
  const s = local.summary;
  const interrupted = local.scenarios.some((r) => r.interrupted) || local.skipped?.some((k) => k.reason === 'interrupted');
  const status = interrupted ? 'interrupted' : s.failed > 0 ? 'failed' : s.errored > 0 ? 'error' : 'passed';
  return { status, summary: { ...s }, finished_at: new Date().toISOString() };
}
