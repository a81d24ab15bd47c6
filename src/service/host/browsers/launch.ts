// Creating a browser session, whoever asks: POST /browsers, a pool warming a browser, a login flow. Each
// resolves what its request names (a body, a pool's config, a connection) and launches through here, so
// telemetry from the first moment and the session's proxy and site-config links are done one way.
import type { BrowserCreateParams, BrowserTelemetryRequest } from '../../../api/types.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import type { BrowserProxyLink } from '../../store/proxies-repo.js';
import type { SiteConfigRow } from '../../store/site-configs-repo.js';
import { admitChromePolicy } from '../browser/index.js';
import { DomainError } from '../errors.js';
import type { ExtensionStore } from '../extensions/index.js';
import { checkNetwork } from '../network/index.js';
import type { ProfileStore } from '../profiles/index.js';
import type { ProxyService, Upstream } from '../proxy/index.js';
import type { SessionManager } from '../session/index.js';
import type { SiteConfigs } from '../sites/index.js';
import type { TelemetryHub } from '../telemetry/index.js';

export interface BrowserLauncherDeps {
  sessions: Pick<SessionManager, 'create'>;
  siteConfigs: Pick<SiteConfigs, 'applyToBrowser' | 'linkBrowser'>;
  proxies?: Pick<ProxyService, 'select' | 'linkBrowser'>;
  profiles?: Pick<ProfileStore, 'select' | 'checkWritable'>;
  extensions?: Pick<ExtensionStore, 'checkAvailable' | 'selectAll'>;
  telemetry?: Pick<TelemetryHub, 'withCreate'>;
  /** Whether headful sessions can run on this host, and why not. */
  headful: { available: boolean; reason: string };
  chromePolicy: { available: boolean; reason: string };
  /** Refuses an `invocation_id` that is not a running invocation of the project (host/apps). */
  checkInvocation(projectId: string | null, id: string, field: string): Promise<void>;
}

/** A session to launch, with everything its request named already resolved. */
export interface Launch {
  projectId: string | null;
  /** Profile and extensions as ids (sessions.create's terms). */
  params: BrowserCreateParams;
  poolId?: string;
  /** The upstream its traffic goes through, and the link that shows it on the session, when one is shown. */
  upstream?: Upstream | null;
  proxyLink?: BrowserProxyLink;
  /** Settings the session captures with from its first moment; `field` names them in a 400. */
  telemetry?: { settings: BrowserTelemetryRequest | null | undefined; field: string };
  /** The site config that filled in the request's defaults. */
  siteConfig?: SiteConfigRow;
  /** Aborted when whoever asked gave up: a create still waiting for a slot then launches nothing. */
  signal?: AbortSignal;
}

export class BrowserLauncher {
  constructor(private readonly deps: BrowserLauncherDeps) {}

  /**
   * A create request (POST /browsers): a site config matching `start_url` fills in what it leaves out, and
   * every selection is checked before anything launches, so a bad one is a 400 naming its field under `input`.
   */
  async create(projectId: string | null, request: BrowserCreateParams, input: string, signal?: AbortSignal): Promise<BrowserRow> {
    const { deps } = this;
    const { params: body, config: siteConfig } = await deps.siteConfigs.applyToBrowser(projectId, request);
    if (body.headless === false && !deps.headful.available) {
      throw new DomainError('invalid', 'headful_unavailable', `headful browsers are not available: ${deps.headful.reason}; create with headless: true`);
    }
    if (body.invocation_id !== undefined) await deps.checkInvocation(projectId, body.invocation_id, `${input}.invocation_id`);
    const proxy = await deps.proxies?.select(projectId, body, input);
    const params = await this.withResources(projectId, body, input);
    return this.launch({
      projectId,
      params,
      upstream: proxy?.upstream,
      proxyLink: proxy?.link,
      // Checked before the launch and seen by the new session's start hooks.
      telemetry: deps.telemetry && { settings: body.telemetry, field: `${input}.telemetry` },
      siteConfig,
      signal,
    });
  }

  /** Launches a resolved session: telemetry applies from its first moment, then its links are recorded. */
  async launch(launch: Launch): Promise<BrowserRow> {
    const { sessions, telemetry, proxies, siteConfigs } = this.deps;
    const opts = { proxy: launch.upstream, signal: launch.signal, ...(launch.poolId === undefined ? {} : { poolId: launch.poolId }) };
    const create = () => sessions.create(launch.params, launch.projectId, opts);
    const row = await (telemetry && launch.telemetry ? telemetry.withCreate(launch.telemetry.settings, launch.telemetry.field, create) : create());
    if (launch.proxyLink) await proxies!.linkBrowser(row.id, launch.proxyLink);
    if (launch.siteConfig) await siteConfigs.linkBrowser(row.id, launch.siteConfig);
    return row;
  }

  /**
   * The request with its profile and extensions resolved to ids, as sessions.create takes them: unknown
   * ones are a 404, a profile already held read-write a 409, extensions without a full Chromium a 400.
   */
  private async withResources(projectId: string | null, body: BrowserCreateParams, input: string): Promise<BrowserCreateParams> {
    const { profiles, extensions, chromePolicy } = this.deps;
    checkNetwork(body.network, input);
    admitChromePolicy(chromePolicy, body.chrome_policy, `${input}.chrome_policy`);
    const params = { ...body };
    if (body.profile && profiles) {
      const profile = await profiles.select(projectId, body.profile, `${input}.profile`);
      if (body.profile.save_changes) await profiles.checkWritable(profile);
      params.profile = { id: profile.id, save_changes: body.profile.save_changes === true };
    }
    if (body.extensions?.length && extensions) {
      extensions.checkAvailable();
      params.extensions = (await extensions.selectAll(projectId, body.extensions, `${input}.extensions`)).map((e) => ({ id: e.id }));
    }
    return params;
  }
}
