// Starts the embedded Browser Cloud service: database, sessions, HTTP app and the browsers' WebSocket endpoints (CDP, WebDriver BiDi) on one port.
import { prepareDataDir } from './host/data-dir.js';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildApp } from './app.js';
import { closeWithin, trackSockets } from './http-shutdown.js';
import { clientOrigins, publicOriginOf } from './routes/ws-origin.js';
import type { RouteEntry } from './auth.js';
import { chromePolicySupport, defaultCacheDir, findChromium, findHeadlessShell, type ChromiumExecutable, headfulSupport } from './host/browser/index.js';
import {
  CdpTokens,
  ConcurrencyLimit,
  DEFAULT_VIEWPORT,
  HostCapacity,
  ClusterAdmission,
  drainingRefusal,
  SessionManager,
  Standby,
  SessionLogs,
} from './host/session/index.js';
import { PoolManager, PoolMembers } from './host/pools/index.js';
import { PoolHosts } from './cluster/pool-hosts.js';
import { ExtensionStore, extensionSupport } from './host/extensions/index.js';
import { ProfileStore } from './host/profiles/index.js';
import { ProxyService, type EgressRefusal } from './host/proxy/index.js';
import { EgressPolicy, ServicePorts } from './host/network/index.js';
import { Accounts, describeIsolation, detectSandbox, Launcher, ProcessRegistry, type Sandbox } from './host/process/index.js';
import { Computers } from './host/input/index.js';
import { LiveViews, liveViewPageUrl } from './host/live/index.js';
import { PlaywrightExecutor } from './host/playwright/index.js';
import { CodegenRecorders } from './host/codegen/index.js';
import { ReplayManager } from './host/recording/index.js';
import { TelemetryHub, OtlpExporter } from './host/telemetry/index.js';
import { BrowserKeeper, BrowserLauncher } from './host/browsers/index.js';
import { ActionWorkers, AppKeys, Deployments, Invocations, WorkerLauncher } from './host/apps/index.js';
import { EventLog } from './host/event-log.js';
import { AuthConnections, HealthChecks, LoginFlows, flowBrowserLauncher } from './host/auth/index.js';
import { AuthConnectionsRepo } from './store/auth-connections-repo.js';
import { SiteConfigs } from './host/sites/index.js';
import { ArtifactFiles, Runs, RunUpkeep } from './host/runs/index.js';
import { RunsRepo } from './store/runs-repo.js';
import { MonitorsRepo } from './store/monitors-repo.js';
import { alertNetworksOf, composeMonitors } from './host/monitors/index.js';
import { SiteConfigsRepo } from './store/site-configs-repo.js';
import { newApiKey } from './ids.js';
import { ApiKeysRepo, KEY_CACHE_MS, isExpired } from './store/api-keys-repo.js';
import { AuditRepo } from './store/audit-repo.js';
import { BrowsersRepo } from './store/browsers-repo.js';
import { BrowserKeepsRepo } from './store/browser-keeps-repo.js';
import { DeploymentsRepo } from './store/deployments-repo.js';
import { InvocationsRepo } from './store/invocations-repo.js';
import { describeStore, openStore } from './store/open-store.js';
import { LimitsRepo } from './store/limits-repo.js';
import { PoolsRepo } from './store/pools-repo.js';
import { ExtensionsRepo } from './store/extensions-repo.js';
import { ProfilesRepo } from './store/profiles-repo.js';
import { ProxiesRepo } from './store/proxies-repo.js';
import { CredentialProvidersRepo, CredentialsRepo } from './store/credentials-repo.js';
import { CredentialProviders, CredentialStore, connectProvider } from './host/credentials/index.js';
import { SecretsBox } from './secrets-box.js';
import { advertisedUrl, clusterHostId, joinCluster } from './cluster/host-role.js';
import { ClusterKey } from './cluster/cluster-key.js';
import { hostGuard } from './cluster/host-guard.js';
import { serveUpgrades } from './upgrades.js';
import { ServiceMetrics } from './metrics.js';
import { ProjectsRepo } from './store/projects-repo.js';
import { ReplaysRepo } from './store/replays-repo.js';
import { TelemetryRepo } from './store/telemetry-repo.js';
import type { RunningService as PublicRunningService, ServiceOptions } from './public.js';

export type { ServiceOptions };

/** startService was asked for a sandbox (requireSandbox) and there is none; the message says why. */
export class SandboxRequiredError extends Error {
  override name = 'SandboxRequiredError';
}

/** A started service: what the package exports (public.ts), and the host's parts its own code and tests use. */
export interface RunningService extends PublicRunningService {
  chromium: ChromiumExecutable;
  headlessShell: ChromiumExecutable | undefined;
  sessions: SessionManager;
  pools: PoolManager;
  standby: Standby;
  /** The process sandbox; null when processes run unsandboxed (`sandboxReason` says why). */
  sandbox: Sandbox | null;
  /** Every HTTP route the app serves (method and URL pattern). */
  routes(): RouteEntry[];
  /** Ends idle runs and deletes expired ones; its sweep runs where once-per-database work runs. */
  runUpkeep: RunUpkeep;
}

/** How long requests under way may take to finish once the service is stopping (http-shutdown.ts). */
const SHUTDOWN_GRACE_MS = 5000;
/** How often a drain looks whether the running sessions have ended. */
const DRAIN_POLL_MS = 250;
const DEFAULT_CREATE_QUEUE_TIMEOUT_MS = 30_000;

export async function startService(opts: ServiceOptions): Promise<RunningService> {
  if (opts.apiKey !== undefined && opts.apiKey.length < 16) {
    throw new Error('the API key must be at least 16 characters long');
  }
  if (opts.keyRotationGraceDays !== undefined && !(opts.keyRotationGraceDays >= 0 && opts.keyRotationGraceDays <= 3650)) {
    throw new Error('keyRotationGraceDays must be between 0 and 3650');
  }
  const now = opts.now ?? (() => new Date());
  const logLevel = opts.logLevel ?? 'warn';
  const strictWire = opts.strictWire ?? false;
  // Checked before anything starts: a bad public URL would make every answer's URLs useless.
  const publicOrigin = opts.publicUrl === undefined ? undefined : publicOriginOf(opts.publicUrl);
  const alertNetworks = alertNetworksOf(opts.alertPrivateNetworks ?? []);
  await prepareDataDir(opts.dataDir);
  const chromium = await findChromium(opts.chromium ?? process.env.BCS_CHROMIUM);
  const headlessShell = await findHeadlessShell(chromium, opts.headlessShell ?? process.env.BCS_HEADLESS_SHELL);
  const sandboxMode = opts.sandbox ?? (process.env.BCS_SANDBOX === 'off' ? 'off' : 'auto');
  const { sandbox, reason: sandboxReason } =
    sandboxMode === 'off' ? { sandbox: null, reason: 'turned off' } : await detectSandbox({ dataDir: opts.dataDir, network: opts.sessionNetworks });
  // Decided before anything listens, so nothing is ever served unsandboxed by accident.
  if (opts.requireSandbox && !sandbox) throw new SandboxRequiredError(`the process sandbox is not available (${sandboxReason})`);
  // The operator's key is read before anything opens: a bad one stops the start with nothing to undo.
  const secrets = opts.secretsKeyFile ? SecretsBox.fromKeyFile(opts.secretsKeyFile) : SecretsBox.forDataDir(opts.dataDir);
  const clusterKey = opts.cluster ? ClusterKey.fromFile(opts.cluster.clusterKeyFile) : undefined;
  // What a cluster host answers at all, over HTTP and WebSocket alike.
  const guard = clusterKey && hostGuard(clusterKey);
  const listenOn = { host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 };
  const hostId = opts.cluster ? clusterHostId(opts.cluster, listenOn) : undefined;
  const clusterDb = opts.cluster ? await openStore({ dataDir: opts.dataDir, databaseUrl: opts.databaseUrl, cluster: true }) : undefined;
  const database = clusterDb ?? (await openStore({ dataDir: opts.dataDir, databaseUrl: opts.databaseUrl }));
  const keys = new ApiKeysRepo(database, { cacheMs: KEY_CACHE_MS });
  const browsers = new BrowsersRepo(database);
  const limits = new LimitsRepo(database);
  // A URL any process of a cluster made works on the host that runs the session.
  const tokens = new CdpTokens(clusterKey?.derive('session tokens'));
  // Profiles, extensions, app bundles and replays: a volume the cluster's hosts share.
  const blobDir = opts.blobDir ?? opts.dataDir;
  const apiKey = opts.apiKey ?? newApiKey();
  const admin = await keys.add(apiKey, { name: 'admin', now: now() });
  // A configured key that was deleted or expired through the API stays dead: a restart must not revive it.
  if (admin.deleted_at || isExpired(admin, now())) {
    await database.close();
    throw new Error(`the API key given to the service (${admin.masked_key}) was ${admin.deleted_at ? 'deleted' : 'expired'}; give another key`);
  }

  // The app's logger is created with the app; sessions log through a small forwarder to it.
  let app: ReturnType<typeof buildApp> | undefined;
  const log = {
    info: (obj: object, msg: string) => app?.log.info(obj, msg),
    warn: (obj: object, msg: string) => app?.log.warn(obj, msg),
  };
  // Every session's traffic leaves through its egress proxy, held to one policy; the service's own ports
  // (the API's, DevTools bridges, the proxies themselves) are registered as they open.
  const servicePorts = new ServicePorts();
  const sessionLogs = new SessionLogs();
  let telemetryHub: TelemetryHub | undefined;
  const egress = {
    policy: new EgressPolicy(opts.networkPolicy ?? 'hosted', servicePorts),
    servicePorts,
    refused: (sessionId: string, r: EgressRefusal) => {
      sessionLogs.service(sessionId, `egress refused ${r.method} ${r.host}:${r.port}: ${r.message} (${r.code})`);
      telemetryHub?.egressRefused(sessionId, r);
    },
  };
  const capacity = new HostCapacity({ maxSessions: opts.maxSessions ?? null, queueTimeoutMs: opts.createQueueTimeoutMs ?? DEFAULT_CREATE_QUEUE_TIMEOUT_MS });
  const sessions = new SessionManager({
    repo: browsers,
    executables: { full: chromium, headlessShell },
    sandbox,
    sessionsDir: join(opts.dataDir, 'sessions'),
    cacheDir: opts.cacheDir ?? defaultCacheDir(),
    now,
    log,
    display: opts.display,
    spareRenderers: opts.spareRenderers,
    egress,
    capacity,
    cluster: hostId === undefined ? undefined : { hostId, insert: (row) => clusterAdmission.insert(row) },
  });
  const clusterAdmission = new ClusterAdmission(database, limits);
  // Measured in the background now, so the first create does not pay for the whole measurement.
  void sessions.windowFrame();
  const telemetryEvents = new TelemetryRepo(database, { log });
  const exporter = new OtlpExporter(opts.otlpDestinations ?? {}, log);
  const telemetry = new TelemetryHub({ repo: telemetryEvents, exporter, sessionLog: (id, line) => sessionLogs.service(id, line), log });
  telemetryHub = telemetry;
  const headful = await headfulSupport(chromium.headlessShell);
  if (opts.maxConcurrentSessions !== undefined) await limits.set({ max_concurrent_sessions: opts.maxConcurrentSessions || null });
  const proxies = new ProxyService({ repo: new ProxiesRepo(database), secrets, now, checkUrl: opts.proxyCheckUrl });
  const credentials = new CredentialStore({ repo: new CredentialsRepo(database), secrets, now });
  const siteConfigs = new SiteConfigs({ repo: new SiteConfigsRepo(database), proxies, now });
  const credentialProviders = new CredentialProviders({ repo: new CredentialProvidersRepo(database), secrets, connect: connectProvider, now });
  // Profiles and extensions live beside the database; loading and saving them plug into every launch and end.
  const profiles = new ProfileStore({ repo: new ProfilesRepo(database), dir: join(blobDir, 'profiles'), now, log });
  const extensions = new ExtensionStore({ repo: new ExtensionsRepo(database), dir: join(blobDir, 'extensions'), now, log, support: extensionSupport(chromium) });
  await profiles.prepare();
  await extensions.prepare();
  // Runs' artifacts (screenshots, traces, videos) are files beside the others, never rows.
  const runArtifacts = new ArtifactFiles(join(blobDir, 'runs'));
  await runArtifacts.prepare();
  const runsRepo = new RunsRepo(database);
  const runs = new Runs({ repo: runsRepo, files: runArtifacts, now });
  // Idle runs ended, expired ones deleted: swept where the once-per-database work runs (below).
  const runUpkeep = new RunUpkeep({ repo: runsRepo, files: runArtifacts, now, log,
    staleAfterMs: opts.runsStaleAfterMs, retentionDays: opts.runsRetentionDays, intervalMs: opts.runsSweepIntervalMs });
  const chromePolicy = chromePolicySupport(chromium, sandbox, sandboxReason);
  let invocations: Invocations | undefined;
  // One way to create a browser, for POST /browsers, pools and login flows alike.
  const browserLauncher = new BrowserLauncher({
    sessions,
    siteConfigs,
    proxies,
    profiles,
    extensions,
    telemetry,
    headful,
    chromePolicy,
    // Invocations start after pools (deployments recover into them); a create only asks once serving.
    checkInvocation: (projectId, id, field) => invocations!.checkRunning(projectId, id, field),
  });
  const poolMembers = new PoolMembers({ hostId: hostId ?? '', sessions, browsers, tokens, log, launcher: browserLauncher, proxies, profiles, telemetry });
  // A cluster's leader keeps every pool's books and spreads their browsers over the hosts.
  const poolHosts = clusterKey && new PoolHosts(poolMembers, clusterKey);
  const poolsRepo = new PoolsRepo(database);
  const pools = new PoolManager({ repo: poolsRepo, browsers, sessions, log, now, headful, chromePolicy, telemetry, members: poolMembers, place: poolHosts?.place, proxies, profiles, extensions });
  const replays = new ReplaysRepo(database);
  const recordings = new ReplayManager({ repo: replays, dir: join(blobDir, 'replays'), now, log });
  const launcher = new Launcher(sandbox, Accounts.fromHost());
  const processes = new ProcessRegistry(launcher);
  const playwright = new PlaywrightExecutor({ sandbox, launcher });
  const codegen = new CodegenRecorders({ now });
  const computers = new Computers();
  // Started once stale sessions are ended (below); the metrics read it from the first scrape.
  const standby = new Standby(sessions, opts.standby ?? 1, log, { refill: !opts.standbyOnce });
  let draining: Promise<void> | undefined;
  const monitorsRepo = new MonitorsRepo(database);
  const metrics = new ServiceMetrics({
    sessions,
    pools,
    standby,
    capacity,
    draining: () => draining !== undefined,
    checks: async () =>
      (await monitorsRepo.allChecks()).map((c) => ({ ...c, status: c.health.status, consecutive_failures: c.health.consecutive_failures })),
  });
  const liveViews = new LiveViews({ computers, sessions, tokens, viewportOf: async (id) => (await browsers.get(id))?.viewport ?? DEFAULT_VIEWPORT, events: telemetry.liveViews, log });
  sessions.setHooks({
    // Profiles copy their user data into the view first; extensions add theirs beside it.
    prepareLaunch: [profiles.load, extensions.load],
    // Logs first: telemetry writes to a session's service log from its own start hook.
    start: [sessionLogs.onSessionStart, telemetry.onSessionStart],
    created: [metrics.sessionCreated],
    // What belonged to a pool lease ends with it: telemetry set at acquire, a switched proxy, recordings
    // (kept), processes, Playwright workers and scenario recorders. The next holder gets the browser as it
    // was launched.
    release: [
      (s) => telemetry.restoreCreated(s.id),
      pools.leaseReleased,
      (s) => recordings.stopForSession(s.id),
      (s) => processes.release(s),
      (s) => playwright.release(s.id),
      (s) => codegen.release(s.id),
      liveViews.release,
    ],
    // The profile's save is pending from here; then the pool refills.
    end: [profiles.ending, poolMembers.memberEnded, metrics.sessionEnded],
    // Chromium is gone and its files complete: a read-write session's user data becomes its profile.
    stopped: [profiles.stopped],
    // Chromium was restarted in a session (extensions or a profile loaded): what was connected to the old
    // one follows the new one.
    restarted: [sessionLogs.onRestart, telemetry.onRestart, computers.onRestart, recordings.onRestart, poolMembers.memberRestarted],
  });
  // A one-shot standby is an embedded run's first browser, in a data dir made for the run: there is nothing
  // stale to end first, so it launches now, beside the rest of the start, instead of once the service listens.
  if (opts.standbyOnce) standby.start();
  const limit = new ConcurrencyLimit(limits, {
    onDemand: (projectId) => (projectId === undefined ? sessions.onDemandSessions : sessions.onDemandIn(projectId)),
    reserved: (projectId) => pools.reserved(projectId),
  });
  pools.setLimit(limit);
  sessions.setAdmission(async (projectId) => {
    const caps = await limit.caps(projectId);
    return () => limit.admitSession(caps, projectId);
  });
  // Apps: deployments build into <dataDir>/deployments; each invocation runs in a worker of its own, whose
  // SDK reaches this service (its address is known once it listens) with a key of the deployment's project.
  let baseUrl = '';
  const appKeys = new AppKeys();
  const invocationsRepo = new InvocationsRepo(database);
  const events = new EventLog(invocationsRepo, now, log);
  const workers = new ActionWorkers({
    launcher: new WorkerLauncher({ sandbox, dir: join(opts.dataDir, 'app-workers'), serviceIsRoot: process.getuid?.() === 0 }),
    keys: appKeys,
    baseUrl: () => baseUrl,
    spareIdleMs: opts.spareWorkerIdleMs,
  });
  const deployments = new Deployments({
    repo: new DeploymentsRepo(database),
    events,
    workers,
    secrets,
    dir: join(blobDir, 'deployments'),
    now,
    log,
    onStopped: (id, reason) => invocations?.deploymentStopped(id, reason),
  });
  invocations = new Invocations({
    repo: invocationsRepo,
    deployments,
    workers,
    events,
    now,
    maxConcurrent: async (projectId) => (projectId === null ? null : (await limits.project(projectId)).max_concurrent_invocations),
    browsers: { of: async (id) => (await browsers.activeOfInvocation(id)).map((b) => b.id), end: (id, detail) => sessions.end(id, 'deleted', detail) },
    log,
  });
  // Managed auth: login flows run in sessions of their own with the connection's profile read-write.
  // Links made outside a request (a login flow's page, its live view) start with the public URL too.
  const hostedUrl = (connectionId: string, code: string) => `${publicOrigin ?? baseUrl}/auth/connections/${connectionId}/hosted?code=${code}`;
  const liveViewUrl = (sessionId: string) => liveViewPageUrl(tokens, publicOrigin ?? baseUrl, sessionId, 'interactive');
  const flowBrowsers = flowBrowserLauncher({
    sessions,
    launcher: browserLauncher,
    profiles,
    proxies,
    siteConfigs,
    record: async (id) => {
      const viewport = (await browsers.get(id))?.viewport ?? DEFAULT_VIEWPORT;
      return (await recordings.start(sessions.get(id)!, { framerate: 10, maxDurationS: 1800, viewport: { width: viewport.width, height: viewport.height } })).id;
    },
    timeoutSeconds: (opts.loginFlowTtlMs ?? 600_000) / 1000 });
  const authConnections = new AuthConnections({ repo: new AuthConnectionsRepo(database), profiles, proxies, credentials, providers: credentialProviders, now });
  const loginFlows = new LoginFlows({
    connections: authConnections,
    credentials,
    providers: credentialProviders,
    launch: flowBrowsers,
    events,
    now,
    flowTtlMs: opts.loginFlowTtlMs,
    hostedUrl,
    log,
  });
  const healthChecks = new HealthChecks({ connections: authConnections, flows: loginFlows, launch: flowBrowsers, now, tickMs: opts.authHealthTickMs, log });
  let liveHosts: readonly string[] = [];
  const { monitors, scheduler, launcher: checkLauncher } = await composeMonitors({
    repo: monitorsRepo,
    sandbox,
    dataDir: opts.dataDir,
    blobDir,
    packageDir: opts.monitorRunner?.packageDir,
    credentials,
    env: opts.monitorEnv ?? process.env,
    policy: egress.policy,
    alertNetworks,
    keys: appKeys,
    runs,
    baseUrl: () => baseUrl,
    origin: () => publicOrigin ?? baseUrl,
    now,
    hostId,
    liveHosts: () => liveHosts,
    concurrency: opts.monitorConcurrency ?? 4,
    log,
  });
  // What exists once per database: run by the one process, or by a cluster's leader host once it leads.
  // What the last run left in progress fails; pools refill what the last run had.
  const startOncePerCluster = async () => {
    await deployments.recover();
    await invocations.recover();
    await loginFlows.recover();
    healthChecks.start();
    runUpkeep.start();
    await pools.start(poolHosts?.all());
    if (!checkLauncher.unavailableReason) scheduler.start(opts.monitorTickMs ?? 1000);
  };
  app = buildApp({ keys, browsers, sessions, tokens, now, headful, chromePolicy, sandbox, logLevel, pools, limits, telemetry, telemetryEvents, sessionLogs, dataDir: opts.dataDir, replays, recordings, processes, computers, playwright, codegen, proxies, profiles, extensions,
    projects: new ProjectsRepo(database), projectsEnabled: opts.projectsEnabled ?? true, keyRotationGraceDays: opts.keyRotationGraceDays ?? 7, audit: new AuditRepo(database),
    deployments, invocations, events, appKeys, credentials, credentialProviders, authConnections, loginFlows, hostedUrl, liveViewUrl, origins: clientOrigins(publicOrigin), siteConfigs, runs, monitors, browserLauncher, metrics, heartbeatMs: opts.heartbeatMs ?? 10_000, strictWire,
    keeper: new BrowserKeeper({ keeps: new BrowserKeepsRepo(database), sessions, now }),
    guard, poolMemberRoutes: clusterKey && { members: poolMembers, pools: poolsRepo, key: clusterKey } });
  if (!sandbox) app.log.warn({ reason: sandboxReason }, 'processes run unsandboxed on the host');
  const sockets = trackSockets(app.server);
  await sessions.recoverStale();
  sessions.startSweeper(opts.sweepIntervalMs ?? 1000);
  // After stale sessions are ended: pools refill what the last run had, the standby launches its own.
  if (!opts.cluster) await startOncePerCluster();
  if (!opts.standbyOnce) standby.start();

  serveUpgrades(app.server, { guard, keys, browsers, sessions, tokens, telemetry, liveViews, now, logError: (obj, msg) => app?.log.error(obj, msg) });

  const recovered = await recordings.recover(hostId);
  if (recovered) app.log.info({ recovered }, 'finalised replays left unfinished by the previous run');

  const host = listenOn.host;
  await app.listen({ host, port: listenOn.port });
  const { port } = app.server.address() as AddressInfo;
  const releaseApiPort = servicePorts.add(port);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  // App workers reach the service on loopback whatever address it serves others on.
  baseUrl = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : urlHost}:${port}`;
  const clusterUrl = opts.cluster && advertisedUrl(opts.cluster, { host, port });
  const membership =
    opts.cluster && clusterDb && hostId && clusterUrl
      ? joinCluster(opts.cluster, { db: clusterDb, id: hostId, url: clusterUrl, maxSessions: capacity.max, now, log }, {
          load: () => ({ sessions: capacity.inUse, queued: capacity.queued, standbyReady: standby.available, draining: draining !== undefined }),
          led: async (live) => {
            liveHosts = live.map((h) => h.id);
            poolHosts?.update(live);
            await startOncePerCluster();
          },
          // Pool browsers on other hosts end without telling the leader: the records say which did.
          leading: async (live) => {
            liveHosts = live.map((h) => h.id);
            poolHosts?.update(live);
            if (pools.spansHosts) pools.reconcile(await browsers.activePoolMemberIds());
          },
          // Their replays were left recording; the files are on the shared volume, finished here.
          lost: (gone) => {
            log.warn({ hosts: gone.map((h) => ({ id: h.id, sessions_ended: h.sessionIds.length })) }, 'cluster hosts stopped answering: their sessions ended');
            for (const h of gone) void recordings.recover(h.id).catch(() => undefined);
          },
          declaredGone: () => sessions.endAll('host_lost', 'this browser host was cut off from the cluster for longer than the others wait'),
        })
      : undefined;
  await membership?.start();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // First: replicas stop sending this host anything new.
      await membership?.close();
      pools.close();
      // A check cut off here is given back and runs again at the next start: not the check's failure.
      await scheduler.close();
      await healthChecks.close();
      await runUpkeep.close();
      await loginFlows.close();
      await invocations.close();
      await Promise.all([deployments.close(), workers.close()]);
      await standby.close();
      await sessions.closeAll('service_shutdown', 'the service was stopped');
      await closeWithin(() => app!.close(), sockets, SHUTDOWN_GRACE_MS, (open) =>
        app!.log.warn({ open }, 'connections still open at shutdown were cut'),
      );
      releaseApiPort();
      await Promise.all([recordings.close(), playwright.close(), codegen.closeAll()]);
      await telemetry.close();
      // Events are stored behind their publish: the last ones land before the database closes.
      await events.flush();
      await database.close();
    })());
  const drain = (graceMs: number) =>
    (draining ??= (async () => {
      const refusal = drainingRefusal();
      capacity.refuse(refusal);
      // A cluster's pools go on over the other hosts (a draining leader still keeps their books until it
      // exits); this host's idle pool browsers end, and the pools refill where hosts take sessions.
      if (opts.cluster) void poolMembers.endIdle('its host is draining');
      else pools.refuse(refusal);
      // Replicas hear it at once rather than at the next heartbeat: no create is placed here from now on.
      void membership?.beat();
      await standby.close();
      // Sessions in use end when their clients end them (or time out); idle pool browsers serve nobody.
      const inUse = () => sessions.onDemandSessions + pools.leased;
      log.info({ sessions: inUse(), grace_ms: graceMs }, 'draining: no new sessions; waiting for the running ones to end');
      const deadline = Date.now() + graceMs;
      while (inUse() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, Math.min(DRAIN_POLL_MS, deadline - Date.now())));
      if (inUse() > 0) log.warn({ sessions: inUse() }, 'the drain grace period passed; ending the sessions still running');
      await close();
    })());
  return {
    baseUrl: `http://${urlHost}:${port}`,
    apiKey,
    apiKeyGenerated: opts.apiKey === undefined,
    chromium,
    headlessShell,
    sessions,
    pools,
    standby,
    sandbox,
    sandboxReason,
    isolation: describeIsolation(sandbox, sandboxReason),
    networkPolicy: egress.policy.mode,
    strictWire,
    database: describeStore({ dataDir: opts.dataDir, databaseUrl: opts.databaseUrl }),
    publicUrl: publicOrigin,
    secretsKey: secrets.keyPath,
    secretsKeyGiven: opts.secretsKeyFile !== undefined,
    cluster: membership && hostId && clusterUrl ? { hostId, url: clusterUrl, isLeader: () => membership.isLeader } : undefined,
    routes: () => [...app.routeTable],
    runUpkeep,
    close,
    drain,
  };
}
