// A session as the wire shows it: one shape for /browsers, pool acquires and an invocation's browsers.
import type { BrowserKept, BrowserPoolRef, BrowserSession, BrowserTelemetryConfig, Profile } from '../../../api/types.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import { liveViewPageUrl } from '../live/index.js';
import type { ProfileStore } from '../profiles/index.js';
import type { BrowserProxyFields, ProxyService } from '../proxy/index.js';
import type { CdpTokens } from '../session/index.js';
import type { SiteConfigs } from '../sites/index.js';
import type { TelemetryHub } from '../telemetry/index.js';
import type { BrowserKeeper } from './keep.js';

/** What presenting reads besides the row; each part left out is left out of the session too. */
export interface PresentDeps {
  tokens: CdpTokens;
  telemetry?: Pick<TelemetryHub, 'present'>;
  pools?: { ref(poolId: string): BrowserPoolRef };
  proxies?: Pick<ProxyService, 'presentForEach'>;
  profiles?: Pick<ProfileStore, 'presentRefs'>;
  siteConfigs?: Pick<SiteConfigs, 'browserLinks'>;
  keeper?: Pick<BrowserKeeper, 'presentForEach'>;
}

/** What each session links to, read for a whole page at once: one query per kind, not per session. */
interface Links {
  telemetry: Map<string, BrowserTelemetryConfig>;
  proxies: Map<string, BrowserProxyFields>;
  profiles: Map<string, Profile>;
  siteConfigs: Map<string, string>;
  kept: Map<string, BrowserKept>;
}

/** `presentSession` of each row, in order; the links of all rows are read together. */
export async function presentSessions(rows: readonly BrowserRow[], origin: string, deps: PresentDeps): Promise<BrowserSession[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const profileIds = [...new Set(rows.flatMap((row) => (row.profile_id ? [row.profile_id] : [])))];
  const none = Promise.resolve(new Map());
  const [telemetry, proxies, profiles, siteConfigs, kept] = await Promise.all([
    deps.telemetry?.present(ids) ?? none,
    deps.proxies?.presentForEach(ids) ?? none,
    profileIds.length ? (deps.profiles?.presentRefs(profileIds) ?? none) : none,
    deps.siteConfigs?.browserLinks(ids) ?? none,
    deps.keeper?.presentForEach(ids) ?? none,
  ]);
  const links: Links = { telemetry, proxies, profiles, siteConfigs, kept };
  return rows.map((row) => present(row, origin, deps, links));
}

/** `origin` is ws:// or wss:// and the host the client reached us by, so the URLs work from where it called. */
export async function presentSession(row: BrowserRow, origin: string, deps: PresentDeps): Promise<BrowserSession> {
  return (await presentSessions([row], origin, deps))[0]!;
}

function present(row: BrowserRow, origin: string, deps: PresentDeps, links: Links): BrowserSession {
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
  const [telemetry, proxy, siteConfigId] = [links.telemetry.get(row.id), links.proxies.get(row.id), links.siteConfigs.get(row.id)];
  if (telemetry) session.telemetry = telemetry;
  if (proxy) Object.assign(session, proxy);
  if (row.profile_id) {
    session.profile = links.profiles.get(row.profile_id) ?? ({ id: row.profile_id } as BrowserSession['profile']);
    session.profile_save_changes = row.profile_save_changes;
  }
  if (row.private_hosts) session.network = { private_hosts: row.private_hosts };
  if (row.chrome_policy) session.chrome_policy = row.chrome_policy;
  if (siteConfigId) session.site_config_id = siteConfigId;
  const kept = links.kept.get(row.id);
  if (kept) session.kept = kept;
  const endMs = row.deleted_at ? Date.parse(row.deleted_at) : Date.now();
  session.usage = { uptime_ms: Math.max(0, endMs - Date.parse(row.created_at)) };
  if (row.deleted_at) {
    session.deleted_at = row.deleted_at;
    if (row.end_reason) session.end_reason = row.end_reason;
    if (row.end_detail) session.end_detail = row.end_detail;
  }
  return session;
}
