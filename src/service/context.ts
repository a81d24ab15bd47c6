// What route modules are given: the service's parts, passed in rather than reached for.
import type { CdpTokens } from './host/cdp-proxy.js';
import type { SessionManager } from './host/sessions.js';
import type { ApiKeysRepo } from './store/api-keys-repo.js';
import type { BrowsersRepo } from './store/browsers-repo.js';

export interface ServiceContext {
  keys: ApiKeysRepo;
  browsers: BrowsersRepo;
  sessions: SessionManager;
  tokens: CdpTokens;
  now: () => Date;
  /** Whether headful sessions can run on this host (Xvfb and a full Chromium). */
  headfulAvailable: boolean;
}
