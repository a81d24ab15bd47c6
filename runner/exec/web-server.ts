// The app under test, started for a run: a shell command in its own process group, ready once its URL
// answers (any status below 500), and stopped as a group (SIGTERM, then SIGKILL) so nothing it spawned
// outlives the run. Used by scenarios' `web_server:` and by suite-level web servers.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

export interface WebServerOptions {
  /** A shell command line, run with `sh -c`. */
  command: string;
  /** Polled until it answers with a status below 500. */
  url: string;
  /** How long to wait for `url`; default 60 s. */
  timeoutMs?: number;
  cwd?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** When `url` already answers, use it and start nothing; `stop()` then does nothing. */
  reuseExisting?: boolean;
  /** Aborting stops the start (and the server). */
  signal?: AbortSignal;
  /** How long `stop()` waits after SIGTERM before SIGKILL; default 5 s. */
  killGraceMs?: number;
}

export interface WebServer {
  url: string;
  /** Whether an already running server was used (nothing started). */
  reused: boolean;
  /** The process group's id (the shell's pid); undefined when reused. */
  pid?: number;
  stop(): Promise<void>;
}

/** Lines of the server's output kept for the error when it does not come up. */
const TAIL_LINES = 20;
const POLL_MS = 200;
const PROBE_TIMEOUT_MS = 2_000;

/** Process groups still running, killed if this process exits without stopping them. */
const live = new Set<number>();
let exitHook = false;

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  if (opts.reuseExisting && (await answers(opts.url, PROBE_TIMEOUT_MS))) {
    return { url: opts.url, reused: true, stop: async () => {} };
  }
  if (opts.cwd !== undefined && !isDirectory(opts.cwd)) throw new Error(`web server: working directory ${opts.cwd} does not exist`);
  const child = spawn('sh', ['-c', opts.command], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = outputTail(child);
  let exited: string | undefined;
  let spawnError: Error | undefined;
  const ended = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      resolve();
    });
    child.once('error', (err) => {
      spawnError = err;
      resolve();
    });
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  if (child.pid !== undefined) track(child.pid);
  const stop = () => stopGroup(child, opts.killGraceMs ?? 5_000);

  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (spawnError) throw new Error(`web server: cannot run '${opts.command}': ${spawnError.message}`);
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (await answers(opts.url, Math.min(PROBE_TIMEOUT_MS, Math.max(100, deadline - Date.now())))) break;
      if (exited) {
        // Its last words may still be in the pipe.
        await Promise.race([closed, new Promise((r) => setTimeout(r, 300))]);
        throw new Error(`web server ${exited} before ${opts.url} answered${output.describe()}`);
      }
      if (Date.now() >= deadline) throw new Error(`web server did not answer at ${opts.url} within ${timeoutMs} ms${output.describe()}`);
      await Promise.race([new Promise((r) => setTimeout(r, POLL_MS)), ended]);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: opts.url, reused: false, pid: child.pid, stop };
}

/** Whether `url` answers with a status below 500 (a 404 at `/` still means the server is up). */
export function answers(url: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(false);
    }
    const get = target.protocol === 'https:' ? https.get : http.get;
    // No keep-alive agent: an idle pooled socket must not keep anything open after the check.
    const req = get(target, { agent: false, timeout: timeoutMs, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 500) < 500);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

async function stopGroup(child: ChildProcess, graceMs: number): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  try {
    signalGroup(pgid, 'SIGTERM');
    if (!(await groupGone(pgid, graceMs))) {
      signalGroup(pgid, 'SIGKILL');
      await groupGone(pgid, 2_000);
    }
  } finally {
    live.delete(pgid);
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is gone already
  }
}

async function groupGone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/**
 * Whether any process of the group still runs. Zombies do not count: an orphan nobody reaps (PID 1 in a
 * container without an init) would otherwise look alive forever.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(pgrp) === pgid && state !== 'Z') return true;
      } catch {
        // exited meanwhile
      }
    }
    return false;
  } catch {
    return true;
  }
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function track(pgid: number): void {
  live.add(pgid);
  if (exitHook) return;
  exitHook = true;
  // A crash or process.exit() skips every finally: still take the servers down with us.
  process.on('exit', () => {
    for (const id of live) signalGroup(id, 'SIGKILL');
  });
}

function outputTail(child: ChildProcess): { describe(): string } {
  const lines: string[] = [];
  let partial = '';
  const take = (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const parts = text.split(/\r?\n/);
    partial = parts.pop() ?? '';
    lines.push(...parts);
    if (lines.length > TAIL_LINES) lines.splice(0, lines.length - TAIL_LINES);
  };
  // Always read: a server whose pipe fills up would block on its next write.
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return {
    describe() {
      const all = [...lines, ...(partial ? [partial] : [])].slice(-TAIL_LINES);
      return all.length ? `; its last output:\n${all.join('\n')}` : '; it printed nothing';
    },
  };
}
