// The embedded service as the package exports it (src/index.ts): its options and what a started one
// offers. Declared apart from service.ts, with nothing of the host imported, because the published
// declarations follow every type they name: through the host's classes they reached the store and its
// driver's types (better-sqlite3's, a devDependency), which a consumer's `tsc` without skipLibCheck could
// not resolve. service.ts extends these and passes them on, so the compiler holds each copy below to the
// host's own type.

/** The egress rules sessions are held to (host/network's EgressMode). */
export type EgressMode = 'hosted' | 'local';

/** An OTLP/HTTP collector a browser's telemetry export may name (host/telemetry's OtlpDestination). */
export interface OtlpDestination {
  /** The collector's OTLP/HTTP base (`http://host:4318`) or its full logs URL (`.../v1/logs`). */
  endpoint: string;
  headers?: Record<string, string>;
}

/** A Chromium the service launches (host/browser's ChromiumExecutable). */
export interface ChromiumExecutable {
  path: string;
  /** How it was found: configured, installed on the system, or the headless shell of the npm package. */
  source: 'configured' | 'system' | 'npm';
  /** The headless shell cannot run headful sessions or load extensions. */
  headlessShell: boolean;
}

export interface ServiceOptions {
  /** Where the session folders and the files kept beside the database live (and the SQLite database itself). */
  dataDir: string;
  /**
   * Keep the service's state in this PostgreSQL database (postgres://user@host:port/db) instead of SQLite
   * in `dataDir`; migrated on start. The password can come from PGPASSWORD or ~/.pgpass instead of the URL.
   */
  databaseUrl?: string;
  host?: string;
  port?: number;
  /**
   * The origin clients reach the service by when that is not the address it listens on (a TLS proxy, a load
   * balancer, an ingress): `https://browsers.example.com`. Every URL in an answer starts with it (cdp_ws_url
   * and webdriver_ws_url as wss://). Unset: the scheme and Host of each request.
   */
  publicUrl?: string;
  /**
   * The key sealed secrets are encrypted with (32 bytes, raw, base64 or hex), instead of one made in `dataDir`.
   * Give the same file to every process that serves one PostgreSQL database: what one seals, all open.
   */
  secretsKeyFile?: string;
  /**
   * Run as one browser host of a cluster (`bcs serve --role host`): state in PostgreSQL (`databaseUrl`),
   * shared with API replicas and other hosts. The host registers and heartbeats; it answers only requests
   * that carry the cluster key (replicas add it) or come from its own loopback.
   */
  cluster?: ClusterHostOptions;
  /**
   * Where profiles, extensions, app bundles and replays are kept (default `dataDir`). A cluster's hosts give
   * one shared volume, so each finds what another kept.
   */
  blobDir?: string;
  /** The admin key to accept. Without one a key is generated; either way it is stored only as a hash. */
  apiKey?: string;
  /** A Chromium executable to use instead of discovery. */
  chromium?: string;
  /**
   * The headless shell that runs plain headless sessions: a path, or `off` for the full Chromium in every
   * session. Unset: a system chromium-headless-shell installed beside the system Chromium (BCS_HEADLESS_SHELL
   * sets it too).
   */
  headlessShell?: string;
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** How often inactivity timeouts are checked. */
  sweepIntervalMs?: number;
  now?: () => Date;
  /**
   * 'auto' (the default) runs processes in bubblewrap when it works here; 'off' runs them directly on the
   * host. BCS_SANDBOX=off does the same.
   */
  sandbox?: 'auto' | 'off';
  /** OTLP/HTTP collectors a browser's `telemetry.export.otlp.destination` may name. */
  otlpDestinations?: Record<string, OtlpDestination>;
  /** Browsers kept launched for `POST /browsers` with default launch options (default 1; 0 turns it off). */
  standby?: number;
  /**
   * The standby is launched once and not refilled: its browsers go to the first default creates, later ones
   * launch their own, and a first create that is not a default one stops it (what it launched is closed).
   * For a run on the embedded service, whose first browser then launches while the run is still loading: it
   * launches as soon as the service can launch, before stale sessions are ended, so only over a data dir of
   * its own.
   */
  standbyOnce?: boolean;
  /**
   * Sessions this host runs at once, on-demand and pooled (standby browsers are extra): what its memory
   * holds. A create beyond it waits in line for `createQueueTimeoutMs`, then answers 503 host_full with
   * Retry-After. Unset: no bound but the org's and projects' limits.
   */
  maxSessions?: number;
  /** How long a create waits for a free slot on a full host (default 30 s). */
  createQueueTimeoutMs?: number;
  /** Sets `max_concurrent_sessions` at start (null: no limit); without it the stored limit stays. */
  maxConcurrentSessions?: number | null;
  /** Where `POST /proxies/{id}/check` goes without a `url` (default https://example.com/). */
  proxyCheckUrl?: string;
  /** Whether the organisation has projects (default true); false answers 404 projects_disabled to project operations. */
  projectsEnabled?: boolean;
  /** How long a rotated API key keeps working when the rotate request does not say (days, default 7). */
  keyRotationGraceDays?: number;
  /** Refuse to start (SandboxRequiredError) where the process sandbox does not work: `bcs serve` without --unsandboxed. */
  requireSandbox?: boolean;
  /** Headful sessions show on this existing X display instead of a virtual screen each (`bcs run --headed`). */
  display?: { display: string; xauthority?: string };
  /**
   * Whether a session's Chromium keeps a spare renderer warm (default true, Chromium's own with site
   * isolation): a new page or site in the context it was made for starts sooner. `bcs run` turns it off: it
   * opens a context per scenario, and the spare, made for the context before, is started and killed unused.
   */
  spareRenderers?: boolean;
  /** How often event streams (deployments, invocations, login flows) send `sse_heartbeat` (default 10 s). */
  heartbeatMs?: number;
  /** How long a deployment's loaded spare worker waits for an invocation before it is stopped (default 10 min). */
  spareWorkerIdleMs?: number;
  /** How long a login flow may take, waiting for input included (default 10 minutes). */
  loginFlowTtlMs?: number;
  /** How often auth connections' due health checks are looked for (default 30 s). */
  authHealthTickMs?: number;
  /**
   * A run left `running` (its runner died) with no result, artifact or finish for this long is ended as
   * `interrupted`, keeping its results (default 6 h; 0: never).
   */
  runsStaleAfterMs?: number;
  /** Runs whose last activity is older than this many days are deleted with their files (default 90; 0: kept forever). */
  runsRetentionDays?: number;
  /** How often idle and expired runs are looked for (default 5 min). */
  runsSweepIntervalMs?: number;
  /**
   * The egress rules for sessions' traffic: 'hosted' (the default) refuses private and loopback addresses
   * unless a browser lists them in network.private_hosts; 'local' lets sessions reach this host's loopback
   * (local development). Port 25 and the service's own ports are refused under both.
   */
  networkPolicy?: EgressMode;
  /** false: sandboxed sessions share the host's network even where each could have its own (for comparisons). */
  sessionNetworks?: boolean;
  /** Where facts measured once per browser executable are kept across starts (default: the user's cache). */
  cacheDir?: string;
  /**
   * Serve the hosted wire only (`bcs serve --strict-wire`): routes of ours answer 404 as unknown paths do,
   * fields of ours are left out of answers and refused in requests, and no telemetry event of our own types
   * is captured; for trying clients against what the hosted service has (docs/service.md).
   */
  strictWire?: boolean;
  /**
   * Monitors: the root of the bcs package whose runner runs deployed checks (`bcs run`, as a process of its
   * own; `bcs serve` gives its own). Without it the service keeps no schedules and refuses deploys.
   */
  monitorRunner?: { packageDir: string };
  /** How often due checks are looked for (default 1 s). */
  monitorTickMs?: number;
  /** Checks this process runs at once (default 4). */
  monitorConcurrency?: number;
  /**
   * Private addresses and ranges (`10.0.0.0/8`, `192.168.1.5`) alert channels may reach although the network
   * policy refuses private destinations: an internal webhook receiver or mail relay.
   */
  alertPrivateNetworks?: string[];
  /** The service's environment as monitors' BCS_SECRET_* secrets are read from (default process.env). */
  monitorEnv?: NodeJS.ProcessEnv;
}

export interface RunningService {
  baseUrl: string;
  apiKey: string;
  /** True when the key was generated here and must be shown to the user once. */
  apiKeyGenerated: boolean;
  chromium: ChromiumExecutable;
  /** What runs plain headless sessions instead of `chromium`, when there is one. */
  headlessShell: ChromiumExecutable | undefined;
  /** Why processes run sandboxed or not. */
  sandboxReason: string;
  /** One line saying how sessions are kept apart from the host and each other in this mode. */
  isolation: string;
  /** The egress rules sessions are held to. */
  networkPolicy: EgressMode;
  /** Whether it serves the hosted wire only (ServiceOptions.strictWire). */
  strictWire: boolean;
  /** The origin answers' URLs start with (ServiceOptions.publicUrl), when one is set. */
  publicUrl: string | undefined;
  /** The key file sealed secrets (proxy passwords, credentials) are encrypted with. */
  secretsKey: string;
  /** Whether that key is the operator's (`secretsKeyFile`) rather than one the service made in its data dir. */
  secretsKeyGiven: boolean;
  /** As a cluster host: its id, the URL replicas reach it at, and whether it leads (runs pools, apps, login flows). */
  cluster: { hostId: string; url: string; isLeader(): boolean } | undefined;
  /** Where its state is kept: `sqlite <file>` or `postgres <url without password>`. */
  database: string;
  /** Ends every session, stops listening and closes the database. Safe to call more than once. */
  close(): Promise<void>;
  /**
   * Stops taking new sessions (creates and pool fills answer 503 draining with Retry-After, those waiting
   * for a slot too) and waits up to `graceMs` for the running ones to end; then closes. For a host told to
   * stop (SIGTERM) while clients still use its browsers.
   */
  drain(graceMs: number): Promise<void>;
}

export interface ClusterHostOptions {
  /** The file holding the key replicas and hosts share (32 bytes: raw, base64 or hex). */
  clusterKeyFile: string;
  /** The URL replicas reach this host at (http://10.0.0.5:8341); default: the address it listens on. */
  advertiseUrl?: string;
  /** The host's id in the cluster (stable across its restarts); default: the advertised host and port. */
  hostId?: string;
  /** How often the host heartbeats (default 1 s). */
  heartbeatMs?: number;
  /** How long a host may be silent before the cluster declares it gone and ends its sessions (default 10 s). */
  hostSilentMs?: number;
}
