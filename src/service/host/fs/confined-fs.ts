// Paths of a session's view resolved so that the kernel, not a string check, keeps every operation
// inside the view. The service runs outside the sandbox (as root in CI) and a session's processes may
// plant symlinks or swap a folder for one at any moment, so a path is never opened by name from the
// host's root. Instead each component is opened relative to the folder already held, by
// `/proc/self/fd/<dir>/<name>` with O_NOFOLLOW: the kernel follows only the /proc magic link to that
// folder, never a symlink at `name`. Symlinks met on the way are expanded here the way openat2's
// RESOLVE_IN_ROOT does (an absolute target starts again at the view's root, `..` never climbs above
// it), so a link to a host path means that path inside the view. What an operation gets back is a
// pinned path: `/proc/self/fd/<fd>` (that very file or folder) or `/proc/self/fd/<dir>/<name>` (an
// entry of a held folder, for operations that never follow their last component: lstat, unlink,
// rmdir, mkdir, rename, open with O_NOFOLLOW|O_CREAT|O_EXCL). A walk holds its fds until it is closed.
import { chmodSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, rmdirSync, unlinkSync, type Stats } from 'node:fs';
import { posix } from 'node:path';
import { HOME_DIR, TMP_DIR, outsideView } from './host-view.js';

/** Linux's O_PATH: a handle on a file or folder that can be walked from and stat'ed, not read. */
export const O_PATH = 0o10000000;
/** Links followed while resolving one path before ELOOP, as the kernel's own limit. */
const MAX_LINKS = 40;

const pinned = (fd: number) => `/proc/self/fd/${fd}`;

/** The view's folders; a link into anything else names a place that only exists outside the view. */
const VIEW_FOLDERS = [HOME_DIR, TMP_DIR];


function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

export interface Entry {
  /** The held parent folder, pinned. */
  dir: string;
  name: string;
  /** `${dir}/${name}`: for operations that do not follow their last component. */
  path: string;
}

export interface Existing {
  /** The file or folder itself, pinned; reopen it without O_NOFOLLOW (it is a /proc magic link). */
  path: string;
  stats: Stats;
}

export class ConfinedWalk {
  private readonly fds: number[] = [];
  private readonly rootFd: number;

  private constructor(root: string) {
    this.rootFd = this.track(openSync(root, O_PATH | constants.O_DIRECTORY));
  }

  /** Holds the view's root; `root` is the service's own folder for the session, not the session's to change. */
  static open(root: string): ConfinedWalk {
    return new ConfinedWalk(root);
  }

  /** The file or folder a view path names, following symlinks inside the view. ENOENT when missing. */
  existing(viewPath: string): Existing {
    const found = this.resolve(viewPath, true);
    if (found.fd === undefined) throw errno('ENOENT', viewPath);
    return { path: pinned(found.fd), stats: fstatSync(found.fd) };
  }

  /** The entry itself (a symlink at the end is not followed), in its held parent. The root has none. */
  entry(viewPath: string): Entry {
    const found = this.resolve(viewPath, false);
    if (found.name === undefined) throw errno('EINVAL', 'the root of the view has no parent');
    const dir = pinned(found.dirFd);
    return { dir, name: found.name, path: `${dir}/${found.name}` };
  }

  /**
   * Where a write to `viewPath` goes: the existing file (symlinks followed inside the view), or the
   * entry to create, which is the target of a dangling symlink when the path ends in one.
   */
  target(viewPath: string): Existing | Entry {
    const found = this.resolve(viewPath, true);
    if (found.fd !== undefined) return { path: pinned(found.fd), stats: fstatSync(found.fd) };
    const dir = pinned(found.dirFd);
    return { dir, name: found.name!, path: `${dir}/${found.name}` };
  }

  /**
   * Creates the folder and any missing parents inside the view, each with exactly `mode` (set on the
   * created folder itself, not by name, so a link swapped in afterwards is not followed). Returns whether
   * the folder itself was created; an existing one that is not a folder is EEXIST.
   */
  mkdirAll(viewPath: string, mode: number): boolean {
    let found: { dirFd: number; name?: string; fd?: number };
    try {
      found = this.resolve(viewPath, true);
    } catch (err) {
      const parent = posix.dirname(posix.normalize(viewPath));
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === viewPath) throw err;
      this.mkdirAll(parent, mode);
      found = this.resolve(viewPath, true);
    }
    if (found.fd !== undefined) {
      if (!fstatSync(found.fd).isDirectory()) throw errno('EEXIST', `${viewPath} exists and is not a directory`);
      return false;
    }
    const path = `${pinned(found.dirFd)}/${found.name}`;
    mkdirSync(path, mode);
    const fd = this.track(openSync(path, O_PATH | constants.O_NOFOLLOW | constants.O_DIRECTORY));
    chmodSync(pinned(fd), mode); // mkdir's mode passes through the umask
    return true;
  }

  /** Removes a folder's contents and the folder, never leaving it: every level is opened with O_NOFOLLOW. */
  removeTree(entry: Entry): void {
    const fd = openSync(entry.path, O_PATH | constants.O_NOFOLLOW | constants.O_DIRECTORY);
    try {
      for (const name of readdirSync(pinned(fd))) {
        const child = `${pinned(fd)}/${name}`;
        const st = lstatSync(child, { throwIfNoEntry: false });
        if (!st) continue;
        if (st.isDirectory()) {
          try {
            this.removeTree({ dir: pinned(fd), name, path: child });
            continue;
          } catch (err) {
            // Swapped for a link or a file since the lstat: removed as the entry it now is.
            if (!['ENOTDIR', 'ELOOP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
          }
        }
        unlinkSync(child);
      }
    } finally {
      closeSync(fd);
    }
    rmdirSync(entry.path);
  }

  /** Opens a folder of a walk (a pinned path) for walking further, not following a link at its end. */
  openDir(entryPath: string): string {
    return pinned(this.track(openSync(entryPath, O_PATH | constants.O_NOFOLLOW | constants.O_DIRECTORY)));
  }

  close(): void {
    for (const fd of this.fds.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
  }

  private track(fd: number): number {
    this.fds.push(fd);
    return fd;
  }

  /**
   * Walks `viewPath` from the root. With `followLeaf` a symlink at the end is followed (inside the
   * view) and `fd` is the file or folder found, or undefined with `dirFd`/`name` naming the missing
   * last entry. Without it, `dirFd`/`name` name the last entry whatever it is. A missing folder on the
   * way is ENOENT; a file on the way is ENOTDIR.
   */
  private resolve(viewPath: string, followLeaf: boolean): { dirFd: number; name?: string; fd?: number } {
    // Set when a link leads out of the view's folders (an absolute target elsewhere, `..` above the
    // root): what then is missing is missing because it lies outside, which is worth saying as such.
    let left = false;
    const missing = (err: NodeJS.ErrnoException) => (left && (err.code === 'ENOENT' || err.code === 'ENOTDIR') ? outsideView(viewPath) : err);
    try {
      const found = this.walkPath(viewPath, followLeaf, () => (left = true));
      if (left && found.fd === undefined && followLeaf) throw outsideView(viewPath);
      return found;
    } catch (err) {
      throw missing(err as NodeJS.ErrnoException);
    }
  }

  private walkPath(viewPath: string, followLeaf: boolean, leaving: () => void): { dirFd: number; name?: string; fd?: number } {
    const stack = [this.rootFd];
    const queue = viewPath.split('/').filter((c) => c !== '' && c !== '.');
    let links = 0;
    let fromLink = 0; // components still to come that a link put in the queue
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (fromLink > 0) fromLink--;
      const dirFd = stack.at(-1)!;
      if (name === '..') {
        if (stack.length > 1) stack.pop();
        else if (fromLink > 0) leaving();
        continue;
      }
      const last = queue.length === 0;
      if (last && !followLeaf) return { dirFd, name };
      let fd: number;
      try {
        fd = this.track(openSync(`${pinned(dirFd)}/${name}`, O_PATH | constants.O_NOFOLLOW));
      } catch (err) {
        if (last && (err as NodeJS.ErrnoException).code === 'ENOENT') return { dirFd, name };
        throw err;
      }
      const st = fstatSync(fd);
      if (st.isSymbolicLink()) {
        if (++links > MAX_LINKS) throw errno('ELOOP', viewPath);
        // Read by name: if it was swapped meanwhile, whatever it reads now is resolved inside the view too.
        const target = readlinkSync(`${pinned(dirFd)}/${name}`);
        if (target.startsWith('/')) {
          stack.splice(1);
          if (!VIEW_FOLDERS.some((dir) => target === dir || target.startsWith(`${dir}/`))) leaving();
        }
        const parts = target.split('/').filter((c) => c !== '' && c !== '.');
        queue.unshift(...parts);
        fromLink += parts.length;
        continue;
      }
      if (last) return { dirFd, name, fd };
      if (!st.isDirectory()) throw errno('ENOTDIR', viewPath);
      stack.push(fd);
    }
    // The path named the root itself (or climbed back to it).
    const top = stack.at(-1)!;
    return { dirFd: top, fd: top };
  }
}

/** Runs `work` with a walk of the view at `root`, closing every fd it held afterwards. */
export async function withWalk<T>(root: string, work: (walk: ConfinedWalk) => Promise<T> | T): Promise<T> {
  const walk = ConfinedWalk.open(root);
  try {
    return await work(walk);
  } finally {
    walk.close();
  }
}
