export { handleBrowserUpgrade } from './browser-upgrade.js';
export { apiKeyAdmits, CdpTokens, rejectUpgrade, upgradeTarget } from './client-admission.js';
export type { ClientConnectionEvents, ClientProtocol, LiveViewMode } from './client-admission.js';
export { fetchDiscovery, rewriteDiscovery } from './cdp-discovery.js';
export type { DiscoveryDocument, ProxyAddress } from './cdp-discovery.js';
export { cdpTokenToQuery, parseCdpPath } from './cdp-paths.js';
export { ConcurrencyLimit } from './limits.js';
export { ClusterAdmission } from './cluster-admission.js';
export { FileTail } from './log-tail.js';
export { SUPERVISOR_PROCESSES, SessionLogs } from './logs.js';
export type { LogLine, SupervisorProcess } from './logs.js';
export { SessionManager } from './sessions.js';
export { HostCapacity, drainingRefusal, type HostCapacityOptions, type Slot } from './capacity.js';
export { DEFAULT_VIEWPORT } from '../browser/index.js';
export type {
  LiveSession,
  Logger,
  SessionCreatedListener,
  SessionKind,
  SessionEndListener,
  SessionHooks,
  SessionReleaseHook,
  SessionRestartHook,
  SessionStartHook,
  SessionStoppedHook,
} from './types.js';
export { expectedExit } from './restart.js';
export type { RestartChange } from './restart.js';
export { writeRecord } from './record.js';
export { Standby } from './standby.js';
