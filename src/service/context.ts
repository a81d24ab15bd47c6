// What route modules are given: the service's parts, passed in rather than reached for.
import type { CdpTokens } from './host/cdp-proxy.js';
import type { Sandbox } from './host/sandbox.js';
import type { SessionManager } from './host/sessions.js';
import type { ApiKeysRepo } from './store/api-keys-repo.js';
import type { BrowsersRepo } from './store/browsers-repo.js';

export interface ServiceContext {
  keys: ApiKeysRepo;
  browsers: BrowsersRepo;
  sessions: SessionManager;
  tokens: CdpTokens;
  now: () => Date;
  /** Whether headful sessions can run on this host (Xvfb, xdotool and a full Chromium), and why not. */
  headful: { available: boolean; reason: string };
  /** The bubblewrap sandbox processes run in; null runs them unsandboxed on the host (see host/sandbox.ts). */
  sandbox: Sandbox | null;
}
