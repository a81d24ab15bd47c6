// The processes of each live session: exec (run to completion, output collected up to a cap) and spawn
// (run in the background, output streamed). Every process of a session is killed when it ends.
import type { ProcessSpawnParams } from '../../../api/schemas/process.js';
import type { ExecResult } from '../../../api/schemas/process.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { ManagedProcess, type OutputSink } from './managed-process.js';
import type { Launcher, ProcessRequest, SessionNetworkRef } from './launch.js';
import { OutputLog, type OutputChunk } from './output.js';
import type { HostView } from '../fs/index.js';
import type { SessionScope } from '../session-scope.js';

/** The session a process table belongs to. */
export interface ProcessOwner extends SessionScope {
  readonly view: HostView;
  /** The session's own network, which its sandboxed processes join. */
  readonly network?: SessionNetworkRef;
}

/** Per stream: exec output past this is drained and dropped (and reported as truncated), not held. */
export const EXEC_OUTPUT_LIMIT = 64 * 1024 * 1024;
/** Exited processes kept per session for status and late stream clients; the oldest go first. */
const EXITED_KEPT = 64;
/** How long ending a session waits for its processes to be gone. */
const KILL_WAIT_MS = 5000;

export type SpawnRequest = ProcessSpawnParams;

export interface SpawnedProcess {
  process: ManagedProcess;
  output: OutputLog;
}

export class SessionProcesses {
  private readonly procs = new Map<string, SpawnedProcess>();
  /** Exec processes are not addressable by id but die with the session all the same. */
  private readonly execs = new Set<ManagedProcess>();
  private prepared: Promise<void> | undefined;
  private closed = false;

  constructor(
    readonly session: ProcessOwner,
    private readonly launcher: Launcher,
  ) {}

  /** Runs a command to completion. `cancel` resolves if the client goes away: the process is killed then. */
  /** `input` names where the request came from (`body`), for the fields of 400s. */
  async exec(req: ProcessRequest, input: string, cancel?: Promise<void>): Promise<ExecResult> {
    const plan = await this.plan(req, false, input);
    const collector = new Collector(EXEC_OUTPUT_LIMIT);
    const started = Date.now();
    const proc = await this.start(() =>
      ManagedProcess.start(plan, { stdin: false, timeoutSec: req.timeout_sec ?? undefined, sink: () => collector }),
      input,
    );
    this.execs.add(proc);
    void cancel?.then(() => proc.killAll());
    try {
      const exitCode = await proc.exited;
      return {
        exit_code: exitCode,
        duration_ms: Date.now() - started,
        stdout_b64: collector.text('stdout'),
        stderr_b64: collector.text('stderr'),
        timed_out: proc.timedOut,
        stdout_truncated: collector.truncated.stdout,
        stderr_truncated: collector.truncated.stderr,
      };
    } finally {
      this.execs.delete(proc);
    }
  }

  async spawn(req: SpawnRequest, input: string): Promise<ManagedProcess> {
    // rows and cols are ignored without a PTY, as the hosted API documents.
    const tty = req.allocate_tty ? { rows: req.rows ?? 24, cols: req.cols ?? 80 } : undefined;
    const plan = await this.plan(req, tty !== undefined, input);
    let output: OutputLog | undefined;
    const proc = await this.start(() =>
      ManagedProcess.start(plan, {
        tty,
        stdin: true,
        timeoutSec: req.timeout_sec ?? undefined,
        sink: (flow) => (output = new OutputLog(flow)),
      }),
      input,
    );
    this.procs.set(proc.id, { process: proc, output: output! });
    void proc.exited.then(() => this.forgetOldExited());
    return proc;
  }

  get(processId: string): SpawnedProcess {
    const found = this.procs.get(processId);
    if (!found) throw notFound('process', processId);
    return found;
  }

  /** Kills every process of the session and waits (boundedly) until they are gone. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.execs, ...[...this.procs.values()].map((p) => p.process)].filter((p) => p.running);
    await Promise.all(all.map((p) => p.killAll()));
    await Promise.race([Promise.all(all.map((p) => p.exited)), new Promise((r) => setTimeout(r, KILL_WAIT_MS).unref())]);
  }

  private async plan(req: ProcessRequest, tty: boolean, input: string) {
    this.assertOpen();
    this.prepared ??= this.launcher.prepareView(this.session.view);
    await this.prepared;
    return this.launcher.plan(this.session.view, req, tty, input, this.session.network);
  }

  /** Starts a process unless the session began ending meanwhile (its cleanup would not see it). */
  private async start(launch: () => Promise<ManagedProcess>, input: string): Promise<ManagedProcess> {
    this.assertOpen();
    let proc: ManagedProcess;
    try {
      proc = await launch();
    } catch (err) {
      throw invalidField(`${input}.command`, `could not be started: ${(err as Error).message}`);
    }
    if (this.closed || this.session.ending) {
      await proc.killAll();
      throw notFound('browser', this.session.id);
    }
    return proc;
  }

  private assertOpen(): void {
    if (this.closed || this.session.ending) throw notFound('browser', this.session.id);
  }

  private forgetOldExited(): void {
    const exited = [...this.procs.values()].filter((p) => !p.process.running);
    for (const old of exited.slice(0, Math.max(0, exited.length - EXITED_KEPT))) this.procs.delete(old.process.id);
  }
}

/** The per-session process tables, created on first use; each registers its own end-of-session kill. */
export class ProcessRegistry {
  private readonly bySession = new WeakMap<ProcessOwner, SessionProcesses>();

  constructor(private readonly launcher: Launcher) {}

  forSession(session: ProcessOwner): SessionProcesses {
    let procs = this.bySession.get(session);
    if (!procs) {
      const created = new SessionProcesses(session, this.launcher);
      procs = created;
      this.bySession.set(session, created);
      session.cleanups.push(() => created.closeAll());
    }
    return procs;
  }

  /** A pool lease ended: its processes die with it, and the next holder starts with an empty table. */
  async release(session: ProcessOwner): Promise<void> {
    const procs = this.bySession.get(session);
    if (!procs) return;
    this.bySession.delete(session);
    await procs.closeAll();
  }
}

/** Collects exec output up to `limit` bytes per stream and keeps draining (never blocking) past it. */
class Collector implements OutputSink {
  private readonly parts = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  private readonly sizes = { stdout: 0, stderr: 0 };
  readonly truncated = { stdout: false, stderr: false };

  constructor(private readonly limit: number) {}

  append({ stream, data }: OutputChunk): void {
    const room = this.limit - this.sizes[stream];
    if (data.length > room) this.truncated[stream] = true;
    if (room <= 0) return;
    const kept = data.length > room ? data.subarray(0, room) : data;
    this.parts[stream].push(kept);
    this.sizes[stream] += kept.length;
  }

  finish(): void {}

  text(stream: 'stdout' | 'stderr'): string {
    return Buffer.concat(this.parts[stream]).toString('base64');
  }
}

export function ensureRunning(proc: ManagedProcess, action: string): void {
  if (!proc.running) throw conflict(`process ${proc.id} has exited (code ${proc.exitCode}); cannot ${action}`);
}
