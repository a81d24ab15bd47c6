// What launch preparers (profiles, extensions) work with: the session's view, and a safe way to put files
// into it. A new session's view is the service's alone until Chromium starts, so files may be copied into
// it by path; a running session's processes may have planted links anywhere in it, so when Chromium is
// restarted, files are prepared outside the view (in the session's own folder, which no session process
// sees) and moved in by one rename through a confined walk (fs/confined-fs.ts).
import { chownSync, lstatSync, renameSync, unlinkSync } from 'node:fs';
import { cp, mkdir, rename, rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { newId } from '../../ids.js';
import { handOverTree, type HostView, withWalk } from '../fs/index.js';
import type { Account } from '../process/index.js';
import type { LaunchSpec } from './launch-spec.js';

export interface LaunchContext {
  readonly view: HostView;
  /** The path Chromium sees for a path of the view. */
  inView(viewPath: string): string;
  /** The launch this one replaces in a running session (a restart), whose view the session may have changed; null for a new browser. */
  readonly previous: LaunchSpec | null;
  /** A new empty folder outside the view, on the view's file system; removed after the launch. */
  staging(): Promise<string>;
  /**
   * Moves `folder` (the service's own, anywhere on the host) to `viewPath`, replacing what is there, owned
   * as the session's files are. Safe while session processes run.
   */
  install(folder: string, viewPath: string): Promise<void>;
}

/**
 * Puts what a spec names into the session's view before Chromium starts (a profile's user data, the
 * unpacked extensions), and returns the Chromium arguments that need, with paths as Chromium sees them.
 * On a restart (`ctx.previous`) only what changed is put in, through `ctx.install`.
 */
export type LaunchPreparer = (spec: LaunchSpec, ctx: LaunchContext) => Promise<string[]>;

/** A context for one launch into the session folder `dir`; `close` removes its staging folders. */
export function launchContext(opts: {
  dir: string;
  view: HostView;
  inView: (viewPath: string) => string;
  owner: Account | null;
  previous: LaunchSpec | null;
}): LaunchContext & { close(): Promise<void> } {
  const { dir, view, owner } = opts;
  const made: string[] = [];
  const staging = async () => {
    const path = join(dir, `.staging-${newId(8)}`);
    await mkdir(path, { mode: 0o700 });
    made.push(path);
    return path;
  };
  return {
    view,
    inView: opts.inView,
    previous: opts.previous,
    staging,
    install: async (folder, viewPath) => {
      // Into the session's folder first, so that the step into the view is a rename on one file system.
      const local = join(await staging(), 'item');
      await rename(folder, local).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EXDEV') throw err;
        await cp(folder, local, { recursive: true, errorOnExist: true });
      });
      if (owner) await handOverTree(local, owner);
      await withWalk(view.root, (walk) => {
        const parent = posix.dirname(viewPath);
        // A folder made here belongs to the session, as the ones a new session's view is handed over with.
        if (walk.mkdirAll(parent, 0o755) && owner && owner.uid !== process.getuid?.()) chownSync(walk.existing(parent).path, owner.uid, owner.gid);
        const entry = walk.entry(viewPath);
        const existing = lstatSync(entry.path, { throwIfNoEntry: false });
        if (existing?.isDirectory()) walk.removeTree(entry);
        else if (existing) unlinkSync(entry.path);
        renameSync(local, entry.path);
      });
    },
    close: async () => {
      await Promise.all(made.map((path) => rm(path, { recursive: true, force: true })));
    },
  };
}
