// Zip archives for the fs API: a directory streamed out with yazl, an uploaded archive extracted with
// yauzl. Neither follows a symlink: links go into archives as links, and archives may not contain any.
import { constants } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { posix } from 'node:path';
import { Readable } from 'node:stream';
import type yauzlTypes from 'yauzl';
import type { ZipFile } from 'yazl';
import { DomainError, invalidField } from '../errors.js';
import type { ConfinedWalk } from './confined-fs.js';
import { holdErrors, writeFileFrom } from './ops.js';

/**
 * The contents of a folder found by `walk` (its pinned path) as a zip stream, entries named relative to
 * it. The walk runs while the archive streams out and descends only through folders opened with
 * O_NOFOLLOW from the one above, so a folder swapped for a link is never entered; files are opened one
 * at a time when their turn comes, also with O_NOFOLLOW. A file that vanishes in between is stored empty
 * rather than failing a download that has already started. The walk is closed when the stream ends.
 */
export function zipDirectory(walk: ConfinedWalk, dir: string, warn: (msg: string, err: unknown) => void): Readable {
  // Loaded on the first download of a folder, not with the service.
  const { ZipFile: Zip } = createRequire(import.meta.url)('yazl') as typeof import('yazl');
  const zip = new Zip();
  const out = zip.outputStream as Readable;
  zip.on('error', (err: Error) => out.destroy(err));
  out.once('close', () => walk.close());
  void addTree(zip, walk, dir, '', warn).then(
    () => zip.end(),
    (err: Error) => out.destroy(err),
  );
  return out;
}

async function addTree(zip: ZipFile, walk: ConfinedWalk, dir: string, prefix: string, warn: (msg: string, err: unknown) => void): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (err) {
    if (!prefix) throw err;
    warn(`zip: skipping unreadable directory ${prefix}`, err);
    return;
  }
  for (const name of names) {
    const entry = `${dir}/${name}`;
    const metadataPath = prefix + name;
    const st = await lstat(entry).catch(() => undefined);
    if (!st) continue;
    // st.mode keeps its file-type bits, so unzip tools restore links and directories as such.
    const options = { mtime: st.mtime, mode: st.mode & 0xffff };
    try {
      if (st.isDirectory()) {
        let sub: string;
        try {
          sub = walk.openDir(entry);
        } catch (err) {
          warn(`zip: skipping ${metadataPath}, changed while archived`, err);
          continue;
        }
        zip.addEmptyDirectory(metadataPath, options);
        await addTree(zip, walk, sub, `${metadataPath}/`, warn);
      } else if (st.isSymbolicLink()) {
        const target = await readlink(entry).catch(() => undefined);
        if (target !== undefined) zip.addBuffer(Buffer.from(target), metadataPath, { ...options, compress: false });
      } else if (st.isFile()) {
        zip.addReadStreamLazy(metadataPath, options, (cb) => {
          openRegularNoFollow(entry).then(
            (stream) => cb(null, stream),
            (err: unknown) => {
              warn(`zip: ${metadataPath} could not be read; stored empty`, err);
              cb(null, Readable.from([]));
            },
          );
        });
      }
      // FIFOs, sockets and devices have no content to archive.
    } catch (err) {
      // yazl refuses names it cannot store (e.g. `C:x`, which reads as a drive letter).
      warn(`zip: skipping ${metadataPath}`, err);
    }
  }
}

async function openRegularNoFollow(entryPath: string): Promise<Readable> {
  const handle = await open(entryPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw new Error('no longer a regular file');
  }
  return handle.createReadStream() as unknown as Readable;
}

interface CheckedEntry {
  entry: yauzlTypes.Entry;
  name: string;
  isDir: boolean;
  /** Permission bits stored by a Unix zip tool, without setuid/setgid/sticky. */
  mode?: number;
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

/**
 * Extracts the zip at `zipPath` into the view directory `destViewPath`. Every entry is checked before
 * anything is written, so a zip-slip archive (`../x`, `/x`, a symlink) is refused whole. Then each
 * target is created through the walk, so a symlink already inside the destination cannot carry an
 * entry out of the view either.
 */
export async function extractZip(zipPath: string, walk: ConfinedWalk, destViewPath: string, field: string): Promise<void> {
  let zip: yauzlTypes.ZipFile;
  try {
    zip = await yauzl().openPromise(zipPath, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true });
  } catch (err) {
    throw invalidField(field, `is not a readable zip archive (${(err as Error).message})`);
  }
  // A late format error must not become an unhandled 'error' event; each read reports its own.
  zip.on('error', () => {});
  try {
    const entries: CheckedEntry[] = [];
    try {
      for await (const entry of zip.eachEntry()) entries.push(checkEntry(entry, field));
    } catch (err) {
      // yauzl's own name checks (absolute paths, `..`) and format errors land here.
      if (err instanceof DomainError) throw err;
      throw invalidField(field, `is not an acceptable zip archive (${(err as Error).message})`);
    }
    for (const { entry, name, isDir, mode } of entries) {
      const viewPath = posix.join(destViewPath, name);
      if (isDir) {
        walk.mkdirAll(viewPath, 0o755);
        continue;
      }
      walk.mkdirAll(posix.dirname(viewPath), 0o755);
      let stream: Readable;
      try {
        stream = await zip.openReadStreamPromise(entry);
      } catch (err) {
        throw invalidField(field, `entry '${name}' cannot be read (${(err as Error).message})`);
      }
      await writeFileFrom(holdErrors(stream), walk, viewPath, { mode, createMode: 0o644 }).catch((err: Error) => {
        // Corrupt compressed data or a size that lies surfaces as a stream error: the archive's fault.
        const code = (err as NodeJS.ErrnoException).code;
        if (!code || code.startsWith('Z_')) throw invalidField(field, `entry '${name}' is corrupt (${err.message})`);
        throw err;
      });
    }
  } finally {
    zip.close();
  }
}

function checkEntry(entry: yauzlTypes.Entry, field: string): CheckedEntry {
  const name = entry.fileName;
  const refuse = (why: string) => invalidField(field, `entry '${name}' ${why}`);
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) throw refuse('has an absolute path');
  if (name.split('/').includes('..')) throw refuse('climbs out of dest_path with ..');
  if (name.includes('\0')) throw refuse('has a NUL byte in its name');
  if (entry.isEncrypted()) throw refuse('is encrypted');
  const attrs = (entry.externalFileAttributes >>> 16) & 0xffff;
  const type = attrs & S_IFMT;
  // A made-by Unix entry carries st_mode in the high half; anything but a file or directory (a
  // symlink above all) could later redirect writes out of the destination.
  if (type !== 0 && type !== S_IFDIR && type !== S_IFREG) throw refuse(type === 0o120000 ? 'is a symbolic link' : 'is not a regular file or directory');
  const isDir = name.endsWith('/') || type === S_IFDIR;
  const perms = attrs & 0o777;
  return { entry, name: name.replace(/\/+$/, ''), isDir, mode: type === S_IFREG && perms ? perms : undefined };
}

/** Loaded on the first archive read, not with the service. */
const yauzl = () => createRequire(import.meta.url)('yauzl') as typeof yauzlTypes;
