// The browser a login flow runs in: a session of the connection's project with its profile loaded
// read-write (so what the login stores is kept), its proxy and stealth setting, driven by Playwright from
// the service over the session's own CDP endpoint. Closing it ends the session, which saves the profile.
import type { Page } from 'playwright-core';
import type { ConnectionRow } from '../../store/auth-connections-repo.js';
import type { ProfileStore } from '../profiles/index.js';
import type { ProxyService } from '../proxy/index.js';
import type { SessionManager } from '../session/index.js';
import type { SiteConfigs } from '../sites/index.js';

export interface FlowBrowser {
  sessionId: string;
  page: Page;
  /** Disconnects and ends the session; safe to call more than once. */
  close(): Promise<void>;
}

/** `saveProfile: false` loads the profile read-only (a health check looks, it does not log in). */
export type LaunchFlowBrowser = (row: ConnectionRow, opts?: { saveProfile?: boolean }) => Promise<FlowBrowser>;

export interface FlowBrowserDeps {
  sessions: SessionManager;
  profiles: ProfileStore;
  proxies: ProxyService;
  siteConfigs: SiteConfigs;
  /** How long the session may sit idle: as long as a flow may last. */
  timeoutSeconds: number;
}

export function flowBrowserLauncher(deps: FlowBrowserDeps): LaunchFlowBrowser {
  return async (row, opts = {}) => {
    const save = opts.saveProfile ?? true;
    if (save) deps.profiles.checkWritable(deps.profiles.find(row.project_id, row.profile_id));
    // The connection's own settings first; a site config for its domain fills in the rest.
    const site = deps.siteConfigs.match(row.project_id, row.domain)?.settings ?? {};
    const proxyId = row.proxy_id ?? site.proxy_id;
    const upstream = proxyId ? deps.proxies.poolRoute(row.project_id, proxyId, 'proxy') : null;
    const session = await deps.sessions.create(
      {
        headless: true,
        stealth: row.settings.browser?.stealth ?? site.stealth ?? true,
        timeout_seconds: Math.max(60, deps.timeoutSeconds),
        profile: { id: row.profile_id, save_changes: save },
        tags: { auth_connection: row.id },
      },
      row.project_id,
      { proxy: upstream },
    );
    let closed: Promise<void> | undefined;
    const end = () => (closed ??= deps.sessions.end(session.id, 'deleted', save ? 'its login flow finished' : 'its health check finished'));
    try {
      const live = deps.sessions.get(session.id);
      if (!live) throw new Error('the login browser ended as it started');
      await live.ready;
      // Loaded on first use: most services never run a login flow.
      const { chromium } = await import('playwright-core');
      const browser = await chromium.connectOverCDP(live.chromium.wsEndpoint, { timeout: 30_000 });
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = context.pages()[0] ?? (await context.newPage());
      return {
        sessionId: session.id,
        page,
        close: async () => {
          // Disconnecting leaves the default context (and the profile's state) to the session's own end.
          await browser.close().catch(() => undefined);
          await end();
        },
      };
    } catch (err) {
      await end();
      throw err;
    }
  };
}
