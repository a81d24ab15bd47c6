// A schedule's history folder: one folder per run (`<history>/<timestamp>/`, the run's reports and
// artifacts), and `index.json` + `index.html` listing every run with its outcome, newest last.
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT } from '../../suite/exit-codes.js';
import type { RunOutcome } from '../../suite/run.js';
import type { Failure, HistoryEntry, HistoryIndex, RunStatus } from './history-entry.js';
import { indexHtml } from './index-html.js';

const MAX_FAILURES = 20;
/** What the reporters write into a run's folder, in the order the index links them. */
const REPORT_FILES = ['report.html', 'results.json', 'junit.xml'];

/** A folder name for a run started at `date`, unique within the history folder. */
export async function newRunDir(history: string, date: Date): Promise<{ id: string; dir: string }> {
  const base = date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    const dir = join(history, id);
    if (!(await stat(dir).catch(() => undefined))) {
      await mkdir(dir, { recursive: true });
      return { id, dir };
    }
  }
}

export function statusOf(exitCode: number): RunStatus {
  switch (exitCode) {
    case EXIT.passed: return 'passed';
    case EXIT.failed: return 'failed';
    case EXIT.timeout: return 'timeout';
    case EXIT.invalid: return 'invalid';
    case EXIT.interrupted: return 'interrupted';
    default: return 'error';
  }
}

export function entryFor(id: string, startedAt: Date, outcome: RunOutcome): HistoryEntry {
  const base = { id, started_at: startedAt.toISOString(), duration_ms: Date.now() - startedAt.getTime(), status: statusOf(outcome.exitCode), exit_code: outcome.exitCode };
  const zero = { total: 0, passed: 0, failed: 0, errored: 0, flaky: 0, skipped: 0 };
  switch (outcome.kind) {
    case 'ran': {
      const { total, passed, failed, errored, flaky, skipped } = outcome.result.summary;
      const failures = outcome.result.scenarios.filter((s) => s.status !== 'passed').map((s): Failure => {
        const step = s.steps.find((st) => st.status === 'failed' && !st.continued);
        return {
          scenario: s.name,
          file: s.file,
          kind: step?.error?.kind ?? (s.interrupted ? 'interrupted' : s.status),
          message: step?.error?.message ?? (s.timed_out ? 'timed out' : s.status),
          ...(step?.error?.location ? { location: step.error.location } : {}),
        };
      });
      return { ...base, summary: { total, passed, failed, errored, flaky, skipped }, failures: failures.slice(0, MAX_FAILURES) };
    }
    case 'invalid': {
      const failures = outcome.diagnostics.map((d): Failure => ({ scenario: '', file: d.file, kind: 'invalid', message: d.message, location: `${d.file}:${d.line}:${d.col}` }));
      if (outcome.message) failures.push({ scenario: '', file: '', kind: 'invalid', message: outcome.message });
      return { ...base, summary: zero, failures: failures.slice(0, MAX_FAILURES) };
    }
    case 'infrastructure':
      return { ...base, summary: zero, failures: [{ scenario: '', file: '', kind: 'infrastructure', message: outcome.message }] };
    case 'nothing':
      return { ...base, summary: zero, failures: [] };
  }
}

export async function readIndex(history: string): Promise<HistoryIndex> {
  try {
    const data = JSON.parse(await readFile(join(history, 'index.json'), 'utf8')) as HistoryIndex;
    if (Array.isArray(data.runs)) return data;
  } catch {
    // no index yet (or an unreadable one): start a new one rather than refuse to run
  }
  return { version: 1, runs: [] };
}

/**
 * Adds `entry` to the index and rewrites index.json and index.html. With `keep`, the folders of all but
 * the newest `keep` runs are deleted (their entries stay, marked pruned).
 */
export async function recordRun(history: string, entry: HistoryEntry, keep?: number): Promise<HistoryIndex> {
  const present = new Set(await readdir(join(history, entry.id)).catch(() => [] as string[]));
  const reports = REPORT_FILES.filter((f) => present.has(f));
  if (reports.length) entry.reports = reports;
  const index = await readIndex(history);
  index.runs.push(entry);
  if (keep !== undefined && keep > 0) {
    const live = index.runs.filter((r) => !r.pruned);
    for (const old of live.slice(0, Math.max(0, live.length - keep))) {
      // The id comes from a file on disk: only ever a plain folder name inside the history folder.
      if (/^[\w-][\w.-]*$/.test(old.id) && !old.id.includes('..')) await rm(join(history, old.id), { recursive: true, force: true });
      old.pruned = true;
    }
  }
  await writeAtomically(join(history, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  await writeAtomically(join(history, 'index.html'), indexHtml(index));
  return index;
}

/** Written whole, then renamed: a dashboard polling the file never reads half of it. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, text);
  await rename(partial, file);
}
