// Live browser sessions: launches Chromium for each (or adopts one launched ahead of time), and ends each
// exactly once with a recorded reason (DELETE, inactivity, Chromium exiting, service shutdown). The
// database holds the record; this holds the processes and connections that die with the service.
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { BrowserEndReason, BrowserCreateParams } from '../../../api/types.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import { devtoolsSocketOf, PrivateHosts } from '../network/index.js';
import { closeStaleCleanly, type ChromiumExecutable, type LaunchEnv, type LaunchSpec, type LaunchedChromium, type WarmBrowser } from '../browser/index.js';
import { HostCapacity, type Slot } from './capacity.js';
import { ProtocolDescriptors } from './protocol-descriptors.js';
import { SessionCounts } from './session-counts.js';
import { WindowFrames, type WindowFrame } from './window-frames.js';
import { recoverStale } from './recovery.js';
import { callAll, callInOrder } from './hook-calls.js';
import { expectedExit, restartSession, type RestartChange, type RestartDeps } from './restart.js';
import { Launches } from './launches.js';
import { SessionBrowsers } from './session-browsers.js';
import { liveSession } from './live-session.js';
import { createSession, type CreateDeps, type CreateOptions } from './create.js';
import { endSession, type SessionEndDeps } from './session-end.js';
import { describeExit } from './exit-detail.js';
import { attachClient, timedOut } from './activity.js';
import type { Admission, LiveSession, SessionHooks, SessionKind, SessionManagerDeps, WarmSource } from './types.js';

export class SessionManager {
  private readonly live = new Map<string, LiveSession>();
  private readonly cleanups = new Set<Promise<void>>();
  private sweeper: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly frames: WindowFrames;
  private readonly protocols: ProtocolDescriptors;
  private hooks: SessionHooks = { prepareLaunch: [], start: [], created: [], release: [], end: [], stopped: [], restarted: [] };
  private warmSource: WarmSource | undefined;
  private admission: Admission | undefined;
  /** What a concurrency limit and the metrics count: kept as sessions come and go. */
  private readonly counts = new SessionCounts();
  /** Launched browsers that are not sessions (yet): the standby's, and creates between launch and record. */
  private readonly launches: Launches;
  /** Each live session's browser as last launched (a restart replaces it). */
  private readonly browsers = new SessionBrowsers();
  private readonly env: LaunchEnv;
  private readonly restartDeps: RestartDeps;
  private readonly createDeps: CreateDeps;
  private readonly endDeps: SessionEndDeps;
  /** Each live session's place on the host (capacity.ts), given back once its browser is gone. */
  private readonly slots = new Map<string, Slot>();
  private readonly capacity: HostCapacity;

  constructor(private readonly deps: SessionManagerDeps) {
    this.capacity = deps.capacity ?? new HostCapacity({ maxSessions: null, queueTimeoutMs: 0 });
    this.frames = new WindowFrames({ sessionsDir: deps.sessionsDir, cacheDir: deps.cacheDir, log: deps.log, track: (work) => this.track(work) });
    this.protocols = new ProtocolDescriptors({ full: deps.executables.full, sessionsDir: deps.sessionsDir, log: deps.log, track: (work) => this.track(work) });
    this.env = {
      executables: deps.executables,
      sandbox: deps.sandbox,
      sessionsDir: deps.sessionsDir,
      frame: (exe) => this.windowFrame(exe),
      warn: (obj, msg) => deps.log.warn(obj, msg),
      preparers: [],
      display: deps.display,
      egress: deps.egress,
      spareRenderers: deps.spareRenderers ?? true,
    };
    this.restartDeps = {
      env: this.env,
      log: deps.log,
      hooks: () => this.hooks.restarted,
      current: (id) => this.browsers.get(id),
      adopt: (session, warm) => this.adoptRestarted(session, warm),
      dropClients: (id) => this.dropClients(id),
      end: (id, detail) => void this.end(id, 'browser_exited', detail),
    };
    this.launches = new Launches({ env: this.env, sessionsDir: deps.sessionsDir, isClosing: () => this.closing, track: (work) => this.track(work) });
    this.createDeps = {
      env: this.env,
      repo: deps.repo,
      cluster: deps.cluster,
      now: deps.now,
      log: deps.log,
      sessionsDir: deps.sessionsDir,
      counts: this.counts,
      capacity: this.capacity,
      isClosing: () => this.closing,
      admission: () => this.admission,
      warmSource: () => this.warmSource,
      launch: (spec, opts) => this.launch(spec, opts),
      activate: (row, warm) => this.activate(row, warm),
      hold: (id, slot) => {
        if (!this.live.has(id)) return false;
        this.slots.set(id, slot);
        return true;
      },
      createdListeners: () => this.hooks.created,
    };
    this.endDeps = {
      repo: deps.repo,
      now: deps.now,
      log: deps.log,
      sessionsDir: deps.sessionsDir,
      counts: this.counts,
      browsers: this.browsers,
      listeners: () => this.hooks.end,
      stopped: (row) => this.stopped(row),
      gone: (id) => {
        this.live.delete(id);
        this.slots.get(id)?.release();
        this.slots.delete(id);
      },
      track: (work) => this.track(work),
    };
  }

  /** What the rest of the service does at each point of a session's life; given once, before the first launch. */
  setHooks(hooks: SessionHooks): void {
    this.hooks = hooks;
    this.env.preparers = hooks.prepareLaunch;
  }

  get(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** A pool lease ended and the browser is about to be reset for the next holder: the release hooks run. */
  released(session: LiveSession): Promise<void> {
    return callAll(this.hooks.release, (hook) => hook(session), this.deps.log, { session_id: session.id }, 'a release hook');
  }

  setWarmSource(source: WarmSource | undefined): void {
    this.warmSource = source;
  }

  setAdmission(admission: Admission | undefined): void {
    this.admission = admission;
  }

  /** On-demand sessions running or being created. */
  get onDemandSessions(): number {
    return this.counts.onDemandTotal;
  }

  /** On-demand sessions of a project running or being created. */
  onDemandIn(projectId: string): number {
    return this.counts.onDemandIn(projectId);
  }

  /** Creates given a slot and not yet answered (a launch or a standby handoff under way), by kind. */
  creatingCounts(): Readonly<Record<SessionKind, number>> {
    return { ...this.counts.creating };
  }

  /** Live sessions not ending, by kind: pooled ones are every pool browser (warming, idle, leased or resetting). */
  activeCounts(): Record<SessionKind, number> {
    const counts: Record<SessionKind, number> = { on_demand: 0, pooled: 0 };
    for (const session of this.live.values()) if (!session.ending) counts[session.poolId === null ? 'on_demand' : 'pooled']++;
    return counts;
  }

  /** Creates waiting for a launch right now; background launches (the standby's refill) give way to them. */
  get coldCreatesInFlight(): number {
    return this.counts.coldCreates;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** Measures an executable's window frame (once; the full Chromium's by default); call at start so no create pays for it. */
  windowFrame(exe: ChromiumExecutable = this.deps.executables.full): Promise<WindowFrame> {
    return this.frames.of(exe);
  }

  /** The DevTools protocol descriptor (`/json/protocol`) of the browser `session` runs. */
  protocolDescriptor(session: LiveSession): Promise<string> {
    return this.protocols.ofSession(this.browsers.get(session.id)?.exe, session.chromium.wsEndpoint);
  }

  /** The host's own descriptor (`GET /json/protocol` at the root, served without a key). */
  hostProtocolDescriptor(): Promise<string> {
    return this.protocols.ofHost();
  }

  /** The window frame of the Chromium session `id` runs now (none for the headless shell). */
  windowFrameOf(id: string): Promise<WindowFrame> {
    const warm = this.browsers.get(id);
    return warm ? this.windowFrame(warm.exe) : this.windowFrame();
  }

  get size(): number {
    return this.live.size;
  }

  /** Marks API or CDP traffic for a session, postponing its inactivity timeout. */
  touch(id: string): void {
    const session = this.live.get(id);
    if (session) session.lastActivity = Date.now();
  }

  /**
   * Creates a session: adopts a matching standby browser when there is one (a handoff, no launch), else
   * records the session and launches its browser. `poolId` creates a parked browser for that pool; `proxy`
   * is the custom proxy its traffic goes through (host/proxy/proxies.ts resolves the body's `proxy` to it).
   */
  create(params: BrowserCreateParams, projectId: string | null, opts: CreateOptions = {}): Promise<BrowserRow> {
    return createSession(this.createDeps, params, projectId, opts);
  }

  /**
   * Launches a browser that is not a session yet; `discard` it or pass it to a create (WarmSource).
   * `recorded`: the session's record exists already (a cold create), so no pid file is needed.
   */
  launch(spec: LaunchSpec, opts: { id?: string; recorded?: boolean } = {}): Promise<WarmBrowser> {
    return this.launches.launch(spec, opts);
  }

  /** Stops a launched browser that will not become a session, and removes its folder. */
  discard(warm: WarmBrowser): Promise<void> {
    return this.launches.discard(warm);
  }

  private async activate(row: BrowserRow, warm: WarmBrowser): Promise<BrowserRow> {
    this.launches.registered(warm);
    const { id } = row;
    const { chromium } = warm;
    // The session is registered before the pid is written: no await may leave the browser neither
    // unregistered nor live, where a shutdown would not find it.
    const session = liveSession(row, warm, () => this.browsers.get(id));
    warm.forwarder.allow(new PrivateHosts(row.private_hosts ?? []));
    this.live.set(id, session);
    this.browsers.set(id, warm);
    if (row.profile_save_changes) this.browsers.closeCleanlyAtEnd(id);
    const started = { ...row, pid: chromium.pid };
    const hooks = callAll(this.hooks.start, (hook) => hook(session, started), this.deps.log, { session_id: id }, 'a session start hook');
    session.ready = Promise.all([session.ready, hooks]).then(() => undefined);
    this.watchExit(session, chromium);
    await this.deps.repo
      .setProcess(id, chromium.pid, row.user_data_dir!)
      .catch((err: unknown) => this.deps.log.warn({ session_id: id, err: (err as Error).message }, 'could not record the browser process'));
    return started;
  }

  /** A Chromium that exits on its own ends its session. */
  private watchExit(session: LiveSession, chromium: LaunchedChromium): void {
    void chromium.exited.then((info) => {
      if (!expectedExit(session, chromium)) void this.end(session.id, 'browser_exited', describeExit(info, chromium));
    });
  }

  /**
   * Restarts Chromium in a running session with a changed launch (restart.ts): loading extensions or a
   * profile into it. CDP clients, input and Playwright wait for the new browser (`ready`).
   */
  restart(id: string, change: RestartChange): Promise<void> {
    return restartSession(this.restartDeps, id, this.live.get(id), change);
  }

  private async adoptRestarted(session: LiveSession, warm: WarmBrowser): Promise<void> {
    this.browsers.set(session.id, warm);
    session.chromium = warm.chromium;
    this.watchExit(session, warm.chromium);
    try {
      const row = await this.deps.repo.get(session.id);
      if (!row) return;
      await this.deps.repo.setProcess(session.id, warm.chromium.pid, row.user_data_dir!);
      // Loaded with save_changes, a profile is written back at the end: the browser is closed cleanly then.
      session.profile = row.profile_id ? { id: row.profile_id, saveChanges: row.profile_save_changes } : null;
      if (row.profile_save_changes) this.browsers.closeCleanlyAtEnd(session.id);
    } catch (err) {
      this.deps.log.warn({ session_id: session.id, err: (err as Error).message }, 'could not read or record the restarted browser');
    }
  }

  /** Ends a live session once: records why, drops its CDP clients, kills its processes, removes its files. */
  end(id: string, reason: BrowserEndReason, detail: string | null = null): Promise<void> {
    const session = this.live.get(id);
    if (!session) return Promise.resolve();
    session.ending ??= endSession(this.endDeps, session, reason, detail);
    return session.ending;
  }

  /** Disconnects a session's CDP clients without ending it (a pool browser changing hands). */
  dropClients(id: string): void {
    for (const socket of this.live.get(id)?.connections ?? []) socket.destroy();
  }

  /** Counts a CDP client connection; an open connection keeps the session alive. Returns the release. */
  attach(id: string, socket: Socket): () => void {
    const session = this.live.get(id);
    return session ? attachClient(session, socket) : () => {};
  }

  startSweeper(intervalMs: number): void {
    this.sweeper = setInterval(() => {
      this.sweepInactive();
      this.sweepKept();
    }, intervalMs);
    this.sweeper.unref();
  }

  /**
   * Keeps a live session until `until` (host/browsers/keep.ts decides whether it may be); false when it is
   * not live here. Keeping it again moves the end.
   */
  keep(id: string, until: Date): boolean {
    const session = this.live.get(id);
    if (!session || session.ending) return false;
    session.keptUntil = until.getTime();
    return true;
  }

  /** Ends the kept sessions whose keep has run out, by the service's clock (the one `until` was set by). */
  sweepKept(now = this.deps.now()): void {
    for (const session of this.live.values()) {
      const until = session.keptUntil;
      if (until === undefined || session.ending || now.getTime() < until) continue;
      void this.end(session.id, 'keep_expired', `kept until ${new Date(until).toISOString()} and not deleted by then`);
    }
  }

  sweepInactive(nowMs = Date.now()): void {
    for (const session of this.live.values()) {
      if (timedOut(session, nowMs)) void this.end(session.id, 'timeout', `no API or CDP activity for ${session.timeoutMs / 1000} s`);
    }
  }

  /** Ends every live session and goes on serving (a cluster host that was cut off: its records say they ended). */
  async endAll(reason: BrowserEndReason, detail: string): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.end(id, reason, detail)));
  }

  /** Ends every session and stops every launched browser (service shutdown); waits until all are gone. */
  async closeAll(reason: BrowserEndReason, detail: string): Promise<void> {
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await this.endAll(reason, detail);
    await this.launches.stopAll();
    // The window-frame probes may still be writing their folders; each removal is tracked once it ends.
    await this.frames.settled();
    await Promise.all(this.cleanups);
  }

  /** Ends the sessions a service that died without closing them left behind (see recovery.ts). */
  recoverStale(): Promise<number> {
    return recoverStale(
      {
        repo: this.deps.repo,
        hostId: this.deps.cluster?.hostId,
        sessionsDir: this.deps.sessionsDir,
        now: this.deps.now,
        isLive: (id) => this.live.has(id),
        // A browser that outlived the service (unsandboxed) still holds its profile's latest state.
        closeCleanly: (row) => (row.profile_save_changes ? closeStaleCleanly(row, devtoolsSocketOf(join(this.deps.sessionsDir, row.id))) : Promise.resolve()),
        stopped: (row) => this.stopped(row),
      },
      (work) => this.track(work),
    );
  }

  private stopped(row: BrowserRow): Promise<void> {
    return callInOrder(this.hooks.stopped, (hook) => hook(row), this.deps.log, { session_id: row.id }, 'a session stop hook');
  }

  private track(work: Promise<unknown>): void {
    const p = work.then(
      () => undefined,
      (err: Error) => this.deps.log.warn({ err: err.message }, 'session cleanup failed'),
    );
    this.cleanups.add(p);
    void p.finally(() => this.cleanups.delete(p));
  }
}
