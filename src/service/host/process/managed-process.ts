// One process started through the API, on pipes or on a PTY, in its own process group (and, when
// sandboxed, its own bwrap sandbox). It knows how to signal what the client thinks of as "the process"
// (its process group, never the bwrap processes around it), how to kill everything it started, and
// how much CPU and memory that is using.
import { createRequire } from 'node:module';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import type ptyTypes from 'node-pty';
import type { LaunchPlan } from './launch.js';
import type { FlowControl, OutputChunk } from './output.js';
import { CLOCK_TICKS_PER_SECOND, ProcTable, residentBytes, signalPid, type ProcEntry } from './proc-table.js';
import { hostReaper } from './reaper.js';

/** Where output goes: a streaming log for spawn, a capped collector for exec. */
export interface OutputSink {
  append(chunk: OutputChunk): void;
  finish(exitCode: number): void;
}

export interface StartOptions {
  tty?: { rows: number; cols: number };
  /** Exec gives its process /dev/null; spawned processes get a stdin pipe. */
  stdin: boolean;
  timeoutSec?: number;
  sink: (flow: FlowControl) => OutputSink;
}

/** Reported (as `timeout` does) when a process was killed for running past its timeout_sec. */
export const TIMEOUT_EXIT_CODE = 124;
/** How long output pipes may stay open after the process exited (held by something that escaped). */
const CLOSE_GRACE_MS = 2000;

interface Backend {
  readonly pid: number;
  write(data: Buffer): void;
  resize?(cols: number, rows: number): void;
  flow: FlowControl;
}

export class ManagedProcess {
  readonly id = randomUUID();
  readonly startedAt = new Date();
  exitCode: number | null = null;
  timedOut = false;
  /** Resolves with the exit code once the process has exited and its output has been delivered. */
  readonly exited: Promise<number>;
  private resolveExited!: (code: number) => void;
  // Both set by start() before any output or exit can arrive (those are always later events).
  private backend!: Backend;
  private sink!: OutputSink;
  private timer: NodeJS.Timeout | undefined;
  private cpuSample: { atMs: number; ticks: number; pct: number } | undefined;

  private constructor(
    readonly plan: LaunchPlan,
    readonly tty: boolean,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
  }

  /** Starts `plan`; throws the spawn error (EACCES, ...) if it could not start at all. */
  static async start(plan: LaunchPlan, opts: StartOptions): Promise<ManagedProcess> {
    const proc = new ManagedProcess(plan, opts.tty !== undefined);
    const onExit = (code: number | null, signal: NodeJS.Signals | number | null) => proc.onExit(code, signal);
    if (opts.tty) {
      proc.backend = startPty(proc, plan, opts.tty, onExit);
    } else {
      const pipes = startPipes(proc, plan, opts.stdin, onExit);
      if (pipes.child.pid === undefined) throw await new Promise<Error>((resolve) => pipes.child.once('error', resolve));
      proc.backend = pipes;
    }
    proc.sink = opts.sink(proc.backend.flow);
    if (opts.timeoutSec) {
      proc.timer = setTimeout(() => {
        proc.timedOut = true;
        void proc.killAll();
      }, opts.timeoutSec * 1000);
      proc.timer.unref();
    }
    return proc;
  }

  get pid(): number {
    return this.backend.pid;
  }

  get running(): boolean {
    return this.exitCode === null;
  }

  /** @internal the backends deliver output here. */
  emit(chunk: OutputChunk): void {
    this.sink.append(chunk);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | number | null): void {
    clearTimeout(this.timer);
    const exitCode = this.timedOut ? TIMEOUT_EXIT_CODE : toExitCode(code, signal);
    this.exitCode = exitCode;
    this.sink.finish(exitCode);
    this.resolveExited(exitCode);
  }

  write(data: Buffer): void {
    this.backend.write(data);
  }

  resize(cols: number, rows: number): void {
    this.backend.resize?.(cols, rows);
  }

  /**
   * Signals the process's group. Sandboxed, that group may include the bwrap processes around the
   * command (on a PTY) which must not get it: a TERM to bwrap would turn into a KILL of everything.
   */
  async signal(signal: NodeJS.Signals): Promise<void> {
    if (!this.running) return;
    if (!this.plan.sandboxed) return signalGroup(this.pid, signal);
    const table = await ProcTable.read();
    const init = table.children(this.pid)[0];
    const command = init && table.children(init.pid)[0];
    if (!init || !command) return signalPid(this.pid, signal); // still starting: bwrap passes the fate on
    for (const member of table.group(command.pgrp)) {
      if (member.pid !== this.pid && member.pid !== init.pid) signalPid(member.pid, signal);
    }
  }

  /** SIGKILLs everything the process started: its group and every descendant still attached to it. */
  async killAll(): Promise<void> {
    if (!this.running) return;
    const table = await ProcTable.read();
    const below = table.descendants(this.pid);
    for (const e of below) signalPid(e.pid, 'SIGKILL');
    if (this.plan.sandboxed && below.length > 0) {
      // Killing the sandbox's init ends its pid namespace; the outer bwrap then reaps it and exits on
      // its own. Killing that bwrap too would orphan the init to the host's pid 1 as a zombie.
      const grace = setTimeout(() => this.running && signalPid(this.pid, 'SIGKILL'), 1000);
      grace.unref();
      return;
    }
    signalGroup(this.pid, 'SIGKILL');
    signalPid(this.pid, 'SIGKILL');
  }

  /** CPU use since the previous call (or since start) and resident memory of the process's tree. */
  async usage(): Promise<{ cpu_pct: number; mem_bytes: number }> {
    if (!this.running) return { cpu_pct: 0, mem_bytes: 0 };
    const table = await ProcTable.read();
    const members = this.members(table);
    const ticks = members.reduce((sum, e) => sum + e.cpuTicks, 0);
    const memory = (await Promise.all(members.map((e) => residentBytes(e.pid)))).reduce((a, b) => a + b, 0);
    const now = Date.now();
    const last = this.cpuSample ?? { atMs: this.startedAt.getTime(), ticks: 0, pct: 0 };
    // Samples closer together than this are mostly rounding of 10 ms ticks: repeat the last figure.
    let pct = last.pct;
    if (now - last.atMs >= 200) {
      pct = Math.max(0, ((ticks - last.ticks) / CLOCK_TICKS_PER_SECOND / ((now - last.atMs) / 1000)) * 100);
      this.cpuSample = { atMs: now, ticks, pct };
    }
    return { cpu_pct: Math.round(pct * 10) / 10, mem_bytes: memory };
  }

  /** The processes that count as this one: sandboxed, everything in the sandbox but bwrap itself. */
  private members(table: ProcTable): ProcEntry[] {
    if (this.plan.sandboxed) {
      const init = table.children(this.pid)[0];
      return init ? table.descendants(init.pid) : [];
    }
    const seen = new Map<number, ProcEntry>();
    for (const e of [table.get(this.pid), ...table.descendants(this.pid), ...table.group(this.pid)]) if (e) seen.set(e.pid, e);
    return [...seen.values()];
  }
}

function startPipes(
  self: ManagedProcess,
  plan: LaunchPlan,
  stdin: boolean,
  onExit: (code: number | null, signal: NodeJS.Signals | null) => void,
): Backend & { child: ChildProcess } {
  const child = spawn(plan.file, plan.args, {
    cwd: plan.cwd,
    env: plan.env,
    uid: plan.uid,
    gid: plan.gid,
    // Its own process group, so one signal reaches everything it forks.
    detached: true,
    stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  child.on('error', () => undefined); // reported by start() or, after start, by the exit below
  child.stdin?.on('error', () => undefined); // EPIPE once the process stops reading
  // Its group dies with the service too, even a service killed outright (reaper.ts).
  if (child.pid !== undefined) hostReaper().watchGroup(child.pid);
  child.stdout!.on('data', (data: Buffer) => self.emit({ stream: 'stdout', data }));
  child.stderr!.on('data', (data: Buffer) => self.emit({ stream: 'stderr', data }));
  child.once('exit', (code, signal) => {
    // What it left behind dies with it, as it does in the sandbox when the pid namespace ends.
    if (!plan.sandboxed && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    if (child.pid !== undefined) hostReaper().forgetGroup(child.pid);
    const grace = setTimeout(() => {
      child.stdout!.destroy();
      child.stderr!.destroy();
    }, CLOSE_GRACE_MS);
    child.once('close', () => {
      clearTimeout(grace);
      onExit(code, signal);
    });
  });
  return {
    child,
    get pid() {
      return child.pid ?? -1;
    },
    write: (data) => {
      child.stdin!.write(data);
    },
    flow: {
      pause: () => {
        child.stdout!.pause();
        child.stderr!.pause();
      },
      resume: () => {
        child.stdout!.resume();
        child.stderr!.resume();
      },
    },
  };
}

function startPty(
  self: ManagedProcess,
  plan: LaunchPlan,
  size: { rows: number; cols: number },
  onExit: (code: number | null, signal: number | null) => void,
): Backend {
  // Loaded on the first PTY, not with the service.
  const pty = createRequire(import.meta.url)('node-pty') as typeof ptyTypes;
  const term = pty.spawn(plan.file, plan.args, {
    name: plan.env.TERM ?? 'xterm-256color',
    cols: size.cols,
    rows: size.rows,
    cwd: plan.cwd,
    env: plan.env,
    uid: plan.uid,
    gid: plan.gid,
    encoding: null, // raw bytes: output is relayed as base64, and UTF-8 may split across reads
  });
  hostReaper().watchGroup(term.pid); // a PTY's process leads its own session and group
  term.onData((data) => self.emit({ stream: 'stdout', data: Buffer.from(data as unknown as Uint8Array) }));
  // node-pty reports exit once the terminal's output has been read to the end.
  term.onExit(({ exitCode, signal }) => {
    if (!plan.sandboxed) signalGroup(term.pid, 'SIGKILL');
    hostReaper().forgetGroup(term.pid);
    onExit(signal ? null : exitCode, signal || null);
  });
  return {
    pid: term.pid,
    write: (data) => term.write(data),
    resize: (cols, rows) => term.resize(cols, rows),
    flow: { pause: () => term.pause(), resume: () => term.resume() },
  };
}

/** Exit status as a shell reports it: the code, or 128 + the number of the signal that killed it. */
function toExitCode(code: number | null, signal: NodeJS.Signals | number | null): number {
  if (code !== null) return code;
  if (typeof signal === 'number') return 128 + signal;
  if (signal) return 128 + (constants.signals[signal] ?? 0);
  return -1;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  signalPid(-pgid, signal);
}
