// Live browser sessions: launches Chromium for each, and ends each exactly once with a recorded reason
// (DELETE, inactivity, Chromium exiting, service shutdown). The database holds the record; this holds
// the processes and connections that die with the service.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Socket } from 'node:net';
import { join, sep } from 'node:path';
import type { BrowserEndReason, BrowserCreateParams } from '../../api/types.js';
import { conflict, unavailable } from '../errors.js';
import { newId } from '../ids.js';
import type { BrowserRow, BrowsersRepo } from '../store/browsers-repo.js';
import { CdpConnection } from './cdp-connection.js';
import { killProcessGroup, launchChromium, measureWindowFrame, type ExitInfo, type LaunchedChromium } from './chromium.js';
import type { ChromiumExecutable } from './chromium-path.js';
import { DOWNLOADS_DIR, HOME_DIR, HostView, USER_DATA_DIR } from './host-view.js';
import { sandboxCommand, type Sandbox, type SandboxLaunch } from './sandbox.js';
import { startXvfb, type XDisplay } from './xvfb.js';

export interface LiveSession {
  readonly id: string;
  /** The session's host view: its folder holding home/kernel/..., tmp, ... (see host-view.ts). */
  readonly view: HostView;
  readonly timeoutMs: number;
  readonly chromium: LaunchedChromium;
  /** The X display of a headful session; headless sessions have none. */
  readonly screen?: XDisplay;
  lastActivity: number;
  /** Client sockets of the CDP proxy; destroyed when the session ends. */
  readonly connections: Set<Socket>;
  /** Settles when the service's own set-up of the browser is done; CDP clients and input wait for it. */
  ready: Promise<void>;
  /** Run when the session ends, before Chromium is killed: processes, watches, input backends. */
  readonly cleanups: Array<() => Promise<void> | void>;
  ending?: Promise<void>;
}

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface SessionManagerDeps {
  repo: BrowsersRepo;
  chromium: ChromiumExecutable;
  /** Where the browser runs: inside the session's view when there is a sandbox. */
  sandbox: Sandbox | null;
  /** Each session gets `<sessionsDir>/<id>/` holding its host view (user data now, downloads later). */
  sessionsDir: string;
  now: () => Date;
  log: Logger;
}

/**
 * Called for every new session before anyone can reach it: the session's `ready` waits for the returned
 * promise, and CDP clients and input wait for `ready`. Replays, telemetry and the like attach here and
 * push their own cleanups onto `session.cleanups`.
 */
export type SessionStartHook = (session: LiveSession, row: BrowserRow) => Promise<void> | void;

export const DEFAULT_VIEWPORT = { width: 1920, height: 1080 };
export const DEFAULT_TIMEOUT_SECONDS = 60;

export class SessionManager {
  private readonly live = new Map<string, LiveSession>();
  private readonly cleanups = new Set<Promise<void>>();
  private sweeper: NodeJS.Timeout | undefined;
  private closing = false;
  private frame: Promise<{ width: number; height: number }> | undefined;
  private readonly startHooks: SessionStartHook[] = [];

  constructor(private readonly deps: SessionManagerDeps) {}

  get(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  onStart(hook: SessionStartHook): void {
    this.startHooks.push(hook);
  }

  /** Measures the executable's window frame (once); call at start so no create pays for it. */
  windowFrame(): Promise<{ width: number; height: number }> {
    this.frame ??= (async () => {
      const dir = join(this.deps.sessionsDir, `.probe-${newId(8)}`);
      try {
        return await measureWindowFrame(this.deps.chromium, dir);
      } catch (err) {
        this.deps.log.warn({ err: (err as Error).message }, 'could not measure the browser window frame; viewports may be smaller than asked');
        return { width: 0, height: 0 };
      } finally {
        this.track(removeDir(dir));
      }
    })();
    return this.frame;
  }

  get size(): number {
    return this.live.size;
  }

  /** Marks API or CDP traffic for a session, postponing its inactivity timeout. */
  touch(id: string): void {
    const session = this.live.get(id);
    if (session) session.lastActivity = Date.now();
  }

  async create(params: BrowserCreateParams, projectId: string | null): Promise<BrowserRow> {
    if (this.closing) throw unavailable('shutting_down', 'the service is shutting down');
    const { repo, now } = this.deps;
    const id = newId();
    const dir = join(this.deps.sessionsDir, id);
    const view = new HostView(dir);
    const userDataDir = view.hostPath(USER_DATA_DIR);
    // Inside the sandbox Chromium sees the view, so its paths are the hosted service's paths. The packaged
    // headless shell lives in the host's temp dir, which the view hides: it runs beside the view instead.
    const sandbox = this.deps.sandbox && !this.deps.chromium.path.startsWith(`${tmpdir()}${sep}`) ? this.deps.sandbox : null;
    const inView = (viewPath: string) => (sandbox ? viewPath : view.hostPath(viewPath));
    const row: BrowserRow = {
      id,
      project_id: projectId,
      name: params.name ?? null,
      tags: params.tags ?? {},
      headless: params.headless ?? true,
      stealth: params.stealth ?? false,
      kiosk_mode: params.kiosk_mode ?? false,
      timeout_seconds: params.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
      viewport: params.viewport ?? null,
      start_url: params.start_url ?? null,
      created_at: now().toISOString(),
      deleted_at: null,
      end_reason: null,
      end_detail: null,
      pid: null,
      user_data_dir: userDataDir,
      sandboxed: sandbox !== null,
    };
    // The record goes in first: the unique index settles name races before any browser is launched.
    try {
      repo.insert(row);
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw conflict(`a browser named '${params.name}' is already active in this project`);
      }
      throw err;
    }
    let chromium: LaunchedChromium;
    let screen: XDisplay | undefined;
    const viewport = row.viewport ?? DEFAULT_VIEWPORT;
    try {
      await view.createLayout();
      await writeDownloadPreferences(userDataDir, inView(DOWNLOADS_DIR));
      // A headful browser fills its own screen, toolbar included, as on the hosted service.
      if (!row.headless) screen = await startXvfb(viewport.width, viewport.height);
      chromium = await launchChromium(this.deps.chromium, {
        userDataDir: inView(USER_DATA_DIR),
        wrap: sandbox ? (file, args, env) => sandboxCommand(sandbox, browserLaunch(view, file, args, env)) : undefined,
        headless: row.headless,
        viewport,
        display: screen?.display,
        frame: row.headless ? await this.windowFrame() : undefined,
        startUrl: row.start_url ?? undefined,
        kioskMode: row.kiosk_mode,
        stealth: row.stealth,
      });
    } catch (err) {
      await screen?.stop();
      repo.remove(id);
      this.track(removeDir(dir));
      throw unavailable('browser_launch_failed', `could not launch Chromium: ${(err as Error).message}`);
    }
    if (this.closing) {
      await chromium.kill();
      await screen?.stop();
      repo.remove(id);
      this.track(removeDir(dir));
      throw unavailable('shutting_down', 'the service is shutting down');
    }
    // The headless shell ignores the profile's download preference and refuses downloads unless a CDP
    // client allows them, for as long as that client stays connected: the service stays connected. This
    // runs beside the create; CDP clients and input wait for it (`ready`), so nobody acts before it.
    const downloads = this.deps.chromium.headlessShell
      ? allowDownloads(chromium.wsEndpoint, inView(DOWNLOADS_DIR)).catch((err: Error) => {
          this.deps.log.warn({ session_id: id, err: err.message }, 'could not enable downloads');
          return undefined;
        })
      : Promise.resolve(undefined);
    repo.setProcess(id, chromium.pid, userDataDir);
    const session: LiveSession = {
      id,
      view,
      timeoutMs: row.timeout_seconds * 1000,
      chromium,
      screen,
      lastActivity: Date.now(),
      connections: new Set(),
      cleanups: [async () => (await downloads)?.close()],
      ready: downloads.then(() => undefined),
    };
    this.live.set(id, session);
    const started = { ...row, pid: chromium.pid };
    const hooks = this.startHooks.map(async (hook) => {
      try {
        await hook(session, started);
      } catch (err) {
        this.deps.log.warn({ session_id: id, err: (err as Error).message }, 'a session start hook failed');
      }
    });
    session.ready = Promise.all([session.ready, ...hooks]).then(() => undefined);
    void chromium.exited.then((info) => {
      if (!session.ending) void this.end(id, 'browser_exited', describeExit(info, chromium));
    });
    return { ...row, pid: chromium.pid };
  }

  /** Ends a live session once: records why, drops its CDP clients, kills its processes, removes its files. */
  end(id: string, reason: BrowserEndReason, detail: string | null = null): Promise<void> {
    const session = this.live.get(id);
    if (!session) return Promise.resolve();
    session.ending ??= (async () => {
      this.deps.repo.end(id, reason, detail, this.deps.now());
      for (const socket of session.connections) socket.destroy();
      await Promise.all(
        session.cleanups.map(async (cleanup) => {
          try {
            await cleanup();
          } catch (err) {
            this.deps.log.warn({ session_id: id, err: (err as Error).message }, 'session cleanup step failed');
          }
        }),
      );
      await session.chromium.kill();
      await session.screen?.stop();
      this.live.delete(id);
      this.deps.log.info({ session_id: id, reason, detail }, 'browser session ended');
      this.track(removeDir(join(this.deps.sessionsDir, id)));
    })();
    return session.ending;
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
      if (session.ending || session.connections.size > 0) continue;
      if (nowMs - session.lastActivity >= session.timeoutMs) {
        void this.end(session.id, 'timeout', `no API or CDP activity for ${session.timeoutMs / 1000} s`);
      }
    }
  }

  /** Ends every session (service shutdown) and waits until their processes and files are gone. */
  async closeAll(reason: BrowserEndReason, detail: string): Promise<void> {
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([...this.live.keys()].map((id) => this.end(id, reason, detail)));
    await Promise.all(this.cleanups);
  }

  /**
   * Sessions still marked active at startup belong to a service that died without closing them:
   * kill their browsers if they still run, and record the end.
   */
  async recoverStale(): Promise<number> {
    const stale = this.deps.repo.listActive();
    for (const row of stale) {
      if (row.pid && (await isOurChromium(row.pid, join(this.deps.sessionsDir, row.id)))) killProcessGroup(row.pid);
      this.deps.repo.end(row.id, 'service_restart', 'the service restarted while this session was active', this.deps.now());
      this.track(removeDir(join(this.deps.sessionsDir, row.id)));
    }
    return stale.length;
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

/** Chromium's helpers can still be writing for a moment after the group is killed; retry the removal. */
function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}

function describeExit(info: ExitInfo, chromium: LaunchedChromium): string {
  const how = info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
  const said = chromium.stderrTail().trim().split('\n').slice(-1)[0];
  return `chromium ${how}${said ? ` (last output: ${said.slice(0, 300)})` : ''}`;
}

/** Chromium runs as root in the sandbox with its home at the view's /home/kernel, like the hosted VM's. */
function browserLaunch(view: HostView, command: string, args: string[], env: Record<string, string>): SandboxLaunch {
  return {
    view,
    cwd: HOME_DIR,
    env: { HOME: HOME_DIR, PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
    identity: { name: 'root', uid: 0, gid: 0 },
    newSession: true,
    command,
    args,
  };
}

async function allowDownloads(wsEndpoint: string, downloadsDir: string): Promise<CdpConnection> {
  const cdp = await CdpConnection.connect(wsEndpoint);
  try {
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloadsDir });
    return cdp;
  } catch (err) {
    cdp.close();
    throw err;
  }
}

/** Downloads go to the view's Downloads folder without asking, as on the hosted service. */
async function writeDownloadPreferences(userDataDir: string, downloadsDir: string): Promise<void> {
  const prefs = { download: { default_directory: downloadsDir, prompt_for_download: false, directory_upgrade: true }, savefile: { default_directory: downloadsDir } };
  await mkdir(join(userDataDir, 'Default'), { recursive: true });
  await writeFile(join(userDataDir, 'Default', 'Preferences'), JSON.stringify(prefs));
}

/** A recorded pid may have been reused by now; only kill it if its command line names the session's folder. */
async function isOurChromium(pid: number, sessionDir: string): Promise<boolean> {
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(sessionDir);
  } catch {
    return false;
  }
}
