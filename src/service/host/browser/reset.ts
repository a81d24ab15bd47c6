// Puts a pool browser back into the state of a freshly launched one between leases, over the service's own
// CDP connection: one blank tab, no other tabs or contexts, no cookies, site storage, HTTP cache or
// permission grants, and the window at its launch size.
//
// Chromium has no CDP call that clears the storage of every site, only per origin, so the connection
// watches every target's URL while the browser is leased and remembers the origins it saw; cookie domains
// are added at reset. Storage written by a same-process iframe of another origin that never became a
// target of its own and set no cookie is the one thing this can miss.
import { CdpConnection } from './cdp-connection.js';

/**
 * What a site can store and read back, named rather than `all`: `all` adds the GPU shader cache (compiled
 * shaders, not data a page reads), which took most of a reset (~45 of ~85 ms, measured), and cookies,
 * which are cleared for every site at once just before.
 */
const SITE_STORAGE = 'file_systems,indexeddb,local_storage,websql,service_workers,cache_storage,interest_groups,shared_storage,storage_buckets';

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

export class BrowserTracker {
  private readonly origins = new Set<string>();

  private constructor(private readonly cdp: CdpConnection) {
    const note = (p: { targetInfo: TargetInfo }) => this.note(p.targetInfo.url);
    cdp.on('Target.targetCreated', note);
    cdp.on('Target.targetInfoChanged', note);
  }

  static async open(wsEndpoint: string): Promise<BrowserTracker> {
    const cdp = await CdpConnection.connect(wsEndpoint);
    try {
      const tracker = new BrowserTracker(cdp);
      await cdp.send('Target.setDiscoverTargets', { discover: true });
      return tracker;
    } catch (err) {
      cdp.close();
      throw err;
    }
  }

  close(): void {
    this.cdp.close();
  }

  /** Best effort, as a start_url is: the acquire does not wait for the page, and errors are dropped. */
  async navigate(url: string): Promise<void> {
    const page = (await this.pages())[0];
    if (!page) return;
    await this.onPage(page.targetId, (sessionId) => this.cdp.send('Page.navigate', { url }, sessionId));
  }

  /** Resets the browser; `window` is the outer window size it was launched with. Throws if any step fails. */
  async reset(window: { width: number; height: number }): Promise<void> {
    const cdp = this.cdp;
    // The fresh tab comes first: a headful browser quits when its last window closes. A new tab also has
    // no history and no sessionStorage, which navigating an old one would keep.
    const { targetId: keep } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    // The steps that do not depend on each other go out together: a reset is on every lease's path.
    const [{ cookies }] = await Promise.all([
      cdp.send<{ cookies: { domain: string }[] }>('Storage.getCookies'),
      cdp.send<{ browserContextIds: string[] }>('Target.getBrowserContexts').then(({ browserContextIds }) =>
        Promise.all(browserContextIds.map((browserContextId) => cdp.send('Target.disposeBrowserContext', { browserContextId })))),
      this.pages().then((pages) => Promise.all(pages.filter((t) => t.targetId !== keep).map((t) => cdp.send('Target.closeTarget', { targetId: t.targetId })))),
      // The service's own input backend (computer API) needs these; they are the service's, not the lessee's.
      cdp.send('Browser.resetPermissions').then(() => cdp.send('Browser.grantPermissions', { permissions: ['clipboardReadWrite', 'clipboardSanitizedWrite'] })),
      this.restoreWindow(keep, window),
    ]);
    for (const { domain } of cookies) {
      const host = domain.replace(/^\./, '');
      this.origins.add(`https://${host}`).add(`http://${host}`);
    }
    const origins = [...this.origins];
    this.origins.clear();
    // Site storage and the HTTP cache belong to the profile, but Chromium clears them only when asked on a
    // page (it needs the page's storage partition). Device-metrics overrides belonged to the clients' CDP
    // sessions, which are gone, and the tab is new anyway.
    await Promise.all([
      cdp.send('Storage.clearCookies'),
      this.onPage(keep, async (sessionId) => {
        await Promise.all([
          ...origins.map((origin) => cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: SITE_STORAGE }, sessionId)),
          cdp.send('Network.clearBrowserCache', {}, sessionId),
        ]);
      }),
    ]);
  }

  private async restoreWindow(targetId: string, window: { width: number; height: number }): Promise<void> {
    const { windowId, bounds } = await this.cdp.send<{ windowId: number; bounds: { width?: number; height?: number; windowState?: string } }>(
      'Browser.getWindowForTarget',
      { targetId },
    );
    if (bounds.windowState && bounds.windowState !== 'normal') {
      await this.cdp.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'normal' } });
    }
    if (bounds.width !== window.width || bounds.height !== window.height) {
      await this.cdp.send('Browser.setWindowBounds', { windowId, bounds: { width: window.width, height: window.height } });
    }
  }

  private note(url: string): void {
    if (!/^https?:/.test(url)) return;
    try {
      this.origins.add(new URL(url).origin);
    } catch {
      // not a URL Chromium would store anything for
    }
  }

  private async pages(): Promise<TargetInfo[]> {
    const { targetInfos } = await this.cdp.send<{ targetInfos: TargetInfo[] }>('Target.getTargets');
    return targetInfos.filter((t) => t.type === 'page');
  }

  private async onPage(targetId: string, work: (sessionId: string) => Promise<unknown>): Promise<void> {
    const { sessionId } = await this.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    try {
      await work(sessionId);
    } finally {
      await this.cdp.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
    }
  }
}
