// Live browser sessions: launches Chromium for each (or adopts one launched ahead of time), and ends each
// exactly once with a recorded reason (DELETE, inactivity, Chromium exiting, service shutdown). The
// database holds the record; this holds the processes and connections that die with the service.
import { unlink, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { BrowserEndReason, BrowserCreateParams } from '../../../api/types.js';
import { unavailable } from '../errors.js';
import { newId } from '../../ids.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import type { Upstream } from '../proxy/index.js';
import { devtoolsSocketOf, PrivateHosts } from '../network/index.js';
import {
  PID_FILE,
  launchBrowser,
  launchSpecOf,
  removeDir,
  restoreDownloads,
  sessionLayout,
  stopBrowser,
  type LaunchEnv,
  type LaunchSpec,
  type WarmBrowser,
  type ExitInfo,
  type LaunchedChromium,
  type ChromiumExecutable,
  closeCleanly,
  closeStaleCleanly,
} from '../browser/index.js';
import { HostCapacity, type Slot } from './capacity.js';
import { ProtocolDescriptors } from './protocol-descriptors.js';
import { SessionCounts } from './session-counts.js';
import { WindowFrames, type WindowFrame } from './window-frames.js';
import { recoverStale } from './recovery.js';
import { callAll, callInOrder } from './hook-calls.js';
import { sessionRow, writeRecord } from './record.js';
import { expectedExit, restartSession, type RestartChange, type RestartDeps } from './restart.js';
import type { Admission, LiveSession, SessionHooks, SessionKind, SessionManagerDeps, WarmSource } from './types.js';


export class SessionManager {
  private readonly live = new Map<string, LiveSession>();
  private readonly cleanups = new Set<Promise<void>>();
  private sweeper: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly frames: WindowFrames;
  private readonly protocols: ProtocolDescriptors;
  private hooks: SessionHooks = { prepareLaunch: [], start: [], created: [], release: [], end: [], stopped: [], restarted: [] };
  /** Sessions that write their profile back: closed cleanly rather than killed, so their files are complete. */
  private readonly cleanStops = new Set<string>();
  private warmSource: WarmSource | undefined;
  private admission: Admission | undefined;
  /** What a concurrency limit and the metrics count: kept as sessions come and go. */
  private readonly counts = new SessionCounts();
  /** Launched browsers that are not sessions (yet): the standby's, and creates between launch and record. */
  private readonly unregistered = new Set<WarmBrowser>();
  private readonly launches = new Set<Promise<unknown>>();
  /** Each live session's browser as last launched (a restart replaces it). */
  private readonly running = new Map<string, WarmBrowser>();
  private readonly env: LaunchEnv;
  private readonly restartDeps: RestartDeps;
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
    };
    this.restartDeps = {
      env: this.env,
      log: deps.log,
      hooks: () => this.hooks.restarted,
      current: (id) => this.running.get(id),
      adopt: (session, warm) => this.adoptRestarted(session, warm),
      dropClients: (id) => this.dropClients(id),
      end: (id, detail) => void this.end(id, 'browser_exited', detail),
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
    return this.protocols.ofSession(this.running.get(session.id)?.exe, session.chromium.wsEndpoint);
  }

  /** The host's own descriptor (`GET /json/protocol` at the root, served without a key). */
  hostProtocolDescriptor(): Promise<string> {
    return this.protocols.ofHost();
  }

  /** The window frame of the Chromium session `id` runs now (none for the headless shell). */
  windowFrameOf(id: string): Promise<WindowFrame> {
    const warm = this.running.get(id);
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
  async create(
    params: BrowserCreateParams,
    projectId: string | null,
    opts: { poolId?: string; proxy?: Upstream | null; signal?: AbortSignal } = {},
  ): Promise<BrowserRow> {
    const startedAt = performance.now();
    if (this.closing) throw unavailable('shutting_down', 'the service is shutting down');
    const poolId = opts.poolId ?? null;
    if (poolId === null) {
      const admit = await this.admission?.(projectId);
      // Checked and counted with no await between, so parallel creates cannot overshoot a limit together.
      if (this.closing) throw unavailable('shutting_down', 'the service is shutting down');
      admit?.();
      this.counts.countOnDemand(projectId, 1);
    }
    const kind: SessionKind = poolId === null ? 'on_demand' : 'pooled';
    let row: BrowserRow;
    let slot: Slot | undefined;
    try {
      // Past the limit's check (a 429 needs no wait): the create waits here when the host is full.
      slot = await this.capacity.take(opts.signal);
      this.counts.creating[kind]++;
      try {
        row = await this.createAdmitted(params, projectId, poolId, opts.proxy ?? null);
      } finally {
        this.counts.creating[kind]--;
      }
    } catch (err) {
      slot?.release();
      if (poolId === null) this.counts.countOnDemand(projectId, -1);
      throw err;
    }
    // Held until the session's browser is gone; a session that ended while being answered gives it back now.
    if (this.live.has(row.id)) this.slots.set(row.id, slot);
    else slot.release();
    const seconds = (performance.now() - startedAt) / 1000;
    for (const listener of this.hooks.created) {
      try {
        listener(row, seconds);
      } catch (err) {
        this.deps.log.warn({ session_id: row.id, err: (err as Error).message }, 'a session created listener failed');
      }
    }
    return row;
  }

  private async createAdmitted(params: BrowserCreateParams, projectId: string | null, poolId: string | null, proxy: Upstream | null): Promise<BrowserRow> {
    const spec = launchSpecOf(params, proxy);
    const offer = poolId === null ? this.warmSource?.take(spec) : undefined;
    if (offer) {
      let row: BrowserRow;
      try {
        row = await this.record(offer.id, params, projectId, poolId);
      } catch (err) {
        this.warmSource!.putBack(offer);
        throw err;
      }
      let warm: WarmBrowser;
      try {
        warm = await offer.browser;
      } catch (err) {
        await this.forget(offer.id);
        throw err;
      }
      // The record holds the pid now, and the folder is the session's view, where the file would show.
      void unlink(join(this.deps.sessionsDir, warm.id, PID_FILE)).catch(() => undefined);
      return this.activate(row, warm);
    }
    const id = newId();
    // The record goes in first: the unique index settles name races before any browser is launched.
    const row = await this.record(id, params, projectId, poolId);
    let launched: WarmBrowser;
    this.counts.coldCreates++;
    try {
      launched = await this.launch(spec, { id, recorded: true });
    } catch (err) {
      await this.forget(id);
      throw err;
    } finally {
      this.counts.coldCreates--;
    }
    return this.activate(row, launched);
  }

  private async record(id: string, params: BrowserCreateParams, projectId: string | null, poolId: string | null): Promise<BrowserRow> {
    const { sandbox, userDataDir } = sessionLayout(this.env, id);
    const { cluster } = this.deps;
    const row = sessionRow(id, params, { projectId, poolId, sandboxed: sandbox !== null, userDataDir, now: this.deps.now(), hostId: cluster?.hostId ?? null });
    await writeRecord(row, () => (cluster ? cluster.insert(row) : this.deps.repo.insert(row)));
    return row;
  }

  /** Removes the record of a create whose browser never came up; the create's own failure is what is thrown. */
  private async forget(id: string): Promise<void> {
    await this.deps.repo.remove(id).catch((err: unknown) => this.deps.log.warn({ session_id: id, err: (err as Error).message }, 'could not remove the record of a failed create'));
  }

  /**
   * Launches a browser that is not a session yet; `discard` it or pass it to a create (WarmSource).
   * `recorded`: the session's record exists already (a cold create), so no pid file is needed.
   */
  launch(spec: LaunchSpec, opts: { id?: string; recorded?: boolean } = {}): Promise<WarmBrowser> {
    const id = opts.id ?? newId();
    const work = (async () => {
      if (this.closing) throw unavailable('shutting_down', 'the service is shutting down');
      let warm: WarmBrowser;
      try {
        warm = await launchBrowser(this.env, id, spec);
      } catch (err) {
        this.track(removeDir(join(this.deps.sessionsDir, id)));
        throw unavailable('browser_launch_failed', `could not launch Chromium: ${(err as Error).message}`);
      }
      this.unregistered.add(warm);
      if (!opts.recorded) await writeFile(join(this.deps.sessionsDir, id, PID_FILE), String(warm.chromium.pid)).catch(() => undefined);
      if (this.closing) {
        await this.discard(warm);
        throw unavailable('shutting_down', 'the service is shutting down');
      }
      return warm;
    })();
    const settled = work.catch(() => undefined);
    this.launches.add(settled);
    void settled.finally(() => this.launches.delete(settled));
    return work;
  }

  /** Stops a launched browser that will not become a session, and removes its folder. */
  async discard(warm: WarmBrowser): Promise<void> {
    if (!this.unregistered.delete(warm)) return;
    const work = stopBrowser(warm).then(() => removeDir(join(this.deps.sessionsDir, warm.id)));
    this.track(work);
    await work.catch(() => undefined);
  }

  private async activate(row: BrowserRow, warm: WarmBrowser): Promise<BrowserRow> {
    this.unregistered.delete(warm);
    const { id } = row;
    const { chromium } = warm;
    // The session is registered before the pid is written: no await may leave the browser neither
    // unregistered nor live, where a shutdown would not find it.
    const session: LiveSession = {
      id,
      view: warm.view,
      timeoutMs: row.timeout_seconds * 1000,
      chromium,
      screen: warm.screen,
      // An adopted browser may have waited a while; its session starts now.
      lastActivity: Date.now(),
      connections: new Set(),
      cleanups: [async () => (await this.running.get(id)?.downloads)?.close(), () => warm.forwarder.close()],
      ready: warm.downloads.then(() => undefined),
      poolId: row.pool_id,
      projectId: row.project_id,
      profile: row.profile_id ? { id: row.profile_id, saveChanges: row.profile_save_changes } : null,
      parked: row.pool_id !== null,
      proxy: warm.forwarder,
      network: warm.network && { netns: warm.network.nsPath, proxyUrl: warm.network.proxyServer },
      browserPath: warm.browserPath,
      restoreDownloads: () => restoreDownloads(this.running.get(id) ?? warm),
    };
    warm.forwarder.allow(new PrivateHosts(row.private_hosts ?? []));
    this.live.set(id, session);
    this.running.set(id, warm);
    if (row.profile_save_changes) this.cleanStops.add(id);
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
    this.running.set(session.id, warm);
    session.chromium = warm.chromium;
    this.watchExit(session, warm.chromium);
    try {
      const row = await this.deps.repo.get(session.id);
      if (!row) return;
      await this.deps.repo.setProcess(session.id, warm.chromium.pid, row.user_data_dir!);
      // Loaded with save_changes, a profile is written back at the end: the browser is closed cleanly then.
      session.profile = row.profile_id ? { id: row.profile_id, saveChanges: row.profile_save_changes } : null;
      if (row.profile_save_changes) this.cleanStops.add(session.id);
    } catch (err) {
      this.deps.log.warn({ session_id: session.id, err: (err as Error).message }, 'could not read or record the restarted browser');
    }
  }

  /** Ends a live session once: records why, drops its CDP clients, kills its processes, removes its files. */
  end(id: string, reason: BrowserEndReason, detail: string | null = null): Promise<void> {
    const session = this.live.get(id);
    if (!session) return Promise.resolve();
    session.ending ??= (async () => {
      // A restart under way finishes first, so that the Chromium it starts is the one stopped here. Only
      // then: without one, the count and the end listeners are told synchronously, as they expect; the
      // record's write is under way meanwhile and awaited before anything reads it back.
      if (session.restarting) await session.restarting;
      const recorded = this.deps.repo
        .end(id, reason, detail, this.deps.now())
        .catch((err: unknown) => this.deps.log.warn({ session_id: id, err: (err as Error).message }, 'could not record the end of a session'));
      if (session.poolId === null) this.counts.countOnDemand(session.projectId, -1);
      for (const socket of session.connections) socket.destroy();
      for (const listener of this.hooks.end) {
        try {
          listener(session, reason);
        } catch (err) {
          this.deps.log.warn({ session_id: id, err: (err as Error).message }, 'a session end listener failed');
        }
      }
      await Promise.all(
        session.cleanups.map(async (cleanup) => {
          try {
            await cleanup();
          } catch (err) {
            this.deps.log.warn({ session_id: id, err: (err as Error).message }, 'session cleanup step failed');
          }
        }),
      );
      if (this.cleanStops.delete(id)) await closeCleanly(session.chromium);
      await session.chromium.kill();
      await this.running.get(id)?.network?.close();
      this.running.delete(id);
      await session.screen?.stop();
      await recorded;
      const ended = await this.deps.repo.get(id).catch((err: unknown) => {
        this.deps.log.warn({ session_id: id, err: (err as Error).message }, 'could not read the record of an ended session');
        return undefined;
      });
      if (ended) await this.stopped(ended);
      this.live.delete(id);
      this.slots.get(id)?.release();
      this.slots.delete(id);
      this.deps.log.info({ session_id: id, reason, detail }, 'browser session ended');
      this.track(removeDir(join(this.deps.sessionsDir, id)));
    })();
    return session.ending;
  }

  /** Disconnects a session's CDP clients without ending it (a pool browser changing hands). */
  dropClients(id: string): void {
    for (const socket of this.live.get(id)?.connections ?? []) socket.destroy();
  }

  /** Counts a CDP client connection; an open connection keeps the session alive. Returns the release. */
  attach(id: string, socket: Socket): () => void {
    const session = this.live.get(id);
    if (!session) return () => {};
    session.connections.add(socket);
    session.lastActivity = Date.now();
    return () => {
      session.connections.delete(socket);
      session.lastActivity = Date.now();
    };
  }

  startSweeper(intervalMs: number): void {
    this.sweeper = setInterval(() => this.sweepInactive(), intervalMs);
    this.sweeper.unref();
  }

  sweepInactive(nowMs = Date.now()): void {
    for (const session of this.live.values()) {
      if (session.ending || session.parked || session.restarting || session.connections.size > 0) continue;
      if (nowMs - session.lastActivity >= session.timeoutMs) {
        void this.end(session.id, 'timeout', `no API or CDP activity for ${session.timeoutMs / 1000} s`);
      }
    }
  }

  /** Ends every session and stops every launched browser (service shutdown); waits until all are gone. */
  /** Ends every live session and goes on serving (a cluster host that was cut off: its records say they ended). */
  async endAll(reason: BrowserEndReason, detail: string): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.end(id, reason, detail)));
  }

  async closeAll(reason: BrowserEndReason, detail: string): Promise<void> {
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await this.endAll(reason, detail);
    // Launches under way finish and stop themselves; what is left unregistered is stopped here.
    await Promise.all(this.launches);
    await Promise.all([...this.unregistered].map((warm) => this.discard(warm)));
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

function describeExit(info: ExitInfo, chromium: LaunchedChromium): string {
  const how = info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
  const said = chromium.stderrTail().trim().split('\n').slice(-1)[0];
  return `chromium ${how}${said ? ` (last output: ${said.slice(0, 300)})` : ''}`;
}

