// Starts the embedded Browser Cloud service: database, sessions, HTTP app and CDP proxy on one port.
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildApp } from './app.js';
import { bearerToken } from './auth.js';
import { findChromium, type ChromiumExecutable } from './host/chromium-path.js';
import { CdpTokens, handleCdpUpgrade } from './host/cdp-proxy.js';
import { ConcurrencyLimit } from './host/limits.js';
import { PoolManager } from './host/pools.js';
import { detectSandbox, type Sandbox } from './host/sandbox.js';
import { SessionManager } from './host/sessions.js';
import { Standby } from './host/standby.js';
import { SessionLogs } from './host/session-logs.js';
import { TelemetryHub } from './host/telemetry-hub.js';
import { OtlpExporter, type OtlpDestination } from './host/telemetry-otlp.js';
import { headfulSupport } from './host/xvfb.js';
import { newApiKey } from './ids.js';
import { ApiKeysRepo } from './store/api-keys-repo.js';
import { BrowsersRepo } from './store/browsers-repo.js';
import { openDatabase } from './store/db.js';
import { LimitsRepo } from './store/limits-repo.js';
import { PoolsRepo } from './store/pools-repo.js';
import { ReplaysRepo } from './store/replays-repo.js';
import { TelemetryRepo } from './store/telemetry-repo.js';

export interface ServiceOptions {
  /** Where the database and session folders live. */
  dataDir: string;
  host?: string;
  port?: number;
  /** The admin key to accept. Without one a key is generated; either way it is stored only as a hash. */
  apiKey?: string;
  /** A Chromium executable to use instead of discovery. */
  chromium?: string;
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
  /** Sets `max_concurrent_sessions` at start (null: no limit); without it the stored limit stays. */
  maxConcurrentSessions?: number | null;
}

export interface RunningService {
  baseUrl: string;
  apiKey: string;
  /** True when the key was generated here and must be shown to the user once. */
  apiKeyGenerated: boolean;
  chromium: ChromiumExecutable;
  sessions: SessionManager;
  pools: PoolManager;
  standby: Standby;
  /** The process sandbox; null when processes run unsandboxed (`sandboxReason` says why). */
  sandbox: Sandbox | null;
  sandboxReason: string;
  /** Ends every session, stops listening and closes the database. Safe to call more than once. */
  close(): Promise<void>;
}

export async function startService(opts: ServiceOptions): Promise<RunningService> {
  if (opts.apiKey !== undefined && opts.apiKey.length < 16) {
    throw new Error('the API key must be at least 16 characters long');
  }
  const now = opts.now ?? (() => new Date());
  const logLevel = opts.logLevel ?? 'warn';
  await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  const chromium = await findChromium(opts.chromium ?? process.env.BCS_CHROMIUM);
  const sandboxMode = opts.sandbox ?? (process.env.BCS_SANDBOX === 'off' ? 'off' : 'auto');
  const { sandbox, reason: sandboxReason } =
    sandboxMode === 'off' ? { sandbox: null, reason: 'turned off' } : await detectSandbox({ dataDir: opts.dataDir });
  const db = openDatabase(opts.dataDir);
  const keys = new ApiKeysRepo(db);
  const browsers = new BrowsersRepo(db);
  const tokens = new CdpTokens();
  const apiKey = opts.apiKey ?? newApiKey();
  keys.add(apiKey, { name: 'admin', now: now() });

  // The app's logger is created with the app; sessions log through a small forwarder to it.
  let app: ReturnType<typeof buildApp> | undefined;
  const log = {
    info: (obj: object, msg: string) => app?.log.info(obj, msg),
    warn: (obj: object, msg: string) => app?.log.warn(obj, msg),
  };
  const sessions = new SessionManager({ repo: browsers, chromium, sandbox, sessionsDir: join(opts.dataDir, 'sessions'), now, log });
  // Measured in the background now, so the first create does not pay for the whole measurement.
  void sessions.windowFrame();
  // Logs first: telemetry writes to a session's service log from its own start hook.
  const sessionLogs = new SessionLogs();
  sessions.onStart(sessionLogs.onSessionStart);
  const telemetryEvents = new TelemetryRepo(db);
  const exporter = new OtlpExporter(opts.otlpDestinations ?? {}, log);
  const telemetry = new TelemetryHub({ repo: telemetryEvents, exporter, sessionLog: (id, line) => sessionLogs.service(id, line), log });
  sessions.onStart(telemetry.onSessionStart);
  // Telemetry set at acquire belongs to that lease; the next holder gets what the browser was launched with.
  sessions.onRelease((id) => telemetry.restoreCreated(id));
  const headful = await headfulSupport(chromium.headlessShell);
  const limits = new LimitsRepo(db);
  if (opts.maxConcurrentSessions !== undefined) limits.set({ max_concurrent_sessions: opts.maxConcurrentSessions || null });
  const pools = new PoolManager({ repo: new PoolsRepo(db), browsers, sessions, tokens, log, now, headful, telemetry });
  const limit = new ConcurrencyLimit(limits, { onDemand: () => sessions.onDemandSessions, reserved: () => pools.reserved() });
  pools.setLimit(limit);
  sessions.setAdmission((onDemand) => limit.admitSession(onDemand));
  const standby = new Standby(sessions, opts.standby ?? 1, log);
  app = buildApp({ keys, browsers, sessions, tokens, now, headful, sandbox, logLevel, pools, limits, telemetry, telemetryEvents, sessionLogs, dataDir: opts.dataDir, replays: new ReplaysRepo(db) });
  if (!sandbox) app.log.warn({ reason: sandboxReason }, 'processes run unsandboxed on the host');
  await sessions.recoverStale();
  sessions.startSweeper(opts.sweepIntervalMs ?? 1000);
  // After stale sessions are ended: pools refill what the last run had, the standby launches its own.
  pools.start();
  standby.start();

  const cdpDeps = {
    sessions,
    tokens,
    isValidApiKey: (key: string) => keys.authenticate(key, now()) !== undefined,
    connections: telemetry.connections,
  };
  app.server.on('upgrade', (req, socket, head) => {
    // A stray header such as `Bearer` alone must not throw inside the upgrade event.
    if (req.headers.authorization && !bearerToken(req.headers.authorization)) delete req.headers.authorization;
    handleCdpUpgrade(cdpDeps, req, socket, head);
  });

  const host = opts.host ?? '127.0.0.1';
  await app.listen({ host, port: opts.port ?? 0 });
  const { port } = app.server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    baseUrl: `http://${urlHost}:${port}`,
    apiKey,
    apiKeyGenerated: opts.apiKey === undefined,
    chromium,
    sessions,
    pools,
    standby,
    sandbox,
    sandboxReason,
    close: () =>
      (closing ??= (async () => {
        pools.close();
        await standby.close();
        await sessions.closeAll('service_shutdown', 'the service was stopped');
        await app.close();
        await telemetry.close();
        db.close();
      })()),
  };
}
