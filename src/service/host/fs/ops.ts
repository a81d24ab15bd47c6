// File system primitives behind /browsers/{id}/fs/*: FileInfo as the hosted in-VM server reports it,
// octal modes, errno → wire error mapping, and the two ways a client path is resolved inside a view.
import { closeSync, constants, createReadStream, fstat, open as fsOpen, type ReadStream, type Stats } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { posix } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { FileInfo } from '../../../api/schemas/fs.js';
import { DomainError, badRequest, conflict, forbidden, invalidField, notFound } from '../errors.js';
import type { ConfinedWalk, Existing } from './confined-fs.js';

/** A client path in canonical form: normalized, no trailing slash (except the root itself). */
export function cleanViewPath(clientPath: string): string {
  const normalized = posix.normalize(clientPath);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** FileInfo as the hosted API returns it (kernel-images' `oapi.FileInfo`). */
export function fileInfo(viewPath: string, st: Stats): FileInfo {
  return {
    name: viewPath === '/' ? '/' : posix.basename(viewPath),
    path: viewPath,
    // As the hosted server does: directories report 0, whatever the file system says.
    size_bytes: st.isDirectory() ? 0 : st.size,
    is_dir: st.isDirectory(),
    mod_time: st.mtime.toISOString(),
    mode: goFileMode(st),
  };
}

// POSIX values; node's typings do not declare these constants.
const S_ISUID = 0o4000;
const S_ISGID = 0o2000;
const S_ISVTX = 0o1000;

/**
 * The mode as Go's `os.FileMode.String()` prints it, since that is what the hosted server sends:
 * type letters from "dalTLDpSugct?" (none → "-") followed by rwxrwxrwx, e.g. "drwxr-xr-x", "dtrwxrwxrwx".
 */
export function goFileMode(st: Stats): string {
  let kind = '';
  if (st.isDirectory()) kind += 'd';
  if (st.isSymbolicLink()) kind += 'L';
  if (st.isBlockDevice() || st.isCharacterDevice()) kind += 'D';
  if (st.isFIFO()) kind += 'p';
  if (st.isSocket()) kind += 'S';
  if (st.mode & S_ISUID) kind += 'u';
  if (st.mode & S_ISGID) kind += 'g';
  if (st.isCharacterDevice()) kind += 'c';
  if (st.mode & S_ISVTX) kind += 't';
  const rwx = 'rwxrwxrwx';
  let perms = '';
  for (let i = 0; i < 9; i++) perms += st.mode & (1 << (8 - i)) ? rwx[i] : '-';
  return (kind || '-') + perms;
}

/** Octal mode strings ("644", "0755"); the schema has already checked the digits. */
export function parseMode(mode: string | undefined, fallback: number): number {
  return mode === undefined ? fallback : parseInt(mode, 8);
}

/** Maps an errno from a file operation on `clientPath` to the wire error; anything else is rethrown (500). */
export function fsError(err: unknown, field: string, clientPath: string): unknown {
  if (err instanceof DomainError) return err;
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return notFound('path', clientPath);
    case 'ENOTDIR':
      return invalidField(field, `a component of '${clientPath}' is not a directory`);
    case 'EISDIR':
      return invalidField(field, `'${clientPath}' is a directory`);
    case 'EEXIST':
    case 'ENOTEMPTY':
      return conflict(`'${clientPath}' already exists${(err as NodeJS.ErrnoException).code === 'ENOTEMPTY' ? ' and is not empty' : ''}`);
    case 'EACCES':
    case 'EPERM':
      return forbidden(`permission denied on '${clientPath}'`);
    case 'ELOOP':
      return invalidField(field, `'${clientPath}' has too many levels of symbolic links`);
    case 'ENAMETOOLONG':
      return invalidField(field, 'is too long');
    case 'EINVAL':
      return invalidField(field, `'${clientPath}' is not valid here (e.g. a directory moved into itself)`);
    case 'EBUSY':
      return conflict(`'${clientPath}' is busy`);
    case 'ETXTBSY':
      return conflict(`'${clientPath}' is a program that is running and cannot be written`);
    case 'ENXIO':
    case 'ENOTREG':
      return invalidField(field, `'${clientPath}' is not a regular file`);
    case 'ECONNRESET':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      // The client went away mid-body: its doing, and not worth a 500 in the log.
      return badRequest('the request body ended before it was complete');
    case 'ENOSPC':
    case 'EDQUOT':
      return new DomainError('no_space', 'insufficient_storage', 'the disk holding the browser host view is full');
    default:
      return err;
  }
}

/** Runs `work`, turning errno failures into wire errors about `clientPath`. */
export async function mapFsErrors<T>(field: string, clientPath: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw fsError(err, field, clientPath);
  }
}

/** A client path must be absolute and NUL-free before any walk; safety comes from the walk, this from messages. */
export function checkClientPath(clientPath: unknown, field: string): string {
  if (typeof clientPath !== 'string' || !clientPath.startsWith('/')) throw invalidField(field, 'must be an absolute path');
  if (clientPath.includes('\0')) throw invalidField(field, 'must not contain NUL bytes');
  return clientPath;
}

/**
 * Opens a regular file found by a walk for reading, as a stream. The file is reopened through its pinned
 * path (the very inode the walk found), O_NONBLOCK so nothing can block on it; only regular files are read.
 * A plain fd, not a FileHandle: FileHandle streams await a promise per chunk, a third of the throughput.
 * The stream owns the fd and closes it when it ends or is destroyed.
 */
export async function openForRead(found: Existing): Promise<{ stream: ReadStream; stats: Stats }> {
  if (!found.stats.isFile()) throw notRegular(found.stats);
  const fd = await promisify(fsOpen)(found.path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await promisify(fstat)(fd);
    if (!stats.isFile()) throw notRegular(stats);
    return { stream: createReadStream('', { fd, highWaterMark: 1024 * 1024 }), stats };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function notRegular(stats: Stats): NodeJS.ErrnoException {
  return Object.assign(new Error('not a regular file'), { code: stats.isDirectory() ? 'EISDIR' : 'ENOTREG' });
}

export interface WriteOptions {
  /** Applied when given; otherwise `createMode` is used for a new file and an existing file keeps its mode. */
  mode?: number;
  createMode: number;
}

/**
 * Streams `source` into the file at `viewPath`, creating or truncating it. The walk finds it inside the
 * view (a dangling link's target included); an existing file is reopened through its pinned path, a new
 * one is created with O_EXCL|O_NOFOLLOW in its held folder, and both with O_NONBLOCK (a FIFO must not
 * hang the request); anything but a regular file is refused. A file this call created is removed again
 * when the stream fails, so an aborted upload leaves nothing half-written behind.
 */
export async function writeFileFrom(source: Readable, walk: ConfinedWalk, viewPath: string, opts: WriteOptions): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_NONBLOCK;
  /** The entry this call created, removed again if the stream fails. */
  let createdAt: string | undefined;
  let owned = false;
  let handle: FileHandle | undefined;
  for (let attempt = 0; !handle; attempt++) {
    const target = walk.target(viewPath);
    if ('stats' in target) {
      if (!target.stats.isFile()) throw notRegular(target.stats);
      handle = await open(target.path, flags);
      break;
    }
    try {
      handle = await open(target.path, flags | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, opts.mode ?? opts.createMode);
      createdAt = target.path;
    } catch (err) {
      // Created by someone else since the walk (or a link planted there): walk again, once.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
    }
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegular(stats);
    if (!createdAt) await handle.truncate(0);
    // open()'s mode passes through the umask; the API promises the mode asked for.
    if (createdAt || opts.mode !== undefined) await handle.chmod(opts.mode ?? opts.createMode);
    // The stream owns the handle from here on and closes it however the pipeline ends (a FileHandle
    // with a live stream on it would wait for that stream forever in close()).
    const sink = handle.createWriteStream();
    owned = true;
    await pipeline(source, sink);
  } catch (err) {
    if (createdAt) await unlink(createdAt).catch(() => {});
    throw err;
  } finally {
    if (!owned) await handle.close();
  }
}

/**
 * yauzl's inflate output and busboy's file parts report errors with a bare emit('error') from a timer.
 * A consumer attaching after an await (writeFileFrom opens the file first) would miss that error and
 * wait forever; piping into a PassThrough at once keeps it as stream state the consumer will see.
 */
export function holdErrors(source: Readable): Readable {
  const held = new PassThrough();
  pipeline(source, held).catch(() => {});
  return held;
}

/** ENOTREG is ours (from openForRead/writeFileFrom): the path is a FIFO, socket or device. */
export function notRegularError(err: unknown, field: string, clientPath: string): unknown {
  return (err as NodeJS.ErrnoException).code === 'ENOTREG' ? invalidField(field, `'${clientPath}' is not a regular file`) : fsError(err, field, clientPath);
}

/** For writes, a missing path means a missing parent directory: say so. */
export function writeError(err: unknown, field: string, clientPath: string): unknown {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return notFound('directory', posix.dirname(cleanViewPath(clientPath)));
  return notRegularError(err, field, clientPath);
}
