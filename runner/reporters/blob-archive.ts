// The blob archive `--reporter blob` writes and `bcs merge-reports` reads: one zip per shard holding a
// manifest (what identifies the run and the shard, the plans, the results) and the shard's artifact files
// under `files/`, each at its path relative to the output directory.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Entry, ZipFile as ZipReader } from 'yauzl';
import type { Plan } from '../../src/scenario/plan.js';
import type { RunTargetInfo, ScenarioRef } from './reporter.js';
import type { RunResult } from './results.js';
import type { RunIdentity } from './run-id.js';

export const BLOB_FORMAT = 'bcs-blob';
export const BLOB_FORMAT_VERSION = 1;
const MANIFEST = 'bcs-blob.json';
const FILES = 'files/';

/** `bcs-blob-2-of-3.zip`: a shard's name says which it is, so the blobs of a CI matrix can share a folder. */
export const BLOB_FILE = /^bcs-blob-\d+-of-\d+\.zip$/;

export function blobFileName(shard: { index: number; total: number }): string {
  return `bcs-blob-${shard.index}-of-${shard.total}.zip`;
}

/** A scenario of the suite, with its file as a path relative to the working directory (`/`-separated). */
export interface BlobRef extends ScenarioRef {
  path: string;
}

export interface BlobManifest {
  format: typeof BLOB_FORMAT;
  format_version: number;
  bcs_version: string;
  /** Absent when neither `--run-id`, BCS_RUN_ID nor a CI run id was there. */
  run?: RunIdentity;
  shard: { index: number; total: number };
  /** The selection and hooks by path and name, hashed: shards of one run agree on it. */
  fingerprint: string;
  suite: { selection: BlobRef[]; before: BlobRef[]; after: BlobRef[] };
  /** The plans the shard ran (its `before` hooks, its scenarios, its `after` hooks), as reporters got them. */
  plans: Plan[];
  workers: number;
  retries: number;
  target?: RunTargetInfo;
  /** Absent when the shard had nothing to run (`empty` says why). */
  result?: RunResult;
  empty?: string;
  /** The artifact files stored, relative to the shard's output directory. */
  files: string[];
}

export function fingerprintOf(suite: BlobManifest['suite']): string {
  const refs = (list: BlobRef[]) => list.map((r) => [r.path, r.name]);
  const text = JSON.stringify({ selection: refs(suite.selection), before: refs(suite.before), after: refs(suite.after) });
  return createHash('sha256').update(text).digest('hex');
}

// Already compressed: deflating them again costs time and saves nothing.
const STORED = new Set(['.png', '.jpg', '.jpeg', '.webp', '.mp4', '.webm', '.zip', '.gz']);

/** Writes the archive whole, then renames it into place: CI never uploads half a blob. */
export async function writeBlob(file: string, manifest: BlobManifest, outputDir: string): Promise<void> {
  const { ZipFile } = createRequire(import.meta.url)('yazl') as typeof import('yazl');
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(`${JSON.stringify(manifest)}\n`), MANIFEST);
  for (const path of manifest.files) zip.addFile(join(outputDir, path), FILES + path, { compress: !STORED.has(extname(path).toLowerCase()) });
  zip.end();
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  try {
    await pipeline(zip.outputStream, createWriteStream(partial));
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

/** A blob that cannot be read or is no blob: the message names the file. */
export class BlobError extends Error {
  override name = 'BlobError';
}

export interface BlobReader {
  file: string;
  manifest: BlobManifest;
  /** Whether the archive holds the artifact at `path` (relative to the shard's output directory). */
  has(path: string): boolean;
  /** Writes the artifact at `path` to `dest`. */
  extract(path: string, dest: string): Promise<void>;
  close(): void;
}

/** Opens a blob and checks its manifest; the error says what is wrong with which file. */
export async function readBlob(file: string): Promise<BlobReader> {
  const yauzl = createRequire(import.meta.url)('yauzl') as typeof import('yauzl');
  let zip: ZipReader;
  try {
    // decodeStrings makes yauzl refuse absolute names and `..`: an entry can never land outside the output dir.
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true });
  } catch (err) {
    throw new BlobError(`${file} is not a readable zip archive (${(err as Error).message})`);
  }
  zip.on('error', () => {});
  const entries = new Map<string, Entry>();
  let manifestEntry: Entry | undefined;
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName === MANIFEST) manifestEntry = entry;
      else if (entry.fileName.startsWith(FILES)) entries.set(entry.fileName.slice(FILES.length), entry);
    }
    if (!manifestEntry) throw new BlobError(`${file} is not a bcs blob report (it has no ${MANIFEST})`);
    const manifest = checkManifest(file, JSON.parse(await readText(zip, manifestEntry)));
    const missing = manifest.files.filter((p) => !entries.has(p));
    if (missing.length) throw new BlobError(`${file} is damaged: it lists ${missing[0]} but does not hold it`);
    return {
      file,
      manifest,
      has: (path) => entries.has(path),
      async extract(path, dest) {
        const entry = entries.get(path);
        if (!entry) throw new Error(`${file} holds no ${path}`);
        await mkdir(dirname(dest), { recursive: true });
        await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(dest));
      },
      close: () => zip.close(),
    };
  } catch (err) {
    zip.close();
    if (err instanceof BlobError) throw err;
    if (err instanceof SyntaxError) throw new BlobError(`${file} is damaged: its ${MANIFEST} is not JSON (${err.message})`);
    throw new BlobError(`${file} is not a readable bcs blob report (${(err as Error).message})`);
  }
}

async function readText(zip: ZipReader, entry: Entry): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function checkManifest(file: string, data: unknown): BlobManifest {
  const m = data as Partial<BlobManifest> | null;
  if (m?.format !== BLOB_FORMAT) throw new BlobError(`${file} is not a bcs blob report (its ${MANIFEST} is something else)`);
  if (m.format_version !== BLOB_FORMAT_VERSION) {
    throw new BlobError(`${file} is blob format ${String(m.format_version)} (from bcs ${String(m.bcs_version)}); this bcs reads format ${BLOB_FORMAT_VERSION}`);
  }
  const shard = m.shard;
  const whole = (n: unknown) => Number.isInteger(n) && (n as number) >= 1;
  if (!shard || !whole(shard.index) || !whole(shard.total) || shard.index > shard.total || !m.suite || !Array.isArray(m.files) || !Array.isArray(m.plans)) {
    throw new BlobError(`${file} is damaged: its ${MANIFEST} lacks the shard, the suite, the plans or the file list`);
  }
  return m as BlobManifest;
}
