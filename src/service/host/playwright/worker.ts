// One Playwright worker: a Node process (sandboxed when the service has a sandbox) that loads
// playwright-core once and then runs a session's jobs one at a time. Whatever a job does to its process
// (exit, spin, run out of memory) stays there: the service only sees a message, an exit or its own
// timer, and kills the worker when a job did not end cleanly, so the next job gets a fresh one.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { JobOutput } from './output.js';
import { ProcTable, signalPid } from '../process/index.js';

export interface WorkerCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** bwrap stands between the service and node: killing then goes through the sandbox's init. */
  sandboxed: boolean;
  /** Who the worker runs as on the host, when not the service itself (a root service without a sandbox). */
  uid?: number;
  gid?: number;
}

export interface WorkerJob {
  wsEndpoint: string;
  /** JavaScript that evaluates to `async (page, context, browser) => ...`. */
  code: string;
}

export type WorkerEnd =
  | { kind: 'result'; ok: true; json: string }
  | { kind: 'result'; ok: false; error: string }
  /** `started`: whether playwright-core had loaded, i.e. whether the user's code could have caused it. */
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null; started: boolean }
  | { kind: 'timeout' }
  | { kind: 'stopped'; reason: string };

export interface WorkerRun {
  end: WorkerEnd;
  stdout: string;
  stderr: string;
}

/** How long output may take to reach its marker after the answer, and pipes to close after an exit. */
const GRACE_MS = 2000;
/** Loading playwright-core is the worker's business, not the job's: it has its own limit. */
const START_TIMEOUT_MS = 30_000;

interface Job {
  stdout: JobOutput;
  stderr: JobOutput;
  settle: (end: WorkerEnd) => void;
}

export class PlaywrightWorker {
  /** Resolves once playwright-core is loaded; rejects if the worker died first. */
  readonly ready: Promise<void>;
  /** Jobs this worker has run (it is replaced after a number of them). */
  jobs = 0;
  private readonly child: ChildProcess;
  private readonly closed: Promise<void>;
  private started = false;
  private exited = false;
  /** Set when the worker must not take another job: it said so, or a job did not end cleanly. */
  private spent = false;
  private job: Job | undefined;

  constructor(
    private readonly command: WorkerCommand,
    private readonly outputLimit: number,
  ) {
    this.child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env,
      uid: command.uid,
      gid: command.gid,
      // Its own process group, so what the user's code forks can be found and killed with it.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const child = this.child;
    // Drained all the time (a full pipe would block the worker); kept only while a job runs.
    child.stdout!.on('data', (data: Buffer) => this.job?.stdout.push(data));
    child.stderr!.on('data', (data: Buffer) => this.job?.stderr.push(data));
    let closedResolve!: () => void;
    this.closed = new Promise((resolve) => (closedResolve = resolve));
    child.once('close', () => closedResolve());
    this.ready = new Promise<void>((resolve, reject) => {
      child.on('message', (msg: unknown) => {
        if (isMessage(msg, 'ready')) {
          this.started = true;
          resolve();
        } else if (isMessage(msg, 'done')) {
          if (msg.last === true) this.spent = true;
          this.job?.settle(toResult(msg));
        }
      });
      child.on('error', (err) => {
        // Without a pid it never started, and no 'close' will come; otherwise its IPC channel failed.
        if (child.pid === undefined) {
          this.exited = true;
          closedResolve();
        }
        reject(new Error(`could not start the Playwright worker: ${err.message}`));
        this.stop({ kind: 'stopped', reason: `the Playwright worker failed: ${err.message}` });
      });
      child.once('exit', (code, signal) => {
        this.exited = true;
        reject(new Error(`the Playwright worker exited during start (${signal ?? `code ${code}`})`));
        this.job?.settle({ kind: 'exited', code, signal, started: this.started });
        // What the code left behind dies with it, as it does in the sandbox when its pid namespace ends.
        if (!command.sandboxed && child.pid !== undefined) signalPid(-child.pid, 'SIGKILL');
        const grace = setTimeout(() => {
          child.stdout!.destroy();
          child.stderr!.destroy();
          if (child.connected) child.disconnect();
        }, GRACE_MS);
        grace.unref();
        void this.closed.then(() => clearTimeout(grace));
      });
    });
    this.ready.catch(() => undefined);
  }

  /** Whether the worker can take a job now (it may still be loading). */
  get usable(): boolean {
    return !this.exited && !this.spent && !this.job;
  }

  /** Runs one job. Resolves once the job's output is complete; the worker is killed unless it ended cleanly. */
  async run(job: WorkerJob, timeoutMs: number): Promise<WorkerRun> {
    if (!this.usable) throw new Error('this Playwright worker cannot take a job');
    this.jobs++;
    const marker = `\u0000bcs-job-end-${randomBytes(12).toString('hex')}\u0000`;
    const markerBytes = Buffer.from(marker);
    let settle!: (end: WorkerEnd) => void;
    const ended = new Promise<WorkerEnd>((resolve) => (settle = resolve));
    const current: Job = {
      stdout: new JobOutput(markerBytes, this.outputLimit, 'stdout'),
      stderr: new JobOutput(markerBytes, this.outputLimit, 'stderr'),
      settle: (end) => settle(end),
    };
    this.job = current;
    // The job's clock starts when the code is handed over; a cold worker may first take a while to load.
    let timer = setTimeout(() => this.stop({ kind: 'stopped', reason: `the Playwright worker did not start within ${START_TIMEOUT_MS / 1000} s` }), START_TIMEOUT_MS);
    try {
      const loaded = await Promise.race([this.ready.then(() => true, () => false), ended.then(() => false)]);
      clearTimeout(timer);
      if (loaded) {
        timer = setTimeout(() => this.stop({ kind: 'timeout' }), timeoutMs);
        this.child.send({ type: 'run', ...job, marker }, (err) => {
          if (err) this.stop({ kind: 'stopped', reason: `could not hand the code to its worker: ${err.message}` });
        });
      }
      const end = await ended;
      clearTimeout(timer);
      if (end.kind === 'result' && (await this.outputComplete(current))) {
        return { end, stdout: current.stdout.finish(), stderr: current.stderr.finish() };
      }
      // Anything else leaves the worker in a state nobody can vouch for: it goes, with all it started.
      this.spent = true;
      await this.kill();
      return { end, stdout: current.stdout.finish(), stderr: current.stderr.finish() };
    } finally {
      clearTimeout(timer);
      this.job = undefined;
    }
  }

  /** Ends the running job (if any) with `end` and kills the worker. */
  stop(end: WorkerEnd): void {
    this.spent = true;
    this.job?.settle(end);
    void this.kill();
  }

  /** SIGKILLs the worker and everything it started; resolves once its pipes are closed. */
  async kill(): Promise<void> {
    this.spent = true;
    if (!this.exited && this.child.pid !== undefined) await killTree(this.child.pid, this.command.sandboxed);
    await this.closed;
  }

  /** Waits for the job's marker on both streams; false if it never came (the code broke its stdio). */
  private async outputComplete(job: Job): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), GRACE_MS)));
    const both = Promise.all([job.stdout.ended, job.stderr.ended]).then(() => true);
    const gone = this.closed.then(() => false);
    try {
      return await Promise.race([both, late, gone]);
    } finally {
      clearTimeout(timer);
    }
  }
}

function isMessage(msg: unknown, type: string): msg is Record<string, unknown> {
  return typeof msg === 'object' && msg !== null && (msg as { type?: unknown }).type === type;
}

function toResult(msg: Record<string, unknown>): WorkerEnd {
  if (msg.ok === true && typeof msg.json === 'string') return { kind: 'result', ok: true, json: msg.json };
  return { kind: 'result', ok: false, error: typeof msg.error === 'string' ? msg.error : 'the code failed' };
}

/**
 * Kills `pid` and its descendants. Sandboxed, killing the sandbox's init ends its pid namespace and bwrap
 * then exits by itself (killing bwrap first would orphan that init), so bwrap only gets a late KILL.
 */
async function killTree(pid: number, sandboxed: boolean): Promise<void> {
  const below = (await ProcTable.read()).descendants(pid);
  for (const e of below) signalPid(e.pid, 'SIGKILL');
  if (sandboxed && below.length > 0) {
    setTimeout(() => signalPid(pid, 'SIGKILL'), 1000).unref();
    return;
  }
  signalPid(-pid, 'SIGKILL');
  signalPid(pid, 'SIGKILL');
}
