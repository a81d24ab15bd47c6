// A deployed suite's folder: the uploaded zip unpacked under <blobDir>/monitors/<suite id>/<version>, read-only
// to the checks that run from it. Unpacking refuses what would leave the folder (fs/zip.ts) and an archive
// that unpacks into too much; the previous version stays until the next deploy, so a check running from it
// finishes undisturbed.
import { createRequire } from 'node:module';
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type yauzlTypes from 'yauzl';
import { DomainError, invalidField } from '../errors.js';
import { extractZip, withWalk } from '../fs/index.js';

const MAX_ENTRIES = 20_000;
const MAX_UNPACKED_BYTES = 512 * 1024 * 1024;

export class SuiteBundles {
  constructor(private readonly root: string) {}

  async prepare(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o755 });
  }

  /** The folder of a bundle, as stored in a suite row (relative to the blob dir's monitors/). */
  path(bundle: string): string {
    return join(this.root, bundle);
  }

  /** Unpacks `zipPath` as `<suiteId>/<version>` and returns that name. */
  async unpack(zipPath: string, suiteId: string, version: number, field: string): Promise<string> {
    await checkSize(zipPath, field);
    const bundle = `${suiteId}/${version}`;
    const dir = this.path(bundle);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o755 });
    try {
      await withWalk(dir, (walk) => extractZip(zipPath, walk, '/', field));
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    return bundle;
  }

  /** Whether `file` is a regular file of the bundle (no link anywhere on its way). */
  async hasFile(bundle: string, file: string): Promise<boolean> {
    let at = this.path(bundle);
    const parts = file.split('/');
    for (const [i, part] of parts.entries()) {
      at = join(at, part);
      const st = await lstat(at).catch(() => undefined);
      if (!st || (i < parts.length - 1 ? !st.isDirectory() : !st.isFile())) return false;
    }
    return true;
  }

  /** Removes a suite's versions other than `keep` (all of them without). */
  async prune(suiteId: string, keep: readonly string[] = []): Promise<void> {
    const dir = this.path(suiteId);
    const versions = await readdir(dir).catch(() => [] as string[]);
    for (const v of versions) if (!keep.includes(`${suiteId}/${v}`)) await rm(join(dir, v), { recursive: true, force: true });
    if (!keep.length) await rm(dir, { recursive: true, force: true });
  }
}

async function checkSize(zipPath: string, field: string): Promise<void> {
  let zip: yauzlTypes.ZipFile;
  try {
    zip = await yauzl().openPromise(zipPath, { lazyEntries: true, autoClose: false });
  } catch (err) {
    throw invalidField(field, `is not a readable zip archive (${(err as Error).message})`);
  }
  zip.on('error', () => {});
  try {
    if (zip.entryCount > MAX_ENTRIES) throw invalidField(field, `has ${zip.entryCount} entries; at most ${MAX_ENTRIES} are taken`);
    let total = 0;
    for await (const entry of zip.eachEntry()) {
      total += entry.uncompressedSize;
      if (total > MAX_UNPACKED_BYTES) throw invalidField(field, `unpacks into more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MiB`);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw invalidField(field, `is not an acceptable zip archive (${(err as Error).message})`);
  } finally {
    zip.close();
  }
}

/** Loaded on the first archive read, not with the service. */
const yauzl = () => createRequire(import.meta.url)('yauzl') as typeof yauzlTypes;
