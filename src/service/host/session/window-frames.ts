// The window frame (title bar, borders) of each Chromium executable, measured once per executable and
// cached across starts: a headful viewport is the window's size less its frame.
import { join } from 'node:path';
import { newId } from '../../ids.js';
import { cachedWindowFrame, measureWindowFrame, removeDir, type ChromiumExecutable } from '../browser/index.js';
import type { Logger } from './types.js';

export interface WindowFrame {
  width: number;
  height: number;
}

export class WindowFrames {
  private readonly frames = new Map<string, Promise<WindowFrame>>();

  constructor(
    private readonly deps: {
      sessionsDir: string;
      cacheDir: string;
      log: Logger;
      /** Takes the probe folder's removal, so a shutdown waits for it. */
      track: (work: Promise<unknown>) => void;
    },
  ) {}

  /** The frame of `exe`, measured on first ask (call at start so no create pays for it). */
  of(exe: ChromiumExecutable): Promise<WindowFrame> {
    let frame = this.frames.get(exe.path);
    if (frame) return frame;
    frame = (async () => {
      const dir = join(this.deps.sessionsDir, `.probe-${newId(8)}`);
      try {
        return await cachedWindowFrame(exe.path, this.deps.cacheDir, () => measureWindowFrame(exe, dir));
      } catch (err) {
        this.deps.log.warn({ err: (err as Error).message }, 'could not measure the browser window frame; viewports may be smaller than asked');
        return { width: 0, height: 0 };
      } finally {
        this.deps.track(removeDir(dir));
      }
    })();
    this.frames.set(exe.path, frame);
    return frame;
  }

  /** Resolves once every measurement under way has ended (shutdown). */
  async settled(): Promise<void> {
    await Promise.all(this.frames.values());
  }
}
