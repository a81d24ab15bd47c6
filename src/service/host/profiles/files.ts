// The files of a profile: what of a Chromium user-data dir is worth keeping, copying it between a session
// and the profile's folder, swapping a folder in whole, and the tar a download streams.
import { createRequire } from 'node:module';
import { constants, createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type { Pack } from 'tar-stream';
import { newId } from '../../ids.js';

/**
 * Caches Chromium rebuilds on its own, and files that belong to the run that wrote them (locks, crash
 * dumps, the open tabs). Skipping them keeps a save small and fast; the tabs of the last session would
 * otherwise come back in the next one, which starts at its own start_url. Matched in the user-data root
 * and in each profile folder inside it (Default/), not deeper, where site data may use any name.
 */
const SKIPPED = new Set([
  'Cache', 'Code Cache', 'GPUCache', 'ShaderCache', 'GrShaderCache', 'GraphiteDawnCache', 'DawnCache',
  'DawnGraphiteCache', 'DawnWebGPUCache', 'Crashpad', 'Crash Reports', 'BrowserMetrics', 'DeferredBrowserMetrics',
  'BrowserMetrics-spare.pma', 'component_crx_cache', 'extensions_crx_cache', 'blob_storage', 'Safe Browsing',
  'Sessions', 'Current Session', 'Current Tabs', 'Last Session', 'Last Tabs', 'DevToolsActivePort',
  'SingletonLock', 'SingletonCookie', 'SingletonSocket',
]);

/** How many files are copied at once: enough to hide per-file latency without exhausting descriptors. */
const PARALLEL_COPIES = 16;

export interface CopyStats {
  files: number;
}

/**
 * Copies the regular files and folders of `src` into `dest` (created), without the skipped names when
 * `skipCaches`. Symlinks, sockets and the like are left out: a profile is data, and a link could point
 * anywhere on the host. Files that vanish during the copy are left out too.
 */
export async function copyProfileTree(src: string, dest: string, skipCaches: boolean): Promise<CopyStats> {
  const stats: CopyStats = { files: 0 };
  const queue: Array<() => Promise<void>> = [];
  const walk = async (from: string, to: string, depth: number): Promise<void> => {
    await mkdir(to, { recursive: true, mode: 0o700 });
    for (const entry of await readdir(from, { withFileTypes: true })) {
      if (skipCaches && depth <= 1 && SKIPPED.has(entry.name)) continue;
      const source = join(from, entry.name);
      const target = join(to, entry.name);
      if (entry.isDirectory()) await walk(source, target, depth + 1);
      else if (entry.isFile()) queue.push(() => copyOne(source, target, stats));
    }
  };
  await walk(src, dest, 0);
  await runLimited(queue, PARALLEL_COPIES);
  return stats;
}

/**
 * Moves what copyProfileTree would copy (caches skipped) from `src` into `dest` by renames: the save of a
 * session that is over anyway, whose folder is removed next. Folders below the profile folders move whole
 * (what they hold is kept either way; links in them are skipped when the profile is read). Falls back to
 * copying when the two are on different file systems. Returns how many entries moved.
 */
export async function moveProfileTree(src: string, dest: string): Promise<number> {
  let moved = 0;
  const walk = async (from: string, to: string, depth: number): Promise<void> => {
    await mkdir(to, { recursive: true, mode: 0o700 });
    for (const entry of await readdir(from, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const source = join(from, entry.name);
      const target = join(to, entry.name);
      if (entry.isDirectory() && depth === 0) await walk(source, target, depth + 1);
      else if (entry.isDirectory() || entry.isFile()) {
        await rename(source, target);
        moved++;
      }
    }
  };
  try {
    await walk(src, dest, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await rm(dest, { recursive: true, force: true });
    return (await copyProfileTree(src, dest, true)).files;
  }
  return moved;
}

async function copyOne(source: string, target: string, stats: CopyStats): Promise<void> {
  try {
    // A reflink where the file system has them (btrfs, xfs), else a plain copy.
    await copyFile(source, target, constants.COPYFILE_FICLONE);
    stats.files++;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

async function runLimited(tasks: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}

/** Puts `staged` in place of `target` by renames, so a reader or a crash sees the old folder or the new one. */
export async function replaceFolder(staged: string, target: string): Promise<void> {
  const old = `${target}.old-${newId(8)}`;
  try {
    await rename(target, old);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await rename(staged, target);
  await rm(old, { recursive: true, force: true });
}

/** A temp folder beside `target`, on the same file system so replaceFolder can rename it in. */
export function stagingFolder(target: string): string {
  return `${target}.incoming-${newId(8)}`;
}

/** A temp copy of `target` that a download streams from. */
export function snapshotFolder(target: string): string {
  return `${target}.download-${newId(8)}`;
}

/**
 * After a hard stop: a swap cut between its two renames left only `<id>.old-*`, which goes back in place;
 * every other leftover (`.incoming-*` and `.download-*` copies, `.old-*` beside a complete folder) is removed.
 */
export async function recoverFolders(root: string): Promise<void> {
  const names = await readdir(root).catch(() => [] as string[]);
  const present = new Set(names);
  for (const name of names) {
    const m = /^(.+)\.(old|incoming|download)-[a-z0-9]+$/.exec(name);
    if (!m) continue;
    const target = m[1]!;
    if (m[2] === 'old' && !present.has(target)) {
      await rename(join(root, name), join(root, target));
      present.add(target);
    } else {
      await rm(join(root, name), { recursive: true, force: true });
    }
  }
}

/** The folder as an uncompressed tar stream, entries relative to it, sorted so equal folders give equal archives. */
export function tarFolder(dir: string, warn: (msg: string, err: unknown) => void): Readable {
  // Loaded on the first profile saved, not with the service.
  const pack = (createRequire(import.meta.url)('tar-stream') as typeof import('tar-stream')).pack();
  const out = new PassThrough();
  pack.on('error', (err: Error) => out.destroy(err));
  pack.pipe(out);
  void addTree(pack, dir, '', warn).then(
    () => pack.finalize(),
    (err: Error) => out.destroy(err),
  );
  return out;
}

async function addTree(pack: Pack, dir: string, prefix: string, warn: (msg: string, err: unknown) => void): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const name = prefix + entry.name;
    if (entry.isDirectory()) {
      await new Promise<void>((resolve, reject) => pack.entry({ name: `${name}/`, type: 'directory', mode: 0o755 }, (err) => (err ? reject(err) : resolve())));
      await addTree(pack, path, `${name}/`, warn);
    } else if (entry.isFile()) {
      const st = await stat(path).catch(() => undefined);
      if (!st) continue;
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry({ name, size: st.size, mode: st.mode & 0o777, mtime: st.mtime }, (err) => (err ? reject(err) : resolve()));
        const source = createReadStream(path);
        source.on('error', (err) => {
          warn(`profile download: ${path} could not be read`, err);
          sink.destroy(err);
          reject(err);
        });
        source.pipe(sink as unknown as NodeJS.WritableStream);
      });
    }
  }
}
