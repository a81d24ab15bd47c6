// The shapes the session manager (sessions.ts) works with and hands out: a live session, and the hooks
// other parts of the service plug into it (start hooks, end listeners, the standby, the limit).
import type {
  ExistingDisplay,
  LaunchPreparer,
  LaunchEnv,
  LaunchSpec,
  WarmBrowser,
  LaunchedChromium,
  Executables,
  XDisplay,
} from '../browser/index.js';
import type { Socket } from 'node:net';
import type { BrowserEndReason } from '../../../api/types.js';
import type { BrowserRow, BrowsersRepo } from '../../store/browsers-repo.js';
import type { ProxyForwarder } from '../proxy/index.js';
import type { HostView } from '../fs/index.js';
import type { Sandbox, SessionNetworkRef } from '../process/index.js';
import type { SessionScope } from '../session-scope.js';
import type { HostCapacity } from './capacity.js';

export interface LiveSession extends SessionScope {
  readonly id: string;
  /** The session's host view: its folder holding home/kernel/..., tmp, ... (see fs/host-view.ts). */
  readonly view: HostView;
  /** Inactivity timeout; a pool sets it from its own config each time it leases the browser out. */
  timeoutMs: number;
  /** The session's Chromium; replaced when it is restarted (restart.ts), which `restarting` says. */
  chromium: LaunchedChromium;
  /**
   * Set while Chromium is being restarted in the session: the old one's exit is expected, and `ready`
   * settles once the new one is up.
   */
  restarting?: Promise<void>;
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
  /** The pool the browser belongs to. Pool browsers count against limits through their pool's size. */
  readonly poolId: string | null;
  /** The project the session was created in (null: the default scope); its limit counts it. */
  readonly projectId: string | null;
  /**
   * The profile loaded, as last recorded (at the start, and after a restart that loaded one): read by end
   * listeners, which are told synchronously and cannot wait for the record.
   */
  profile: { id: string; saveChanges: boolean } | null;
  /** Idle in its pool: never timed out, and CDP clients are refused until someone acquires it. */
  parked: boolean;
  /**
   * Kept (POST /browsers/{id}/keep) until this instant of the service's clock (epoch ms): no inactivity
   * timeout ends it before, the sweep ends it then, and a CDP client that leaves it has its connection to
   * Chromium held (cdp-hold.ts), so the contexts and pages it made stay.
   */
  keptUntil?: number;
  /** The session's egress proxy: PATCH switches the custom proxy it chains to. */
  readonly proxy: ProxyForwarder;
  /** The session's own network namespace, which its processes join. None: they share the host's network. */
  readonly network?: SessionNetworkRef;
  /** The path Chromium sees for a path of the view (see WarmBrowser.browserPath). */
  readonly browserPath: (viewPath: string) => string;
  /**
   * Points downloads at /home/kernel/Downloads again once no client is connected: a client that set its
   * own download behaviour resets it to Chromium's default when it leaves, which the headless shell reads
   * as "deny". Resolves whether or not that worked (a browser on its way out).
   */
  restoreDownloads(): Promise<void>;
}

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface SessionManagerDeps {
  repo: BrowsersRepo;
  /** The Chromium, and the headless shell that runs plain headless browsers when there is one. */
  executables: Executables;
  /** Where the browser runs: inside the session's view when there is a sandbox. */
  sandbox: Sandbox | null;
  /** Each session gets `<sessionsDir>/<id>/` holding its host view (user data now, downloads later). */
  sessionsDir: string;
  /** Where the executable's window frame is cached between starts (browser/window-frame-cache.ts). */
  cacheDir: string;
  now: () => Date;
  log: Logger;
  /** Headful sessions show on this display instead of a virtual screen each (`bcs run --headed`). */
  display?: ExistingDisplay;
  /** ServiceOptions.spareRenderers. */
  spareRenderers?: boolean;
  /** The egress rules every session's traffic is held to (see LaunchEnv.egress). */
  egress: LaunchEnv['egress'];
  /** How many sessions this host runs at once; unbounded when left out. */
  capacity?: HostCapacity;
  /**
   * In a cluster: this host's id, written into each session's record, and how a record is written so
   * the limits hold across hosts (cluster-admission.ts). Left out, one process holds the database.
   */
  cluster?: { hostId: string; insert(row: BrowserRow): Promise<void> };
}

/**
 * Called for every new session before anyone can reach it: the session's `ready` waits for the returned
 * promise, and CDP clients and input wait for `ready`. Replays, telemetry and the like attach here and
 * push their own cleanups onto `session.cleanups`. A browser adopted from the standby is a new session
 * at adoption, so hooks run then, not when it was launched.
 */
export type SessionStartHook = (session: LiveSession, row: BrowserRow) => Promise<void> | void;

/** On-demand (POST /browsers, login flows) or a pool's browser. */
export type SessionKind = 'on_demand' | 'pooled';

/** Told synchronously when a create has succeeded, with how long it took from the call (seconds). */
export type SessionCreatedListener = (row: BrowserRow, seconds: number) => void;

/** Told synchronously when a session starts ending (pools refill from here). */
export type SessionEndListener = (session: LiveSession, reason: BrowserEndReason) => void;

/** A pool lease of the session ended; what belonged to the lease (a recording) ends with it. */
export type SessionReleaseHook = (session: LiveSession) => Promise<void> | void;

/** Once a session's Chromium is gone and before its folder is removed (the profile save-back reads it here). */
export type SessionStoppedHook = (row: BrowserRow) => Promise<void>;

/**
 * Chromium was restarted in a running session (restart.ts): what held a connection to the old one (a
 * screencast, the telemetry collector, a CDP input device) reconnects to `session.chromium`, which is the
 * new one. The session is `ready` again once all have settled.
 */
export type SessionRestartHook = (session: LiveSession, reason: string) => Promise<void> | void;

/**
 * What the rest of the service does at each point of a session's life, given once by the composition root
 * (service.ts) so that the order is written down in one place.
 */
export interface SessionHooks {
  /** Before each launch, in order: fill the view and add Chromium switches (profiles, extensions). */
  prepareLaunch: LaunchPreparer[];
  /** When a session starts, started in order; the session is `ready` once all have settled. */
  start: SessionStartHook[];
  /** When a create has succeeded (its start hooks started), in order, synchronously. */
  created: SessionCreatedListener[];
  /** When a pool lease ends, run together; the browser is reset for its next holder after all settled. */
  release: SessionReleaseHook[];
  /** When a session starts ending, in order, synchronously. */
  end: SessionEndListener[];
  /** When a session's Chromium is gone (at its end, or found left over at start), in order. */
  stopped: SessionStoppedHook[];
  /** When Chromium was restarted in a running session, started in order. */
  restarted: SessionRestartHook[];
}

/** A browser for session `id`: launched already, or still launching (it settles when it is up or failed). */
export interface WarmOffer {
  readonly id: string;
  readonly browser: Promise<WarmBrowser>;
}

/** Supplies browsers launched ahead of time to creates whose launch spec matches (see standby.ts). */
export interface WarmSource {
  take(spec: LaunchSpec): WarmOffer | undefined;
  /** Takes back an offer that could not become a session (its name was taken); called before it is awaited. */
  putBack(offer: WarmOffer): void;
}

/**
 * Admits an on-demand session in a project: reads what it needs (the limits in force), then returns the
 * check, which throws to refuse and is run synchronously right before the session is counted.
 */
export type Admission = (projectId: string | null) => Promise<() => void>;
