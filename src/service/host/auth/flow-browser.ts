// The browser a login flow runs in: a session of the connection's project with its profile loaded
// read-write (so what the login stores is kept), its proxy and stealth setting, driven by Playwright from
// the service over the session's own CDP endpoint. Closing it ends the session, which saves the profile.
import type { Page } from 'playwright-core';
import type { BrowserTelemetryRequest } from '../../../api/types.js';
import type { ConnectionRow } from '../../store/auth-connections-repo.js';
import type { ProfileStore } from '../profiles/index.js';
import type { ProxyService } from '../proxy/index.js';
import type { BrowserLauncher } from '../browsers/index.js';
import type { SessionManager } from '../session/index.js';
import type { SiteConfigs } from '../sites/index.js';

export interface FlowBrowser {
  sessionId: string;
  /** The replay being recorded, when asked for. */
  replayId?: string;
  page: Page;
  /** Disconnects and ends the session; safe to call more than once. */
  close(): Promise<void>;
}

export interface FlowBrowserOptions {
  /** false loads the profile read-only (a health check looks, it does not log in). Default true. */
  saveProfile?: boolean;
  /** A proxy other than the connection's (a login's `proxy`). */
  proxyId?: string | null;
  /** Record a replay of the browser. */
  record?: boolean;
  /** Telemetry settings for the browser, as a browser create's `telemetry`. */
  telemetry?: BrowserTelemetryRequest | null;
}

export type LaunchFlowBrowser = (row: ConnectionRow, opts?: FlowBrowserOptions) => Promise<FlowBrowser>;

export interface FlowBrowserDeps {
  sessions: Pick<SessionManager, 'get' | 'end'>;
  /** Launches the login browser as every session is launched. */
  launcher: Pick<BrowserLauncher, 'launch'>;
  profiles: ProfileStore;
  proxies: ProxyService;
  siteConfigs: SiteConfigs;
  /** Starts a replay of a session (the recording folder's), answering its id. */
  record: (sessionId: string) => Promise<string>;
  /** How long the session may sit idle: as long as a flow may last. */
  timeoutSeconds: number;
}

export function flowBrowserLauncher(deps: FlowBrowserDeps): LaunchFlowBrowser {
  return async (row, opts = {}) => {
    const save = opts.saveProfile ?? true;
    if (save) await deps.profiles.checkWritable(await deps.profiles.find(row.project_id, row.profile_id));
    // The connection's own settings first; a site config for its domain fills in the rest.
    const site = (await deps.siteConfigs.match(row.project_id, row.domain))?.settings ?? {};
    const proxyId = opts.proxyId !== undefined ? opts.proxyId : (row.proxy_id ?? site.proxy_id);
    const upstream = proxyId ? await deps.proxies.poolRoute(row.project_id, proxyId, 'proxy') : null;
    const session = await deps.launcher.launch({
      projectId: row.project_id,
      params: {
        headless: true,
        stealth: row.settings.browser?.stealth ?? site.stealth ?? true,
        timeout_seconds: Math.max(60, deps.timeoutSeconds),
        profile: { id: row.profile_id, save_changes: save },
        tags: { auth_connection: row.id },
      },
      // Not linked: a login browser's session does not show the proxy it runs through.
      upstream,
      telemetry: opts.telemetry ? { settings: opts.telemetry, field: 'browser_telemetry' } : undefined,
    });
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
      const replayId = opts.record ? await deps.record(session.id) : undefined;
      return {
        sessionId: session.id,
        replayId,
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
