// Finding ffmpeg and running it. The system's binary comes first (maintained by the distribution,
// shared with screenshots); else the static binary of the npm package @ffmpeg-installer/linux-x64, so
// recording works on a machine without apt. A candidate counts only if it can encode H.264 (libx264).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Ffmpeg {
  path: string;
  source: 'BCS_FFMPEG' | 'system' | 'npm';
  /** Whether it can grab an X display (headful recording). */
  x11grab: boolean;
}

export type FfmpegLookup = { ffmpeg: Ffmpeg; reason?: undefined } | { ffmpeg: null; reason: string };

const NPM_PACKAGE = '@ffmpeg-installer/linux-x64';

/** Finds a usable ffmpeg: BCS_FFMPEG if set (and nothing else), else the system's, else the npm package's. */
export async function findFfmpeg(env: NodeJS.ProcessEnv = process.env): Promise<FfmpegLookup> {
  const candidates: Array<{ path: string; source: Ffmpeg['source'] }> = [];
  if (env.BCS_FFMPEG) candidates.push({ path: env.BCS_FFMPEG, source: 'BCS_FFMPEG' });
  else {
    const system = await onPath('ffmpeg', env);
    if (system) candidates.push({ path: system, source: 'system' });
    const packaged = npmFfmpeg();
    if (packaged) candidates.push({ path: packaged, source: 'npm' });
  }
  const rejected: string[] = [];
  for (const c of candidates) {
    try {
      const [encoders, devices] = await Promise.all([
        run(c.path, ['-hide_banner', '-encoders'], { timeout: 10_000 }),
        run(c.path, ['-hide_banner', '-devices'], { timeout: 10_000 }),
      ]);
      if (!/\slibx264\s/.test(encoders.stdout)) {
        rejected.push(`${c.path} cannot encode H.264 (no libx264)`);
        continue;
      }
      return { ffmpeg: { ...c, x11grab: /\sx11grab\s/.test(devices.stdout) } };
    } catch (err) {
      rejected.push(`${c.path} does not run (${(err as Error).message.split('\n')[0]})`);
    }
  }
  const why = rejected.length ? rejected.join('; ') : `no ffmpeg on PATH and the npm package ${NPM_PACKAGE} is not installed`;
  return { ffmpeg: null, reason: `recording needs ffmpeg with libx264: ${why}` };
}

/** The package ships only a binary and a package.json (no JS entry), so resolve the package.json. */
function npmFfmpeg(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve(`${NPM_PACKAGE}/package.json`)), 'ffmpeg');
  } catch {
    return undefined;
  }
}

async function onPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    try {
      await access(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/**
 * H.264 into fragmented MP4: every keyframe (2 s apart) closes a fragment, so a killed ffmpeg or
 * service leaves a playable file holding all but the last seconds. zerolatency keeps x264 from holding
 * frames back in a lookahead, and flush_packets writes each fragment out at once: without it a static
 * page's small fragments sit in ffmpeg's 32 KiB write buffer, and a kill loses them.
 */
export function fragmentedH264Args(framerate: number, output: string): string[] {
  return [
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p',
    '-g', String(framerate * 2), '-r', String(framerate),
    '-movflags', 'frag_keyframe+empty_moov+default_base_moof', '-flush_packets', '1', '-f', 'mp4', '-y', output,
  ];
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running ffmpeg: its exit, the tail of what it said, and lines to wait for. */
export class FfmpegProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<ExitInfo>;
  private stderr = '';
  private readonly waiters = new Set<() => void>();

  constructor(path: string, args: string[]) {
    // Its own process group: a Ctrl-C in the terminal must not reach it before the service stops it.
    this.child = spawn(path, args, { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
    this.child.stdin!.on('error', () => {}); // EPIPE once ffmpeg has gone: its exit says why
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-16_000);
      for (const w of this.waiters) w();
    });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.stderr += `\n${err.message}`;
        resolve({ code: null, signal: null });
      });
      this.child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    void this.exited.then(() => {
      for (const w of this.waiters) w();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last lines ffmpeg wrote, for error messages. */
  tail(lines = 3): string {
    return this.stderr.trim().split('\n').slice(-lines).join(' | ');
  }

  /** Resolves with the first match of `re` in stderr; rejects if ffmpeg exits or time runs out first. */
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (fn: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.waiters.delete(check);
        fn();
      };
      const check = () => {
        const m = this.stderr.match(re);
        if (m) finish(() => resolve(m));
        else if (this.child.exitCode !== null || this.child.signalCode !== null) {
          finish(() => reject(new Error(`ffmpeg exited: ${this.tail()}`)));
        }
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`ffmpeg did not start within ${timeoutMs} ms: ${this.tail()}`))), timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Lets ffmpeg finish its file (`ask` ends its input or sends `q`), then escalates to signals. */
  async finish(ask: () => void, graceMs = 10_000): Promise<ExitInfo> {
    if (this.child.exitCode === null && this.child.signalCode === null) ask();
    if (await settlesWithin(this.exited, graceMs)) return this.exited;
    this.signal('SIGTERM');
    if (await settlesWithin(this.exited, 3000)) return this.exited;
    this.signal('SIGKILL');
    return this.exited;
  }

  signal(sig: NodeJS.Signals): void {
    try {
      this.child.kill(sig);
    } catch {
      // already gone
    }
  }
}

async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const ok = await Promise.race([p.then(() => true as const), timeout]);
  clearTimeout(timer);
  return ok;
}

/**
 * Copies the streams of `input` into a faststart MP4 (index first, so players start at once), adding
 * the chapters of `metadataFile` (ffmetadata) when given, and cutting it at `maxMs` when given. No
 * re-encoding: it takes well under a second.
 */
export async function remux(ffmpegPath: string, input: string, output: string, opts: { metadataFile?: string; maxMs?: number } = {}): Promise<void> {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', input];
  if (opts.metadataFile) args.push('-i', opts.metadataFile, '-map', '0', '-map_metadata', '1', '-map_chapters', '1');
  if (opts.maxMs !== undefined) args.push('-t', (opts.maxMs / 1000).toFixed(3));
  args.push('-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', '-y', output);
  try {
    await run(ffmpegPath, args, { timeout: 120_000 });
  } catch (err) {
    const stderr = String((err as { stderr?: string }).stderr ?? '').trim().split('\n').slice(-2).join(' | ');
    throw new Error(`remux failed: ${stderr || (err as Error).message}`);
  }
}
