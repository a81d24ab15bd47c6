// What route modules are given: the service's parts, passed in rather than reached for.
import type { CdpTokens } from './host/cdp-proxy.js';
import type { PoolManager } from './host/pools.js';
import type { Sandbox } from './host/sandbox.js';
import type { SessionManager } from './host/sessions.js';
import type { SessionLogs } from './host/session-logs.js';
import type { TelemetryHub } from './host/telemetry-hub.js';
import type { ApiKeysRepo } from './store/api-keys-repo.js';
import type { BrowsersRepo } from './store/browsers-repo.js';
import type { LimitsRepo } from './store/limits-repo.js';
import type { TelemetryRepo } from './store/telemetry-repo.js';
import type { ReplaysRepo } from './store/replays-repo.js';

export interface ServiceContext {
  /** Browser pools, and the org limits they and on-demand sessions are checked against. */
  pools: PoolManager;
  limits: LimitsRepo;
  keys: ApiKeysRepo;
  browsers: BrowsersRepo;
  sessions: SessionManager;
  tokens: CdpTokens;
  now: () => Date;
  /** Whether headful sessions can run on this host (Xvfb, xdotool and a full Chromium), and why not. */
  headful: { available: boolean; reason: string };
  /** The bubblewrap sandbox processes run in; null runs them unsandboxed on the host (see host/sandbox.ts). */
  sandbox: Sandbox | null;
  /** Telemetry capture per session, and the archive of captured events. */
  telemetry: TelemetryHub;
  telemetryEvents: TelemetryRepo;
  /** Chromium's stderr and the service's own lines per session (the logs stream's supervisor sources). */
  sessionLogs: SessionLogs;
  /** Where the database and the files kept beside it (replays) live. */
  dataDir: string;
  replays: ReplaysRepo;
}
