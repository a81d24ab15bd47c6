// A session's host view: the folder that stands for the browser host's file system, laid out as on the
// hosted service (/home/kernel/Downloads, /home/kernel/user-data, /tmp). Client paths are absolute paths
// in that view; `resolve` maps them to host paths and refuses anything that would leave the folder,
// whether through `..`, a symlink (also one planted by a process of the session) or a /proc path.
import { mkdir, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, posix, relative, resolve as resolvePath, sep } from 'node:path';
import { DomainError, invalidField } from '../errors.js';

export const HOME_DIR = '/home/kernel';
export const DOWNLOADS_DIR = '/home/kernel/Downloads';
export const USER_DATA_DIR = '/home/kernel/user-data';
export const TMP_DIR = '/tmp';
/** Folders every view has. Processes see exactly these as writable when sandboxed. */
export const VIEW_LAYOUT = [HOME_DIR, DOWNLOADS_DIR, USER_DATA_DIR, TMP_DIR];

export class HostView {
  constructor(readonly root: string) {}

  async createLayout(): Promise<void> {
    for (const dir of VIEW_LAYOUT) await mkdir(this.hostPath(dir), { recursive: true, mode: 0o755 });
  }

  /** The host path standing for a view path, lexically (no file system checks). */
  hostPath(viewPath: string): string {
    return join(this.root, posix.normalize(`/${viewPath}`));
  }

  /** The view path of a host path inside the root (given lexically or as resolve() returned it). */
  viewPath(hostPath: string): string {
    // resolve() answers with real paths; when the root itself lies under a symlink those are not
    // lexically inside `root`, so they are mapped against the real root instead.
    const base = this.realRoot && !inside(this.root, hostPath) && inside(this.realRoot, hostPath) ? this.realRoot : this.root;
    const rel = relative(base, hostPath);
    return rel ? `/${rel.split(sep).join('/')}` : '/';
  }

  private realRoot: string | undefined;

  /**
   * Maps a client path to a host path inside the view. The path must be absolute; `..` cannot climb
   * above the view's root; the longest existing prefix is resolved with realpath and must stay inside
   * the root, so symlinks cannot point out of it. The leaf itself may not exist (for writes).
   * `field` names the request field in errors.
   */
  async resolve(clientPath: string, field = 'path'): Promise<string> {
    if (typeof clientPath !== 'string' || !clientPath.startsWith('/')) throw invalidField(field, 'must be an absolute path');
    if (clientPath.includes('\0')) throw invalidField(field, 'must not contain NUL bytes');
    const realRoot = await realpath(this.root);
    this.realRoot = realRoot;
    return resolveInside(this.hostPath(posix.normalize(clientPath)), realRoot, clientPath, 0);
  }
}

/** Links followed while resolving one path before giving up, as the kernel's own limit (ELOOP). */
const MAX_LINKS = 40;

async function resolveInside(hostPath: string, realRoot: string, clientPath: string, links: number): Promise<string> {
  let existing = hostPath;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!inside(realRoot, real)) throw outsideView(clientPath);
      return rest.length ? join(real, ...rest.reverse()) : real;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    }
    // A dangling symlink: realpath fails on it, but opening it for writing would create its target,
    // which may lie outside the view. So its target is resolved and checked like any client path.
    const link = await readlinkOrNull(existing);
    if (link !== null) {
      if (links >= MAX_LINKS) throw outsideView(clientPath);
      const linkDir = await realpath(dirname(existing));
      if (!inside(realRoot, linkDir)) throw outsideView(clientPath);
      const target = isAbsolute(link) ? link : resolvePath(linkDir, link);
      return resolveInside(rest.length ? join(target, ...rest.reverse()) : target, realRoot, clientPath, links + 1);
    }
    const parent = dirname(existing);
    if (parent === existing) throw outsideView(clientPath);
    rest.push(basename(existing));
    existing = parent;
  }
}

async function readlinkOrNull(path: string): Promise<string | null> {
  try {
    return await readlink(path);
  } catch {
    return null;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  // `..x` is a legal name inside the root; only `..` itself as the first segment climbs out.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A path that leads out of the view (403 path_outside_view). */
export function outsideView(path: string): DomainError {
  return new DomainError('forbidden', 'path_outside_view', `'${path}' resolves outside the browser host's file system view`);
}
