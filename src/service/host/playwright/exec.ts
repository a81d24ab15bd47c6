// Playwright execute for each live session: the user's code runs in a worker process (sandboxed like the
// process API's commands when there is a sandbox), never in the service, one execution at a time per
// session. Loading playwright-core costs a Node process ~300 ms or more, so a session keeps its worker
// between executions, as the hosted service keeps its Playwright daemon; a job that times out, crashes
// or breaks its process takes the worker with it, and a fresh one is started for the next call.
import { realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { unavailable } from '../errors.js';
import { HOME_DIR, TMP_DIR } from '../fs/index.js';
import { Mutex } from '../input/index.js';
import { compileUserCode } from './compile.js';
import { WORKER_SOURCE } from './worker-source.js';
import { PlaywrightWorker, type WorkerCommand, type WorkerRun } from './worker.js';
import { type Launcher, sandboxCommand, type Sandbox, asUser, DEFAULT_PATH, SANDBOX_TOOLS, TOOLS_DIRS, nodeInSandbox } from '../process/index.js';
import type { LiveSession } from '../session/index.js';

export interface ExecuteRequest {
  code: string;
  timeoutSec: number;
}

export interface ExecuteResponse {
  success: boolean;
  /** The returned value as JSON text, passed through as the worker wrote it (it may be megabytes). */
  resultJson?: string;
  error?: string;
  stdout: string;
  stderr: string;
}

export interface ExecutorOptions {
  sandbox: Sandbox | null;
  launcher: Launcher;
  /** Bytes of stdout and of stderr kept per execution; the rest is dropped and the text says so. */
  outputLimit?: number;
  /** Bytes of JSON a returned value may take. */
  resultLimit?: number;
  /** The worker's V8 heap limit: runaway code fails fast instead of pressing on the host's memory. */
  heapMb?: number;
  /** A worker nobody used for this long is stopped (it holds ~50 MB). */
  idleMs?: number;
  /** Jobs a worker runs before it is replaced, so what jobs leave behind does not pile up for ever. */
  jobsPerWorker?: number;
}

export const OUTPUT_LIMIT = 1024 * 1024;
export const RESULT_LIMIT = 32 * 1024 * 1024;
export const HEAP_MB = 1024;
const IDLE_MS = 5 * 60_000;
const JOBS_PER_WORKER = 100;

const SESSION_ENDED = 'the browser session ended while the code was running';

/** The per-session part: the lock that serialises executions, and the session's worker. */
interface SessionWorkers {
  readonly mutex: Mutex;
  worker?: PlaywrightWorker;
  /** Set while the worker is idle: stops it after idleMs. */
  idleTimer?: NodeJS.Timeout;
  prepared?: Promise<void>;
  closed: boolean;
}

export class PlaywrightExecutor {
  private readonly sessions = new Map<string, SessionWorkers>();
  /** node and playwright-core's entry for the worker (resolved here: the worker never searches for them). */
  private readonly files: WorkerFiles;
  private readonly sandbox: Sandbox | null;
  private readonly outputLimit: number;
  private readonly resultLimit: number;
  private readonly heapMb: number;
  private readonly idleMs: number;
  private readonly jobsPerWorker: number;

  constructor(private readonly opts: ExecutorOptions) {
    const host = hostFiles();
    this.outputLimit = opts.outputLimit ?? OUTPUT_LIMIT;
    this.resultLimit = opts.resultLimit ?? RESULT_LIMIT;
    this.heapMb = opts.heapMb ?? HEAP_MB;
    this.idleMs = opts.idleMs ?? IDLE_MS;
    this.jobsPerWorker = opts.jobsPerWorker ?? JOBS_PER_WORKER;
    const inSandbox = opts.sandbox && sandboxFiles(opts.sandbox, host);
    this.sandbox = inSandbox ? inSandbox.sandbox : null;
    this.files = inSandbox ? inSandbox.files : host;
  }

  /**
   * Runs `req.code` against the session's browser. Every outcome of the code (a value, a throw, a
   * timeout, a crash) is an ExecuteResponse; `cancel` resolving (the client left) kills the worker.
   */
  async execute(session: LiveSession, req: ExecuteRequest, cancel?: Promise<void>): Promise<ExecuteResponse> {
    const compiled = await compileUserCode(req.code);
    if (!compiled.ok) return { success: false, error: compiled.error, stdout: '', stderr: '' };
    let cancelled = false;
    void cancel?.then(() => (cancelled = true));
    const state = this.stateFor(session);
    return state.mutex.run(async () => {
      // A browser being restarted (extensions or a profile loaded) is reached once it is back.
      await session.ready;
      if (state.closed || session.ending) return { success: false, error: SESSION_ENDED, stdout: '', stderr: '' };
      if (cancelled) return { success: false, error: 'the client went away', stdout: '', stderr: '' };
      await (state.prepared ??= this.opts.launcher.prepareView(session.view).catch(() => undefined));
      clearTimeout(state.idleTimer);
      if (!state.worker?.usable) state.worker = this.spawn(session);
      const worker = state.worker;
      let running = true;
      // Only this job: by the time a slow client hangs up, the worker may be running the next one.
      void cancel?.then(() => running && worker.stop({ kind: 'stopped', reason: 'the client went away' }));
      // Inside the session's network the host's loopback (where the service reaches DevTools) is not there.
      const job = { wsEndpoint: this.sandbox ? (session.chromium.insideWsEndpoint ?? session.chromium.wsEndpoint) : session.chromium.wsEndpoint, code: compiled.js };
      const run = await worker.run(job, req.timeoutSec * 1000).finally(() => (running = false));
      if (!state.closed && !session.ending) this.park(state, session, worker);
      return this.toResponse(run, req.timeoutSec);
    });
  }

  /** Stops every worker (service shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.closeSession(id)));
  }

  private stateFor(session: LiveSession): SessionWorkers {
    let state = this.sessions.get(session.id);
    if (!state) {
      state = { mutex: new Mutex(), closed: false };
      this.sessions.set(session.id, state);
      // Runs before Chromium is killed: a running execution answers that the session ended.
      session.cleanups.push(() => this.closeSession(session.id));
    }
    return state;
  }

  /** A pool lease ended: its worker (and whatever globals it kept) goes; the next holder gets a new one. */
  release(id: string): Promise<void> {
    return this.closeSession(id);
  }

  private async closeSession(id: string): Promise<void> {
    const state = this.sessions.get(id);
    if (!state) return;
    this.sessions.delete(id);
    state.closed = true;
    clearTimeout(state.idleTimer);
    // A running job answers that the session ended; an idle worker just goes.
    state.worker?.stop({ kind: 'stopped', reason: SESSION_ENDED });
    await state.worker?.kill();
  }

  /**
   * Keeps the worker for the session's next call, or (when a job broke it, or it ran its share of jobs)
   * starts its replacement now, so the next call does not wait for playwright-core to load.
   */
  private park(state: SessionWorkers, session: LiveSession, worker: PlaywrightWorker): void {
    if (!worker.usable || worker.jobs >= this.jobsPerWorker) {
      void worker.kill();
      state.worker = this.spawn(session);
    }
    const idle = state.worker;
    state.idleTimer = setTimeout(() => {
      if (state.worker !== idle) return;
      state.worker = undefined;
      void idle?.kill();
    }, this.idleMs);
    state.idleTimer.unref();
  }

  private spawn(session: LiveSession): PlaywrightWorker {
    return new PlaywrightWorker(this.command(session), this.outputLimit);
  }

  /** The worker's command line: as the session's default user, sandboxed or on the host. */
  private command(session: LiveSession): WorkerCommand {
    const nodeArgs = [
      `--max-old-space-size=${this.heapMb}`,
      '--input-type=module',
      '-e',
      WORKER_SOURCE,
      this.files.playwright,
      String(this.resultLimit),
    ];
    const { view } = session;
    const identity = this.opts.launcher.defaultIdentity(view);
    const base = { PATH: DEFAULT_PATH, USER: identity.name, LOGNAME: identity.name, LANG: 'C.UTF-8' };
    if (this.sandbox) {
      // bwrap clears the environment, so the IPC channel's fd (3, the fourth stdio entry) is named again.
      const env = { ...base, HOME: HOME_DIR, NODE_CHANNEL_FD: '3', NODE_CHANNEL_SERIALIZATION_MODE: 'json' };
      const netns = session.network?.netns;
      const cmd = sandboxCommand(this.sandbox, { view, cwd: HOME_DIR, env, identity, newSession: true, command: this.files.node, args: nodeArgs, netns });
      return { ...cmd, env: { PATH: DEFAULT_PATH }, cwd: '/', sandboxed: true };
    }
    const home = view.hostPath(HOME_DIR);
    const env = { ...base, HOME: home, TMPDIR: view.hostPath(TMP_DIR) };
    if (process.getuid?.() !== 0) return { file: this.files.node, args: nodeArgs, env, cwd: home, sandboxed: false };
    // Unsandboxed, a root service runs it as the session's own uid, like the session's other processes.
    const unreadable = [this.files.node, this.files.playwright].find((file) => !readableByAll(file));
    if (unreadable) {
      throw unavailable('playwright_unavailable', `the Playwright worker runs as the session's own user, who cannot read ${unreadable}: install bcs where every user can read it, or install bubblewrap`);
    }
    const cmd = asUser(identity, this.files.node, nodeArgs);
    return { file: cmd.file, args: cmd.args, env, cwd: home, sandboxed: false, ...cmd.spawnAs };
  }

  private toResponse(run: WorkerRun, timeoutSec: number): ExecuteResponse {
    const { end, stdout, stderr } = run;
    switch (end.kind) {
      case 'result':
        return end.ok ? { success: true, resultJson: end.json, stdout, stderr } : { success: false, error: end.error, stdout, stderr };
      case 'timeout':
        return { success: false, error: `execution timed out after ${timeoutSec} s`, stdout, stderr };
      case 'stopped':
        return { success: false, error: end.reason, stdout, stderr };
      case 'exited': {
        let error: string;
        if (!end.started) error = `the Playwright worker failed to start (${end.signal ?? `exit code ${end.code}`}); its stderr says why`;
        else if (/heap out of memory/i.test(stderr)) error = `the code ran out of memory (its process may use ${this.heapMb} MiB of heap)`;
        else if (end.signal) error = `the code's process was killed by ${end.signal} before the code returned`;
        else error = `the code ended its process (exit code ${end.code}) before it returned`;
        return { success: false, error, stdout, stderr };
      }
    }
  }
}

interface WorkerFiles {
  node: string;
  /** playwright-core's CommonJS entry. */
  playwright: string;
}

/** Whether any user may read `file`: it is world-readable and every folder above it world-passable. */
function readableByAll(file: string): boolean {
  try {
    if ((statSync(file).mode & 0o004) === 0) return false;
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) return false;
      if (dir === dirname(dir)) return true;
    }
  } catch {
    return false;
  }
}

/** Resolved from this module, so neither the cwd nor NODE_PATH decides which playwright-core runs. */
function hostFiles(): WorkerFiles {
  const require = createRequire(import.meta.url);
  return { node: realpathSync(process.execPath), playwright: realpathSync(require.resolve('playwright-core')) };
}

/**
 * The sandbox plus, read-only, what the worker needs of the host: playwright-core's folder (and node, if
 * it is not under /usr), bound under SANDBOX_TOOLS; and where the worker finds them in there. bwrap
 * creates the folders above a mount point with mode 0700, which the unprivileged user could not pass
 * through, so those are made first.
 */
function sandboxFiles(sandbox: Sandbox, host: WorkerFiles): { sandbox: Sandbox; files: WorkerFiles } {
  const packageDir = dirname(realpathSync(createRequire(host.playwright).resolve('playwright-core/package.json')));
  const node = nodeInSandbox(host.node);
  const binds = [...TOOLS_DIRS, '--ro-bind', packageDir, join(SANDBOX_TOOLS, 'playwright-core'), ...node.binds];
  const files = { node: node.path, playwright: join(SANDBOX_TOOLS, 'playwright-core', relative(packageDir, host.playwright)) };
  return { sandbox: { ...sandbox, systemArgs: [...sandbox.systemArgs, ...binds] }, files };
}

/** The wire body, with the returned value's JSON spliced in rather than parsed and printed again. */
export function responseBody(r: ExecuteResponse): string {
  const fields = [`"success":${r.success}`];
  if (r.resultJson !== undefined) fields.push(`"result":${r.resultJson}`);
  if (r.error !== undefined) fields.push(`"error":${JSON.stringify(r.error)}`);
  fields.push(`"stdout":${JSON.stringify(r.stdout)}`, `"stderr":${JSON.stringify(r.stderr)}`);
  return `{${fields.join(',')}}`;
}
