export { handleBrowserUpgrade } from './browser-upgrade.js';
export { CdpTokens, upgradeTarget } from './client-admission.js';
export type { ClientConnectionEvents, ClientProtocol } from './client-admission.js';
export { fetchDiscovery, rewriteDiscovery } from './cdp-discovery.js';
export type { DiscoveryDocument, ProxyAddress } from './cdp-discovery.js';
export { cdpTokenToQuery, parseCdpPath } from './cdp-paths.js';
export { ConcurrencyLimit } from './limits.js';
export { FileTail } from './log-tail.js';
export { SUPERVISOR_PROCESSES, SessionLogs } from './logs.js';
export type { LogLine, SupervisorProcess } from './logs.js';
export { DEFAULT_VIEWPORT, SessionManager } from './sessions.js';
export type {
  LiveSession,
  Logger,
  SessionEndListener,
  SessionHooks,
  SessionReleaseHook,
  SessionStartHook,
  SessionStoppedHook,
} from './sessions.js';
export { Standby } from './standby.js';
