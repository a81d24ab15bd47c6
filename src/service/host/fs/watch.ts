// Directory watches for /browsers/{id}/fs/watch. One inotify watch per directory (node's fs.watch
// without `recursive`), walked by us rather than by node's recursive mode: our walk never follows a
// symlink out of the view, picks up new subdirectories deterministically, and sees each directory's
// entries, which is what tells a rename from a delete.
//
// node reports only 'rename' (appeared or vanished) and 'change' (content or attributes). We lstat to
// split 'rename' into CREATE and DELETE, and remember each entry's inode: a path that vanishes while
// another appears with the same inode in the same short batch was renamed (RENAME for the old path,
// CREATE for the new one, as fsnotify reports a move).
import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { basename, join, posix, relative, sep } from 'node:path';
import type { FsEvent, FsEventType } from '../../../api/schemas/fs.js';
import { DomainError, notFound } from '../errors.js';
import { newId } from '../../ids.js';
import type { SessionScope } from '../session-scope.js';

export interface WatchSubscriber {
  send(event: FsEvent): void;
  close(): void;
}

/** Raw notifications are grouped this long, so both halves of a move land in one batch. */
const BATCH_MS = 25;
/** Events kept for a watch nobody is streaming yet; the oldest go first. */
const BACKLOG_LIMIT = 1000;
/** inotify watches are a per-user kernel resource shared with everything else on the host. */
const MAX_DIRS_PER_WATCH = 10_000;
const MAX_WATCHES_PER_SESSION = 64;

interface Known {
  ino: number;
  isDir: boolean;
  mtimeMs: number;
}

interface Pending {
  kind: 'create' | 'gone' | 'write';
  hostPath: string;
  isDir: boolean;
  was?: Known;
  now?: Known;
}

export class DirectoryWatch {
  readonly id = newId(16);
  private readonly dirs = new Map<string, { watcher: FSWatcher; ino: number }>();
  private readonly known = new Map<string, Known>();
  private pending: Pending[] = [];
  private readonly writesInBatch = new Set<string>();
  /** Raw events are handled one at a time, in order, because each needs an async lstat. */
  private queue: Promise<void> = Promise.resolve();
  private batchTimer: NodeJS.Timeout | undefined;
  private readonly subscribers = new Set<WatchSubscriber>();
  private backlog: FsEvent[] = [];
  private stopped = false;

  constructor(
    private readonly hostRoot: string,
    private readonly viewRoot: string,
    private readonly recursive: boolean,
    private readonly warn: (msg: string, err?: unknown) => void,
  ) {}

  /** Watches the root (and, when recursive, every directory below it). Fails if the root cannot be watched. */
  start(): Promise<void> {
    const started = this.addDir(this.hostRoot, this.recursive, false, true);
    // Notifications that arrive during the walk are handled after it.
    this.queue = started.catch(() => {});
    return started;
  }

  /** Hands over the events buffered so far, then every new one, until the watch stops. */
  subscribe(subscriber: WatchSubscriber): () => void {
    if (this.stopped) {
      subscriber.close();
      return () => {};
    }
    for (const event of this.backlog) subscriber.send(event);
    this.backlog = [];
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** Called once when the watch stops: what holds its root open lets go. */
  onStop?: () => void;

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onStop?.();
    clearTimeout(this.batchTimer);
    for (const { watcher } of this.dirs.values()) watcher.close();
    this.dirs.clear();
    this.known.clear();
    for (const subscriber of this.subscribers) subscriber.close();
    this.subscribers.clear();
  }

  private serially(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work);
    this.queue = run.catch((err) => this.warn('fs watch: handling an event failed', err));
    return run;
  }

  private async addDir(dir: string, deep: boolean, announce: boolean, isRoot = false): Promise<void> {
    if (this.stopped || this.dirs.has(dir)) return;
    if (this.dirs.size >= MAX_DIRS_PER_WATCH) return this.warn(`fs watch: more than ${MAX_DIRS_PER_WATCH} directories; not watching ${dir}`);
    let watcher: FSWatcher;
    let ino: number;
    try {
      ino = (await lstat(dir)).ino;
      watcher = watch(dir, { persistent: false }, (type, name) => this.onRaw(dir, type, name));
    } catch (err) {
      if (isRoot) throw err;
      return this.warn(`fs watch: cannot watch ${dir}`, err);
    }
    if (this.stopped) {
      watcher.close(); // stopped during the lstat above
      return;
    }
    // Errors end that directory's watch only (e.g. it was unmounted); the rest keeps running.
    watcher.on('error', (err) => {
      this.warn(`fs watch: ${dir} stopped`, err);
      this.dropDir(dir);
    });
    this.dirs.set(dir, { watcher, ino });
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(dir, name);
      const st = await lstat(path).catch(() => undefined);
      if (!st || this.known.get(path)?.ino === st.ino) continue;
      const now = { ino: st.ino, isDir: st.isDirectory(), mtimeMs: st.mtimeMs };
      this.known.set(path, now);
      // Entries of a directory that appeared after the watch started were created before its own
      // inotify watch existed: report them, or files written fast into a new directory go unseen.
      if (announce) this.push({ kind: 'create', hostPath: path, isDir: now.isDir, now });
      if (now.isDir && deep) await this.addDir(path, true, announce);
    }
  }

  private onRaw(dir: string, type: string, name: string | Buffer | null): void {
    if (this.stopped || name === null) return;
    const entry = name.toString();
    void this.serially(() => this.handle(dir, type, entry));
    this.batchTimer ??= setTimeout(() => {
      this.batchTimer = undefined;
      void this.serially(async () => this.flush());
    }, BATCH_MS);
  }

  private async handle(dir: string, type: string, name: string): Promise<void> {
    const watched = this.dirs.get(dir);
    if (!watched) return;
    // inotify names the directory itself when it is deleted or moved away; its parent's watch
    // reports that, so here it only ends this directory's watch (the root has no parent to tell).
    if (name === basename(dir) && (await lstat(dir).catch(() => undefined))?.ino !== watched.ino) {
      this.dropDir(dir);
      if (dir === this.hostRoot) this.push({ kind: 'gone', hostPath: dir, isDir: true });
      return;
    }
    const path = join(dir, name);
    const st = await lstat(path).catch(() => undefined);
    const was = this.known.get(path);
    const now = st && { ino: st.ino, isDir: st.isDirectory(), mtimeMs: st.mtimeMs };
    if (type === 'change') {
      if (!now) return; // gone already: its 'rename' follows
      this.known.set(path, now);
      this.push({ kind: 'write', hostPath: path, isDir: now.isDir, now });
      return;
    }
    if (!now) {
      // Created and gone again before we looked: report the end once, not once per notification.
      if (!was && this.pending.some((p) => p.kind === 'gone' && p.hostPath === path)) return;
      this.known.delete(path);
      if (was?.isDir || this.dirs.has(path)) this.dropDir(path);
      this.push({ kind: 'gone', hostPath: path, isDir: was?.isDir ?? false, was });
      return;
    }
    if (was?.ino === now.ino) return; // a duplicate notification for an entry already reported
    this.known.set(path, now);
    this.push({ kind: 'create', hostPath: path, isDir: now.isDir, now });
    if (now.isDir && this.recursive) await this.addDir(path, true, true);
  }

  /** Stops watching `dir` and everything below it, forgetting their entries. */
  private dropDir(dir: string): void {
    const below = dir + sep;
    for (const [path, { watcher }] of this.dirs) {
      if (path === dir || path.startsWith(below)) {
        watcher.close();
        this.dirs.delete(path);
      }
    }
    for (const path of this.known.keys()) if (path.startsWith(below)) this.known.delete(path);
  }

  private push(item: Pending): void {
    // A large write arrives as many 'change' notifications; one WRITE per path per batch says it all.
    if (item.kind === 'write') {
      if (this.writesInBatch.has(item.hostPath)) return;
      this.writesInBatch.add(item.hostPath);
    } else {
      this.writesInBatch.delete(item.hostPath);
    }
    this.pending.push(item);
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.writesInBatch.clear();
    const appeared = batch.filter((p) => p.kind === 'create').map((p) => p.now!);
    // Same inode, same kind, and (for files) the same mtime: a rename keeps all three, while a new
    // file that happens to reuse a freed inode number gets a fresh mtime.
    const movedAway = (was: Known | undefined) =>
      !!was && appeared.some((n) => n.ino === was.ino && n.isDir === was.isDir && (was.isDir || n.mtimeMs === was.mtimeMs));
    for (const p of batch) {
      const type: FsEventType = p.kind === 'create' ? 'CREATE' : p.kind === 'write' ? 'WRITE' : movedAway(p.was) ? 'RENAME' : 'DELETE';
      this.emit({ type, path: this.toView(p.hostPath), name: basename(p.hostPath), is_dir: p.isDir });
    }
  }

  private emit(event: FsEvent): void {
    if (this.subscribers.size === 0) {
      this.backlog.push(event);
      if (this.backlog.length > BACKLOG_LIMIT) this.backlog.shift();
      return;
    }
    for (const subscriber of this.subscribers) subscriber.send(event);
  }

  private toView(hostPath: string): string {
    const rel = relative(this.hostRoot, hostPath);
    return rel ? posix.join(this.viewRoot, rel.split(sep).join('/')) : this.viewRoot;
  }
}

/** A session's watches. They live as long as the session: its cleanups stop them all. */
const bySession = new WeakMap<SessionScope, Map<string, DirectoryWatch>>();

function watchesOf(session: SessionScope): Map<string, DirectoryWatch> {
  let watches = bySession.get(session);
  if (!watches) {
    const created = new Map<string, DirectoryWatch>();
    session.cleanups.push(() => {
      for (const w of created.values()) w.stop();
      created.clear();
    });
    bySession.set(session, created);
    watches = created;
  }
  return watches;
}

export async function startWatch(
  session: SessionScope,
  hostRoot: string,
  viewRoot: string,
  recursive: boolean,
  warn: (msg: string, err?: unknown) => void,
  onStop?: () => void,
): Promise<DirectoryWatch> {
  const watches = watchesOf(session);
  if (watches.size >= MAX_WATCHES_PER_SESSION) {
    throw new DomainError('conflict', 'too_many_watches', `a browser can have at most ${MAX_WATCHES_PER_SESSION} watches; stop one first`);
  }
  const w = new DirectoryWatch(hostRoot, viewRoot, recursive, warn);
  w.onStop = onStop;
  await w.start().catch((err) => {
    w.stop();
    throw err;
  });
  // The session may have ended while the tree was walked; its cleanups have run by then.
  if (session.ending) {
    w.stop();
    throw notFound('browser', session.id);
  }
  watches.set(w.id, w);
  return w;
}

export function findWatch(session: SessionScope, watchId: string): DirectoryWatch {
  const w = bySession.get(session)?.get(watchId);
  if (!w) throw notFound('watch', watchId);
  return w;
}

export function stopWatch(session: SessionScope, watchId: string): void {
  findWatch(session, watchId).stop();
  bySession.get(session)!.delete(watchId);
}
