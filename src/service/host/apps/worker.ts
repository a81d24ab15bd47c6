// One action worker: a Node process (sandboxed when the service has a sandbox) that loads a deployment's
// bundle, reports its apps, then runs at most one invocation. Whatever the app does to its process stays
// there: the service sees messages, output lines and the exit, and kills the whole process group.
import { spawn, type ChildProcess } from 'node:child_process';
import { signalPid } from '../process/index.js';
import { OUTPUT_END, type InvokeMessage, type WorkerMessage } from './runtime-entry.js';

export interface WorkerCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface DiscoveredApp {
  name: string;
  actions: { name: string }[];
}

export type WorkerOutcome =
  | { kind: 'result'; ok: true; output: string }
  | { kind: 'result'; ok: false; error: string }
  | { kind: 'exited'; detail: string };

/** A line the worker wrote, with the stream it came from. */
export type OutputLine = (line: string, stream: 'stdout' | 'stderr') => void;

/** Output of a line longer than this is cut: one line is one log event. */
const MAX_LINE = 64 * 1024;
const OUTPUT_END_WAIT_MS = 2_000;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Lines kept while nobody listens yet (a spare loading): handed to the first listener. */
const MAX_BUFFERED = 1000;

export class ActionWorker {
  /** Resolves with the apps once the bundle loaded; rejects with the load error or the exit. */
  readonly ready: Promise<DiscoveredApp[]>;
  private readonly child: ChildProcess;
  private readonly exited: Promise<string>;
  private listener: OutputLine | undefined;
  private buffered: [string, 'stdout' | 'stderr'][] = [];
  private onResult: ((m: Extract<WorkerMessage, { type: 'result' }>) => void) | undefined;
  /** Streams whose end-of-output marker has arrived since the invocation started. */
  private readonly outputEnded = new Set<'stdout' | 'stderr'>();
  private onOutputEnded: (() => void) | undefined;
  private dead = false;
  /** Set once the worker was handed an invocation; a worker runs one. */
  used = false;

  constructor(cmd: WorkerCommand, private readonly onExit: () => void = () => {}) {
    this.child = spawn(cmd.file, cmd.args, {
      env: cmd.env,
      cwd: cmd.cwd,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
      // Its own process group, so kill() takes whatever the app started with it.
      detached: true,
    });
    for (const stream of ['stdout', 'stderr'] as const) this.readLines(stream);
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => resolve(`could not start: ${err.message}`));
      this.child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
    });
    void this.exited.then(() => {
      this.dead = true;
      this.onExit();
    });
    this.ready = new Promise<DiscoveredApp[]>((resolve, reject) => {
      this.child.on('message', (msg: WorkerMessage) => {
        if (msg?.type === 'ready') resolve(msg.apps);
        else if (msg?.type === 'load_error') reject(new WorkerLoadError(msg.message));
        else if (msg?.type === 'result') this.onResult?.(msg);
      });
      void this.exited.then((detail) => reject(new WorkerLoadError(`the app's process ended before it loaded (${detail})`)));
    });
    // Nobody may be waiting yet (a spare); its failure is read when it is used.
    this.ready.catch(() => {});
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** Where output lines go from now on; lines written before are handed over first. */
  listen(listener: OutputLine): void {
    this.listener = listener;
    for (const [line, stream] of this.buffered) listener(line, stream);
    this.buffered = [];
  }

  /** Runs one invocation; resolves with its result, or with the exit when the process ended first. */
  async run(msg: Omit<InvokeMessage, 'type'>): Promise<WorkerOutcome> {
    this.used = true;
    // Every output line before the result is handed on before the result is: the worker marks the end of
    // its output on both pipes before it sends the result (a closed pipe or a hung write waits at most 2 s).
    const outputEnded = new Promise<void>((resolve) => (this.onOutputEnded = () => this.outputEnded.size === 2 && resolve()));
    const result = new Promise<WorkerOutcome>((resolve) => {
      this.onResult = (m) => {
        const outcome: WorkerOutcome = m.ok ? { kind: 'result', ok: true, output: m.output } : { kind: 'result', ok: false, error: m.error };
        void Promise.race([outputEnded, delay(OUTPUT_END_WAIT_MS)]).then(() => resolve(outcome));
      };
    });
    const exit = this.exited.then((detail): WorkerOutcome => ({ kind: 'exited', detail }));
    if (!this.dead) this.child.send({ type: 'invoke', ...msg } satisfies InvokeMessage, (err) => err && this.kill());
    return Promise.race([result, exit]);
  }

  /** Kills the process group (SIGKILL); resolves when the process is gone. */
  async kill(): Promise<void> {
    if (!this.dead && this.child.pid) {
      // The group first, then the leader, in case it left its group.
      signalPid(-this.child.pid, 'SIGKILL');
      signalPid(this.child.pid, 'SIGKILL');
    }
    await this.exited;
  }

  private readLines(stream: 'stdout' | 'stderr'): void {
    let pending = '';
    const source = this.child[stream]!;
    source.setEncoding('utf8');
    const emit = (line: string) => {
      if (line.endsWith(OUTPUT_END)) {
        // Text the app wrote without a newline ends up before the marker: it is a line of its own.
        if (line.length > OUTPUT_END.length) emit(line.slice(0, -OUTPUT_END.length));
        this.outputEnded.add(stream);
        this.onOutputEnded?.();
        return;
      }
      const text = line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}… (cut)` : line;
      if (this.listener) this.listener(text, stream);
      else if (this.buffered.length < MAX_BUFFERED) this.buffered.push([text, stream]);
    };
    source.on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        emit(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
      if (pending.length > MAX_LINE) {
        emit(pending);
        pending = '';
      }
    });
    source.on('end', () => pending && emit(pending));
  }
}

/** The bundle failed to load, or the process ended before it did; the message says which. */
export class WorkerLoadError extends Error {
  override name = 'WorkerLoadError';
}
