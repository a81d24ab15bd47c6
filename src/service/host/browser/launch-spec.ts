// What decides how a session's Chromium is started, from the create body (or a pool's config), and the key
// that tells interchangeable launches apart.
import type { BrowserCreateParams } from '../../../api/types.js';
import type { Upstream } from '../proxy/index.js';
import { canonicalJson, effectivePolicy, type ChromePolicy } from './chrome-policy.js';

export const DEFAULT_VIEWPORT = { width: 1920, height: 1080 };

/**
 * Everything that decides how Chromium is started. Two creates with equal specs get interchangeable
 * browsers, which is what lets a create adopt a pre-launched one. A new create option that changes the
 * command line or the profile (extensions, proxies, policies) must be added here.
 */
export interface LaunchSpec {
  headless: boolean;
  viewport: { width: number; height: number };
  kioskMode: boolean;
  stealth: boolean;
  startUrl: string | null;
  /** A custom proxy to route through (resolved by host/proxy/proxies.ts); null is direct egress. */
  proxy: Upstream | null;
  /** The profile whose saved state the browser starts from (a copy; host/profiles/profiles.ts), or null. */
  profileId: string | null;
  /** Uploaded extensions to load, by id (host/extensions/extensions.ts). */
  extensionIds: string[];
  /**
   * Extensions loaded into the running session (POST /browsers/{id}/extensions), by the folder name they
   * were given under /home/kernel/extensions; always none at create.
   */
  extensionDirs: string[];
  /** Chrome Enterprise policies the browser runs with (chrome-policy.ts), or null. */
  chromePolicy: ChromePolicy | null;
}

export function launchSpecOf(params: BrowserCreateParams, proxy: Upstream | null = null): LaunchSpec {
  const viewport = params.viewport ? { width: params.viewport.width, height: params.viewport.height } : DEFAULT_VIEWPORT;
  return {
    headless: params.headless ?? true,
    viewport,
    kioskMode: params.kiosk_mode ?? false,
    stealth: params.stealth ?? false,
    startUrl: params.start_url ?? null,
    proxy,
    // Callers pass resolved ids here (host/browsers/launch.ts), never names.
    profileId: params.profile?.id ?? null,
    extensionIds: (params.extensions ?? []).flatMap((e) => (e.id ? [e.id] : [])),
    extensionDirs: [],
    chromePolicy: effectivePolicy(params.chrome_policy),
  };
}

export function specKey(spec: LaunchSpec): string {
  const policy = spec.chromePolicy && canonicalJson(spec.chromePolicy);
  return JSON.stringify([
    spec.headless,
    spec.viewport.width,
    spec.viewport.height,
    spec.kioskMode,
    spec.stealth,
    spec.startUrl,
    spec.proxy?.proxyId ?? null,
    spec.profileId,
    spec.extensionIds,
    spec.extensionDirs,
    policy,
  ]);
}
