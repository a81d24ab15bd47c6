// A session as the wire shows it: one shape for /browsers, pool acquires and an invocation's browsers.
import type { BrowserPoolRef, BrowserSession } from '../../../api/types.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import { liveViewPageUrl } from '../live/index.js';
import type { ProfileStore } from '../profiles/index.js';
import type { ProxyService } from '../proxy/index.js';
import type { CdpTokens } from '../session/index.js';
import type { SiteConfigs } from '../sites/index.js';
import type { TelemetryHub } from '../telemetry/index.js';

/** What presenting reads besides the row; each part left out is left out of the session too. */
export interface PresentDeps {
  tokens: CdpTokens;
  telemetry?: Pick<TelemetryHub, 'present'>;
  pools?: { ref(poolId: string): BrowserPoolRef };
  proxies?: Pick<ProxyService, 'presentFor'>;
  profiles?: Pick<ProfileStore, 'presentRef'>;
  siteConfigs?: Pick<SiteConfigs, 'browserLink'>;
}

/** `origin` is ws:// or wss:// and the host the client reached us by, so the URLs work from where it called. */
export async function presentSession(row: BrowserRow, origin: string, deps: PresentDeps): Promise<BrowserSession> {
  const token = deps.tokens.tokenFor(row.id);
  const session: BrowserSession = {
    session_id: row.id,
    cdp_ws_url: `${origin}/browsers/${row.id}/cdp?jwt=${token}`,
    webdriver_ws_url: `${origin}/browsers/${row.id}/bidi?jwt=${token}`,
    // The SDK sends curl and telemetry/stream here with the token of cdp_ws_url and no key: our own routes.
    base_url: `${origin.replace(/^ws/, 'http')}/browsers/${row.id}`,
    browser_live_view_url: liveViewPageUrl(deps.tokens, origin.replace(/^ws/, 'http'), row.id, 'interactive'),
    created_at: row.created_at,
    headless: row.headless,
    stealth: row.stealth,
    timeout_seconds: row.timeout_seconds,
    kiosk_mode: row.kiosk_mode,
    tags: row.tags,
    sandboxed: row.sandboxed,
  };
  if (row.name) session.name = row.name;
  if (row.viewport) session.viewport = row.viewport;
  if (row.start_url) session.start_url = row.start_url;
  if (row.pool_id) session.pool = deps.pools?.ref(row.pool_id) ?? { id: row.pool_id };
  // Read together: on PostgreSQL each is a round trip, and a page of sessions pays them per row.
  const [telemetry, proxy, profile, siteConfigId] = await Promise.all([
    deps.telemetry?.present(row.id),
    deps.proxies?.presentFor(row.id),
    row.profile_id ? deps.profiles?.presentRef(row.profile_id) : undefined,
    deps.siteConfigs?.browserLink(row.id),
  ]);
  if (telemetry) session.telemetry = telemetry;
  if (proxy) Object.assign(session, proxy);
  if (row.profile_id) {
    session.profile = profile ?? ({ id: row.profile_id } as BrowserSession['profile']);
    session.profile_save_changes = row.profile_save_changes;
  }
  if (row.private_hosts) session.network = { private_hosts: row.private_hosts };
  if (row.chrome_policy) session.chrome_policy = row.chrome_policy;
  if (siteConfigId) session.site_config_id = siteConfigId;
  const endMs = row.deleted_at ? Date.parse(row.deleted_at) : Date.now();
  session.usage = { uptime_ms: Math.max(0, endMs - Date.parse(row.created_at)) };
  if (row.deleted_at) {
    session.deleted_at = row.deleted_at;
    if (row.end_reason) session.end_reason = row.end_reason;
    if (row.end_detail) session.end_detail = row.end_detail;
  }
  return session;
}
