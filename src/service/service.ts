// Starts the embedded Browser Cloud service: database, sessions, HTTP app and CDP proxy on one port.
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildApp } from './app.js';
import { bearerToken } from './auth.js';
import { findChromium, type ChromiumExecutable } from './host/chromium-path.js';
import { CdpTokens, handleCdpUpgrade } from './host/cdp-proxy.js';
import { detectSandbox, type Sandbox } from './host/sandbox.js';
import { SessionManager } from './host/sessions.js';
import { headfulSupport } from './host/xvfb.js';
import { newApiKey } from './ids.js';
import { ApiKeysRepo } from './store/api-keys-repo.js';
import { BrowsersRepo } from './store/browsers-repo.js';
import { openDatabase } from './store/db.js';

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
}

export interface RunningService {
  baseUrl: string;
  apiKey: string;
  /** True when the key was generated here and must be shown to the user once. */
  apiKeyGenerated: boolean;
  chromium: ChromiumExecutable;
  sessions: SessionManager;
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
  app = buildApp({ keys, browsers, sessions, tokens, now, headful: await headfulSupport(chromium.headlessShell), sandbox, logLevel });
  if (!sandbox) app.log.warn({ reason: sandboxReason }, 'processes run unsandboxed on the host');
  await sessions.recoverStale();
  sessions.startSweeper(opts.sweepIntervalMs ?? 1000);

  const cdpDeps = { sessions, tokens, isValidApiKey: (key: string) => keys.authenticate(key, now()) !== undefined };
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
    sandbox,
    sandboxReason,
    close: () =>
      (closing ??= (async () => {
        await sessions.closeAll('service_shutdown', 'the service was stopped');
        await app.close();
        db.close();
      })()),
  };
}
