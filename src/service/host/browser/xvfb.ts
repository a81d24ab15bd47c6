// One virtual X display per headful session. Xvfb picks a free display number itself (-displayfd), so
// concurrent sessions never race for one.
import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { killProcessGroup } from './chromium.js';

export interface XDisplay {
  /** `:N`, the DISPLAY value for programs on this screen. */
  display: string;
  /** The X authority file that programs on this screen need (a display of the user's own; Xvfb here has none). */
  xauthority?: string;
  width: number;
  height: number;
  pid: number;
  stop(): Promise<void>;
}

export function startXvfb(width: number, height: number, timeoutMs = 10_000): Promise<XDisplay> {
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-noreset', '-nocursor'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  return new Promise((resolve, reject) => {
    let out = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      killProcessGroup(child.pid!);
      reject(new Error(`${why}${stderr ? `: ${stderr.trim().split('\n').slice(-2).join(' | ')}` : ''}`));
    };
    const timer = setTimeout(() => fail(`Xvfb did not report its display within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (err) => fail(`cannot start Xvfb (${err.message})`));
    void exited.then(() => fail('Xvfb exited during start'));
    const fd3 = child.stdio[3] as NodeJS.ReadableStream;
    fd3.on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      resolve({
        display: `:${out.trim()}`,
        width,
        height,
        pid: child.pid!,
        stop: async () => {
          killProcessGroup(child.pid!);
          await exited;
        },
      });
    });
  });
}

/** A display that exists already (the developer's own, `bcs run --headed`): used, never stopped. */
export interface ExistingDisplay {
  display: string;
  xauthority?: string;
}

export function existingDisplay(on: ExistingDisplay, width: number, height: number): XDisplay {
  return { display: on.display, xauthority: on.xauthority, width, height, pid: 0, stop: async () => {} };
}

/** The environment X programs need to reach `screen`. */
export function xEnv(screen: Pick<XDisplay, 'display' | 'xauthority'>): Record<string, string> {
  return { DISPLAY: screen.display, ...(screen.xauthority ? { XAUTHORITY: screen.xauthority } : {}) };
}

/** Whether this host can run headful sessions, and if not, what is missing. */
export async function headfulSupport(headlessShell: boolean, env: NodeJS.ProcessEnv = process.env): Promise<{ available: boolean; reason: string }> {
  if (headlessShell) {
    return { available: false, reason: 'the Chromium in use is a headless shell; install chromium (or pass --chromium) for headful browsers' };
  }
  const missing: string[] = [];
  for (const tool of ['Xvfb', 'xdotool']) if (!(await onPath(tool, env))) missing.push(tool);
  if (missing.length) return { available: false, reason: `headful browsers need ${missing.join(' and ')}, not found on this host` };
  return { available: true, reason: 'Xvfb, xdotool and a full Chromium are available' };
}

async function onPath(name: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    try {
      await access(join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}
