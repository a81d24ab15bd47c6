// `--reporter blob`: <output-dir>/bcs-blob-<i>-of-<n>.zip, everything `bcs merge-reports` needs to make
// the report of the whole run from its shards: the results and plans, the artifact files, and what
// identifies the run and the shard. A shard with nothing to run writes one too, so a merge can tell it
// from a shard that was lost.
import { lstat, readdir } from 'node:fs/promises';
import { isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import type { Plan } from '../../src/scenario/plan.js';
import { blobFileName, fingerprintOf, writeBlob, type BlobManifest, type BlobRef } from './blob-archive.js';
import type { RunInfo, RunReporter, RunTargetInfo, ScenarioRef } from './reporter.js';
import type { RunResult, ScenarioResult } from './results.js';
import { runIdentity } from './run-id.js';

export interface BlobOptions {
  /** `--run-id`; else BCS_RUN_ID or the CI's run id from `env`. */
  runId?: string;
  shard?: { index: number; total: number };
  env?: NodeJS.ProcessEnv;
  /** What scenario files are relative to, so machines that check out elsewhere still agree. */
  cwd?: string;
}

export function blobReporter(outputDir: string, opts: BlobOptions = {}): RunReporter & { file: string } {
  const shard = opts.shard ?? { index: 1, total: 1 };
  const file = join(outputDir, blobFileName(shard));
  let plans: Plan[] = [];
  let target: RunTargetInfo | undefined;
  let info: RunInfo = {};
  const write = async (result: RunResult | undefined, empty?: string) => {
    const cwd = opts.cwd ?? process.cwd();
    const ref = (r: ScenarioRef): BlobRef => ({ ...r, path: relative(cwd, resolve(cwd, r.file)).split(sep).join('/') });
    const suite = {
      selection: (info.suite?.selection ?? []).map(ref),
      before: (info.suite?.before ?? []).map(ref),
      after: (info.suite?.after ?? []).map(ref),
    };
    const run = runIdentity(opts.runId, opts.env ?? process.env);
    const manifest: BlobManifest = {
      format: 'bcs-blob',
      format_version: 1,
      bcs_version: pkg.version,
      ...(run ? { run } : {}),
      shard,
      fingerprint: fingerprintOf(suite),
      suite,
      plans,
      workers: info.workers ?? 1,
      retries: info.retries ?? 0,
      ...(target ? { target } : {}),
      ...(result ? { result } : {}),
      ...(empty !== undefined ? { empty } : {}),
      files: result ? await artifactFiles(result, outputDir) : [],
    };
    await writeBlob(file, manifest, outputDir);
  };
  return {
    name: 'blob',
    file,
    files: [file],
    runStarted(t, p, i) {
      target = t;
      plans = p;
      info = i ?? {};
    },
    runFinished: (result) => write(result),
    runEmpty(i, reason) {
      info = i;
      return write(undefined, reason);
    },
  };
}

/** Every scenario result of the run, earlier attempts included. */
export function attemptsOf(s: ScenarioResult): ScenarioResult[] {
  return [s, ...(s.previous_attempts ?? []).flatMap(attemptsOf)];
}

/** The paths a result names (artifacts, video and markers, trace), relative to the output directory. */
export function referencedPaths(s: ScenarioResult): string[] {
  return attemptsOf(s).flatMap((a) => [
    ...a.steps.flatMap((st) => st.artifacts.map((x) => x.path)),
    ...(a.replay ? [a.replay.video, ...(a.replay.vtt ? [a.replay.vtt] : [])] : []),
    ...(a.trace ? [a.trace] : []),
  ]);
}

/** A path that stays inside the output directory; others (absolute, `..`) are not the run's to carry. */
export function insideOutput(path: string): boolean {
  const norm = posix.normalize(path);
  return path !== '' && !isAbsolute(path) && !posix.isAbsolute(norm) && norm !== '.' && norm !== '..' && !norm.startsWith('../') && !norm.includes('\\');
}

/**
 * What the blob carries: every file in each scenario's artifact folder (what a step wrote that no result
 * names, such as the marker that lets a re-run empty the folder, goes too) and every file a result names.
 */
async function artifactFiles(run: RunResult, outputDir: string): Promise<string[]> {
  const found = new Set<string>();
  for (const s of run.scenarios) {
    if (insideOutput(s.artifact_dir)) for (const f of await filesUnder(outputDir, posix.normalize(s.artifact_dir))) found.add(f);
    for (const p of referencedPaths(s)) {
      if (!insideOutput(p) || found.has(posix.normalize(p))) continue;
      if ((await lstat(join(outputDir, p)).catch(() => undefined))?.isFile()) found.add(posix.normalize(p));
    }
  }
  return [...found].sort();
}

/** Regular files under `dir` (relative to `root`), as `/`-separated paths relative to `root`; links are not followed. */
async function filesUnder(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...(await filesUnder(root, path)));
    else if (e.isFile()) out.push(path);
  }
  return out;
}
