// One attempt of a check: the runner process started (check-launcher.ts), bounded by the check's timeout, and
// what it reported read back from this service's own /runs: the run it made (found by a tag only this attempt
// carries), how it ended, and where its failure can be looked at.
import { spawn } from 'node:child_process';
import type { ScenarioHistory } from '../../../api/types.js';
import type { AppKeys } from '../apps/index.js';
import type { Runs } from '../runs/index.js';
import { newId } from '../../ids.js';
import type { CheckRow, SuiteRow } from '../../store/monitors-repo.js';
import type { AlertFailure, AlertKeptSession } from './alert.js';
import type { CheckLauncher } from './check-launcher.js';

/** What an attempt leaves for the policy, the recent list and the alert. */
export interface CheckAttempt {
  status: 'passed' | 'failed' | 'error' | 'timed_out';
  run_id: string | null;
  started_at: string;
  duration_ms: number;
  /** One line on why it did not pass. */
  message?: string;
  failure?: AlertFailure;
  kept_session?: AlertKeptSession;
}

export interface CheckRunDeps {
  launcher: CheckLauncher;
  keys: AppKeys;
  runs: Runs;
  /** Where the check's process reaches this service (loopback). */
  baseUrl: () => string;
  /** The origin links in alerts start with (the public URL, else the base URL). */
  origin: () => string;
  now: () => Date;
  /** Milliseconds on a monotonic clock, for durations. */
  monotonic?: () => number;
}

/** How long a check's process gets after SIGTERM at its timeout, to finish its report, before SIGKILL. */
const KILL_GRACE_MS = 5000;
/** The last output kept for a run that reported nothing. */
const OUTPUT_TAIL = 4000;
const DEFAULT_TIMEOUT_S = 300;

export interface AttemptOf {
  check: CheckRow;
  suite: SuiteRow;
  /** The deployed folder the check runs from. */
  bundleDir: string;
  trigger: 'schedule' | 'manual';
  signal?: AbortSignal;
}

/** Never throws: whatever stops the attempt (a secret that cannot be read, a process that cannot start) is its error. */
export async function runCheckAttempt(deps: CheckRunDeps, of: AttemptOf, secrets: () => Promise<Record<string, string>>): Promise<CheckAttempt> {
  const { check, suite, bundleDir, trigger, signal } = of;
  const attempt = check.attempt;
  const token = newId(16);
  const started = deps.now();
  const t0 = (deps.monotonic ?? performance.now.bind(performance))();
  const key = deps.keys.issue(check.project_id, `monitor:${check.id}`);
  let cmd: Awaited<ReturnType<CheckLauncher['prepare']>> | undefined;
  try {
    const env = await secrets();
    cmd = await deps.launcher.prepare({
      bundleDir,
      file: check.spec.file,
      flags: [
        '--report-to', deps.baseUrl(),
        '--suite', suite.name,
        '--workers', '1',
        '--retries', '0',
        '--reporter', 'list',
        // What the person on call opens first: the failing run's trace, kept only when it failed.
        '--trace', 'retain-on-failure',
        ...(keepsBrowser(check, started) ? ['--keep-on-failure', `${check.spec.keep_on_failure_seconds}s`] : []),
      ],
      env: {
        ...env,
        BCS_BASE_URL: deps.baseUrl(),
        BCS_API_KEY: key.key,
        BCS_REPORT_TRIGGER: trigger,
        BCS_REPORT_TAGS: [`check:${check.name}`, `check-attempt:${token}`, ...(check.spec.tags ?? [])].join(','),
        BCS_MONITOR_CHECK: check.name,
        BCS_MONITOR_ATTEMPT: String(attempt),
      },
    });
    const timeoutMs = (check.spec.timeout_seconds ?? DEFAULT_TIMEOUT_S) * 1000;
    const exit = await runProcess(cmd, timeoutMs, signal);
    const duration = Math.round((deps.monotonic ?? performance.now.bind(performance))() - t0);
    const base = { started_at: started.toISOString(), duration_ms: duration };
    const run = await reportedRun(deps.runs, check, token);
    if (exit.timedOut) return { ...base, status: 'timed_out', run_id: run?.id ?? null, message: `the check did not finish within ${timeoutMs / 1000} s` };
    if (!run) return { ...base, status: 'error', run_id: null, message: `the check reported no run (exit ${exit.code ?? exit.signal}): ${lastLine(exit.output)}` };
    if (exit.code === 0 && run.status === 'passed') return { ...base, status: 'passed', run_id: run.id };
    const found = await failureOf(deps, check, run.id, suite.name);
    const status = run.status === 'failed' ? 'failed' : 'error';
    return { ...base, status, run_id: run.id, message: found.message ?? `the run ended ${run.status} (exit ${exit.code ?? exit.signal})`, ...found.links };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { status: 'error', run_id: null, started_at: started.toISOString(), duration_ms: 0, message };
  } finally {
    key.revoke();
    await cmd?.cleanup().catch(() => {});
  }
}

/**
 * Whether this attempt keeps its browser if it fails: when the check asks, on its last attempt, and while no
 * browser an earlier failure kept is alive: a check failing every minute must not pile up browsers.
 */
function keepsBrowser(check: CheckRow, now: Date): boolean {
  if (!check.spec.keep_on_failure_seconds) return false;
  // Only the last attempt: a failure retried after may yet pass.
  if (check.attempt <= (check.spec.retries?.count ?? 0)) return false;
  return !(check.health.kept && Date.parse(check.health.kept.until) > now.getTime());
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  output: string;
}

function runProcess(cmd: { file: string; args: string[]; env: Record<string, string>; cwd: string }, timeoutMs: number, signal?: AbortSignal): Promise<Exit> {
  return new Promise((resolve) => {
    // Its own process group: a timeout ends the runner and whatever it started.
    const child = spawn(cmd.file, cmd.args, { env: cmd.env, cwd: cmd.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const kill = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        /* already gone */
      }
    };
    let hard: NodeJS.Timeout | undefined;
    const stop = () => {
      kill('SIGTERM');
      hard = setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    signal?.addEventListener('abort', stop, { once: true });
    child.on('error', (err) => {
      output += `\n${err.message}`;
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      clearTimeout(hard);
      signal?.removeEventListener('abort', stop);
      resolve({ code, signal: sig, timedOut, output });
    });
  });
}

async function reportedRun(runs: Runs, check: CheckRow, token: string) {
  const { rows } = await runs.list({ projectId: check.project_id, tag: `check-attempt:${token}`, offset: 0, limit: 1 });
  return rows[0];
}

/** The first scenario of the run that did not pass, as its history tells it (step, screenshot, trace, replay). */
async function failureOf(deps: CheckRunDeps, check: CheckRow, runId: string, suite: string): Promise<{ message?: string; links: Pick<CheckAttempt, 'failure' | 'kept_session'> }> {
  const run = await deps.runs.find(check.project_id, runId);
  const results = await deps.runs.results(run, deps.origin());
  const failing = results.find((r) => r.status !== 'passed');
  if (!failing) return { links: {} };
  const history: ScenarioHistory = await deps.runs.history(check.project_id, { suite, name: failing.name, file: failing.file, limit: 1 }, deps.origin());
  const last = history.last_failure?.run_id === runId ? history.last_failure : null;
  const message = last?.message ?? failing.steps.find((s) => s.status === 'failed')?.error?.message ?? undefined;
  const failure = {
    message: firstLine(message ?? `scenario '${failing.name}' ${failing.status}`),
    ...(last?.step ? { step: last.step.name } : {}),
    ...(last?.screenshot_url ? { screenshot_url: last.screenshot_url } : {}),
    ...(last?.trace_url ? { trace_url: last.trace_url } : {}),
    ...(last?.replay ? { replay_url: last.replay.offset_ms === null ? last.replay.video_url : `${last.replay.video_url}#t=${(last.replay.offset_ms / 1000).toFixed(1)}` } : {}),
  };
  const kept = (failing as { kept_session?: AlertKeptSession }).kept_session;
  return { message: failure.message, links: { failure, ...(kept ? { kept_session: kept } : {}) } };
}

const firstLine = (s: string) => s.split('\n')[0]!.slice(0, 500);
/** What a crashed process said last: the error line Node prints before its stack, else the last line. */
function lastLine(s: string): string {
  const lines = s.trim().split('\n').map((l) => l.trim()).filter((l) => l && !/^Node\.js v\d/.test(l) && !l.startsWith('at '));
  return firstLine(lines.findLast((l) => /^(\w*Error|bcs:)/.test(l)) ?? lines.at(-1) ?? 'no output');
}
