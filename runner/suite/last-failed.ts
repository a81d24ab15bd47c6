// `--last-failed`: every run leaves `<output-dir>/.last-run.json` naming the scenarios that did not pass,
// and the next run with --last-failed in the same output dir runs only those.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Plan } from '../../src/scenario/index.js';
import type { ScenarioResult } from '../reporters/results.js';
import { unrepeatedName } from './repeat.js';

export const LAST_RUN_FILE = '.last-run.json';

export interface LastRun {
  version: 1;
  finished_at: string;
  /** Scenarios that failed, errored or were interrupted; the file is absolute, so a run from another cwd agrees. */
  failed: { file: string; name: string }[];
}

export async function readLastRun(outputDir: string): Promise<LastRun | undefined> {
  let text: string;
  try {
    text = await readFile(join(outputDir, LAST_RUN_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const data = JSON.parse(text) as LastRun;
    return Array.isArray(data.failed) ? data : undefined;
  } catch {
    // A torn or hand-edited file is no reason to fail the run: it then runs everything.
    return undefined;
  }
}

/**
 * Records this run's failures. Scenarios that were not started (--bail, Ctrl-C) are not failures and are
 * not listed: a later --last-failed re-runs what is known to fail.
 */
export async function writeLastRun(outputDir: string, results: ScenarioResult[], cwd = process.cwd()): Promise<void> {
  const data: LastRun = {
    version: 1,
    finished_at: new Date().toISOString(),
    // Interrupted counts even when its status says passed (interrupted in setup, every main step skipped).
    // A repetition (--repeat-each) is recorded as the scenario it repeats: the next run finds that one.
    failed: dedupe(results.filter((r) => r.status !== 'passed' || r.interrupted).map((r) => ({ file: resolve(cwd, r.file), name: unrepeatedName(r.name, r.repeat) }))),
  };
  await mkdir(outputDir, { recursive: true });
  await writeFile(join(outputDir, LAST_RUN_FILE), `${JSON.stringify(data, null, 2)}\n`);
}

function dedupe(list: LastRun['failed']): LastRun['failed'] {
  const seen = new Set<string>();
  return list.filter((f) => !seen.has(`${f.file}\0${f.name}`) && Boolean(seen.add(`${f.file}\0${f.name}`)));
}

/** Accepts the plans of the scenarios the last run recorded as failed. */
export function failedIn(last: LastRun, cwd = process.cwd()): (plan: Plan) => boolean {
  const keys = new Set(last.failed.map((f) => `${f.file}\0${f.name}`));
  return (plan) => keys.has(`${resolve(cwd, plan.scenario.file)}\0${plan.scenario.name}`);
}
