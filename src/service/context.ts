// What route modules are given: the service's parts, passed in rather than reached for.
import type { CdpTokens, SessionManager, SessionLogs } from './host/session/index.js';
import type { PoolManager, PoolMembers } from './host/pools/index.js';
import type { PoolsRepo } from './store/pools-repo.js';
import type { ClusterKey } from './cluster/cluster-key.js';
import type { Computers } from './host/input/index.js';
import type { PlaywrightExecutor } from './host/playwright/index.js';
import type { CodegenRecorders } from './host/codegen/index.js';
import type { ReplayManager } from './host/recording/index.js';
import type { ExtensionStore } from './host/extensions/index.js';
import type { ProfileStore } from './host/profiles/index.js';
import type { ProxyService } from './host/proxy/index.js';
import type { ProcessRegistry, Sandbox } from './host/process/index.js';
import type { TelemetryHub } from './host/telemetry/index.js';
import type { AppKeys, Deployments, Invocations } from './host/apps/index.js';
import type { EventLog } from './host/event-log.js';
import type { AuthConnections, LoginFlows } from './host/auth/index.js';
import type { SiteConfigs } from './host/sites/index.js';
import type { Runs } from './host/runs/index.js';
import type { Monitors } from './host/monitors/index.js';
import type { BrowserKeeper, BrowserLauncher } from './host/browsers/index.js';
import type { CredentialProviders, CredentialStore } from './host/credentials/index.js';
import type { ApiKeysRepo } from './store/api-keys-repo.js';
import type { AuditRepo } from './store/audit-repo.js';
import type { BrowsersRepo } from './store/browsers-repo.js';
import type { LimitsRepo } from './store/limits-repo.js';
import type { ProjectsRepo } from './store/projects-repo.js';
import type { TelemetryRepo } from './store/telemetry-repo.js';
import type { ReplaysRepo } from './store/replays-repo.js';
import type { MetricsExposition } from './metrics.js';
import type { ClientOrigins } from './routes/ws-origin.js';

export interface ServiceContext {
  /** Browser pools, and the org limits they and on-demand sessions are checked against. */
  pools: PoolManager;
  /** A cluster host: what its leader asks of the pool browsers it runs (cluster/pool-member-routes.ts). */
  poolMemberRoutes?: { members: PoolMembers; pools: PoolsRepo; key: ClusterKey };
  limits: LimitsRepo;
  keys: ApiKeysRepo;
  browsers: BrowsersRepo;
  sessions: SessionManager;
  tokens: CdpTokens;
  now: () => Date;
  /** Whether headful sessions can run on this host (Xvfb, xdotool and a full Chromium), and why not. */
  headful: { available: boolean; reason: string };
  /** Whether browsers here can run with Chrome Enterprise policies of their own (chrome_policy), and why not. */
  chromePolicy: { available: boolean; reason: string };
  /** The bubblewrap sandbox processes run in; null runs them unsandboxed on the host (see host/process/sandbox.ts). */
  sandbox: Sandbox | null;
  /** Telemetry capture per session, and the archive of captured events. */
  telemetry: TelemetryHub;
  telemetryEvents: TelemetryRepo;
  /** Chromium's stderr and the service's own lines per session (the logs stream's supervisor sources). */
  sessionLogs: SessionLogs;
  /** Where the database and the files kept beside it (replays) live. */
  dataDir: string;
  replays: ReplaysRepo;
  /** Recordings in progress, their markers and files. */
  recordings: ReplayManager;
  /** The processes of each session, the input controller of each, and Playwright code run against it. */
  processes: ProcessRegistry;
  computers: Computers;
  playwright: PlaywrightExecutor;
  /** Scenarios being recorded on sessions' browsers (the console's Record). */
  codegen: CodegenRecorders;
  /** Proxy configurations, their checks, and a session's route through one. */
  proxies: ProxyService;
  /** Profiles (kept browser state) and uploaded extensions, and how sessions load and save them. */
  profiles: ProfileStore;
  extensions: ExtensionStore;
  /** Projects, and whether the organisation has them (false: project operations answer 404 projects_disabled). */
  projects: ProjectsRepo;
  projectsEnabled: boolean;
  /** How long a rotated API key keeps working when the rotate request does not say (days). */
  keyRotationGraceDays: number;
  /** One record per mutating request. */
  audit: AuditRepo;
  /** Deployed apps and the invocations of their actions, with the events they and login flows stream. */
  deployments: Deployments;
  invocations: Invocations;
  events: EventLog;
  /** The API keys app workers are given (accepted beside stored keys). */
  appKeys: AppKeys;
  /** Credentials (sealed login values and TOTP secrets) and the organisation's external providers. */
  credentials: CredentialStore;
  credentialProviders: CredentialProviders;
  /** Per-domain settings applied as defaults to browsers (by `start_url`) and auth connections. */
  siteConfigs: SiteConfigs;
  /** Creates browser sessions the one way every caller does (site config, proxy, resources, telemetry, links). */
  browserLauncher: BrowserLauncher;
  /** Keeps browsers for someone to look at (POST /browsers/{id}/keep), and shows each one's `kept`. */
  keeper: BrowserKeeper;
  /** Managed auth: connections, their login flows, and the page where a person completes a flow. */
  authConnections: AuthConnections;
  loginFlows: LoginFlows;
  hostedUrl: (connectionId: string, code: string) => string;
  /** Runs runners report (`bcs run --report-to`): results, artifacts and each scenario's history. */
  runs: Runs;
  /** Deployed suites and their checks (`bcs monitor`): schedules, state, alerts. */
  monitors: Monitors;
  /** The origin each answer's URLs start with: the public URL when configured, else the request's. */
  origins: ClientOrigins;
  /** The interactive live view link of a running session, on the service's own address. */
  liveViewUrl: (sessionId: string) => string;
  /** What GET /metrics serves: numbers read from the parts above at each scrape. */
  metrics: MetricsExposition;
  /** How often event streams send `sse_heartbeat`. */
  heartbeatMs: number;
}
