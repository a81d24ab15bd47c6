// `bcs merge-reports DIR...`: the reports an unsharded run would have written, made from the blobs
// (`--reporter blob`) its shards wrote on other machines: every scenario once in the order of the whole
// selection, the artifacts copied beside the reports, the summary and the exit code those of the whole run.
import type { Command } from 'commander';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { BLOB_FILE, BlobError, readBlob, type BlobReader } from '../reporters/blob-archive.js';
import { insideOutput } from '../reporters/blob.js';
import { MergeError, mergeShards, type Merged } from '../reporters/merge.js';
import { ReporterError, combine } from '../reporters/reporter.js';
import { replayRun } from '../reporters/replay.js';
import { removeArtifactDir } from '../suite/artifact-dir.js';
import { loadConfig } from '../suite/config.js';
import { EXIT, exitCodeFor } from '../suite/exit-codes.js';
import { writeLastRun } from '../suite/last-failed.js';
import { buildReporters } from './run-flags.js';
import { UsageError } from './usage-error.js';

type Finish = (code: number) => void;

const MERGE_REPORTERS = ['list', 'json', 'junit', 'html'];
const DEFAULT_OUTPUT_DIR = 'bcs-results';
/** Folders a blob search never enters. */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);

const notice = (message: string) => process.stderr.write(`bcs: ${message}\n`);

export function registerMergeReports(program: Command, finish: Finish): void {
  program
    .command('merge-reports')
    .description('make the reports of a sharded run from the blobs its shards wrote (`bcs run --shard i/n --reporter blob`)')
    .argument('<paths...>', 'folders holding the shards\' bcs-blob-*.zip (subfolders searched too), or the blob files')
    .option('--reporter <names>', `comma-separated reporters: ${MERGE_REPORTERS.join(', ')} (default list)`)
    .option('--output-dir <dir>', `where the reports and the artifacts go (default: output_dir of the config, else ${DEFAULT_OUTPUT_DIR})`)
    .option('--config <file>', 'suite config for reporter and output_dir (default: bcs.config.yaml in the working directory, when present)')
    .option('--json', 'print the merged results as JSON on stdout instead of the step list')
    .action(async (paths: string[], o) => {
      const config = await loadConfig(o.config);
      const names = reporterNames(o.reporter, config?.reporter);
      const outputDir = resolve(o.outputDir ?? config?.outputDir ?? DEFAULT_OUTPUT_DIR);
      const blobs = await openBlobs(await findBlobs(paths));
      try {
        let merged: Merged<BlobReader>;
        try {
          merged = mergeShards(blobs);
        } catch (err) {
          if (err instanceof MergeError) throw new UsageError(`cannot merge: ${err.message}`);
          throw err;
        }
        for (const n of merged.notes) notice(n);
        const { run } = merged;
        const m = blobs[0]!.manifest;
        const runName = m.run ? `run ${m.run.id}` : 'a run without a run id';
        notice(`merging ${merged.shards} shard${merged.shards === 1 ? '' : 's'} of ${runName} (bcs ${m.bcs_version}): ${run ? `${run.scenarios.length} scenario result${run.scenarios.length === 1 ? '' : 's'}` : 'nothing ran'}`);
        if (!run) {
          notice(merged.nothing ?? 'nothing to report');
          return finish(EXIT.passed);
        }
        await placeArtifacts(merged, outputDir);
        const reporters = buildReporters(o.json ? names.filter((n) => n !== 'list') : names, outputDir, { list: true, workers: 1 });
        const target = merged.target ?? { kind: run.target.kind, base_url: run.target.base_url };
        let code = exitCodeFor(run.scenarios, (run.skipped ?? []).some((s) => s.reason === 'interrupted'));
        try {
          await replayRun(combine(reporters), run, target, merged.plans, merged.planOf, { retries: merged.info.retries ?? 0 });
        } catch (err) {
          if (!(err instanceof ReporterError)) throw err;
          notice(`writing reports failed: ${err.message}`);
          if (code !== EXIT.interrupted) code = EXIT.infrastructure;
        }
        const written = reporters.flatMap((r) => r.files ?? []);
        if (written.length && !reporters.some((r) => r.name === 'list')) notice(`reports: ${written.map((f) => relative(process.cwd(), f)).join(', ')}`);
        // As the unsharded run would have: `bcs run --last-failed --output-dir <here>` re-runs what failed,
        // by the paths the shards ran, taken from where the merge runs (the same checkout).
        const failedHere = run.scenarios.filter((s) => !s.hook).map((s) => ({ ...s, file: merged.pathOf.get(s) ?? s.file }));
        await writeLastRun(outputDir, failedHere).catch((err: Error) => notice(`could not record the run for --last-failed: ${err.message}`));
        if (o.json) process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
        finish(code);
      } finally {
        for (const b of blobs) b.close();
      }
    });
}

/**
 * The reporters from `--reporter`, else the config's: the same config the shards ran with usually names
 * `blob` too (or only), which a merge does not write, so there it is passed over rather than refused.
 */
function reporterNames(value: unknown, configured: string[] | undefined): string[] {
  const fromConfig = value === undefined ? configured?.filter((n) => n !== 'blob') : undefined;
  const names = value !== undefined ? String(value).split(',').map((s) => s.trim()).filter(Boolean) : fromConfig?.length ? fromConfig : ['list'];
  const unknown = names.find((n) => !MERGE_REPORTERS.includes(n));
  if (unknown !== undefined) throw new UsageError(`unknown reporter '${unknown}' for merge-reports${value === undefined ? ' (from the config)' : ''}; expected ${MERGE_REPORTERS.join(', ')}`);
  return names;
}

/** The blob files among `paths`: files as given, folders searched; one file named twice counts once. */
async function findBlobs(paths: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new UsageError(`no such file or folder: ${path}`);
    if (info.isDirectory()) found.push(...(await walk(path)));
    else found.push(path);
  }
  const seen = new Set<string>();
  const unique: string[] = [];
  for (const file of found) {
    const real = await realpath(file);
    if (!seen.has(real)) unique.push(file);
    seen.add(real);
  }
  if (!unique.length) throw new UsageError(`no blob reports (bcs-blob-*.zip) in ${paths.join(', ')}; each shard writes one with bcs run --shard i/n --reporter blob`);
  return unique;
}

async function walk(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) files.push(...(await walk(path)));
    else if (entry.isFile() && BLOB_FILE.test(entry.name)) files.push(path);
  }
  return files;
}

async function openBlobs(files: string[]): Promise<BlobReader[]> {
  const opened: BlobReader[] = [];
  try {
    for (const file of files) opened.push(await readBlob(file));
    return opened;
  } catch (err) {
    for (const b of opened) b.close();
    if (err instanceof BlobError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * Copies each merged scenario's files out of its shard's blob. A folder an earlier run or merge left there
 * is emptied first, as a run empties it (only folders bcs made: they hold its marker).
 */
async function placeArtifacts(merged: Merged<BlobReader>, outputDir: string): Promise<void> {
  for (const dir of merged.artifactDirs) {
    if (!insideOutput(dir)) continue;
    await removeArtifactDir(join(outputDir, dir));
  }
  for (const f of merged.files) {
    if (!insideOutput(f.to)) continue;
    await f.from.extract(f.path, join(outputDir, f.to)).catch((err: Error) => {
      throw new Error(`could not copy ${f.path} out of ${basename(f.from.file)}: ${err.message}`);
    });
  }
}
