// Launched browsers that are not sessions (yet): the standby's, and creates' between launch and record. A
// shutdown stops them here, as it ends the sessions, so that no browser outlives the service.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unavailable } from '../errors.js';
import { newId } from '../../ids.js';
import { PID_FILE, launchBrowser, removeDir, stopBrowser, type LaunchEnv, type LaunchSpec, type WarmBrowser } from '../browser/index.js';

export interface LaunchesDeps {
  env: LaunchEnv;
  sessionsDir: string;
  /** The service is shutting down: no launch starts, and one that finishes meanwhile stops itself. */
  isClosing(): boolean;
  /** Takes a folder's removal, so a shutdown waits for it. */
  track(work: Promise<unknown>): void;
}

export class Launches {
  private readonly unregistered = new Set<WarmBrowser>();
  private readonly launches = new Set<Promise<unknown>>();

  constructor(private readonly deps: LaunchesDeps) {}

  /**
   * Launches a browser that is not a session yet; `discard` it or pass it to a create (WarmSource).
   * `recorded`: the session's record exists already (a cold create), so no pid file is needed.
   */
  launch(spec: LaunchSpec, opts: { id?: string; recorded?: boolean } = {}): Promise<WarmBrowser> {
    const id = opts.id ?? newId();
    const work = (async () => {
      if (this.deps.isClosing()) throw unavailable('shutting_down', 'the service is shutting down');
      let warm: WarmBrowser;
      try {
        warm = await launchBrowser(this.deps.env, id, spec);
      } catch (err) {
        this.deps.track(removeDir(join(this.deps.sessionsDir, id)));
        throw unavailable('browser_launch_failed', `could not launch Chromium: ${(err as Error).message}`);
      }
      this.unregistered.add(warm);
      if (!opts.recorded) await writeFile(join(this.deps.sessionsDir, id, PID_FILE), String(warm.chromium.pid)).catch(() => undefined);
      if (this.deps.isClosing()) {
        await this.discard(warm);
        throw unavailable('shutting_down', 'the service is shutting down');
      }
      return warm;
    })();
    const settled = work.catch(() => undefined);
    this.launches.add(settled);
    void settled.finally(() => this.launches.delete(settled));
    return work;
  }

  /** Stops a launched browser that will not become a session, and removes its folder. */
  async discard(warm: WarmBrowser): Promise<void> {
    if (!this.unregistered.delete(warm)) return;
    const work = stopBrowser(warm).then(() => removeDir(join(this.deps.sessionsDir, warm.id)));
    this.deps.track(work);
    await work.catch(() => undefined);
  }

  /** `warm` became a session's browser: ending the session stops it from now on. */
  registered(warm: WarmBrowser): void {
    this.unregistered.delete(warm);
  }

  /** Stops every browser that is not a session (service shutdown); waits until all are gone. */
  async stopAll(): Promise<void> {
    // Launches under way finish and stop themselves; what is left unregistered is stopped here.
    await Promise.all(this.launches);
    await Promise.all([...this.unregistered].map((warm) => this.discard(warm)));
  }
}
