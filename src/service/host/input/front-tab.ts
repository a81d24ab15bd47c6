// Which tab is "the screen" of a headless browser: the one in front, as a headful browser would show it.
// Chromium's DevTools server lists pages most recently activated first (`/json/list`): a page just opened
// (in any browser context: Playwright's `newContext().newPage()`) or brought to the front comes first. The
// CDP protocol itself has no such order, so the list is read over HTTP from the DevTools server; it is read
// again when a page opens or closes, and at most every RECHECK_MS otherwise (bringToFront sends no event).
import type { CdpConnection } from '../browser/index.js';

const RECHECK_MS = 1000;
const FETCH_TIMEOUT_MS = 2000;

interface TargetInfo {
  targetId: string;
  type: string;
}

export class FrontTab {
  private known: string | undefined;
  private checkedAt = 0;
  private stale = true;
  /** Tabs the service opens for itself (the clipboard's helper): never the screen. */
  private readonly own = new Set<string>();
  private readonly listUrl: string;

  constructor(
    private readonly cdp: CdpConnection,
    wsEndpoint: string,
  ) {
    this.listUrl = `http://${new URL(wsEndpoint).host}/json/list`;
    const changed = (params: { targetInfo?: TargetInfo; targetId?: string }) => {
      if (!params.targetInfo || params.targetInfo.type === 'page') this.stale = true;
    };
    cdp.on('Target.targetCreated', changed);
    cdp.on('Target.targetDestroyed', (params: { targetId: string }) => {
      this.own.delete(params.targetId);
      changed(params);
    });
  }

  /** Starts hearing of pages opening and closing. */
  async watch(): Promise<void> {
    await this.cdp.send('Target.setDiscoverTargets', { discover: true });
  }

  /** The tab last named is gone or could not be attached to: ask again next time. */
  forget(): void {
    this.stale = true;
    this.known = undefined;
  }

  ownTab(targetId: string): void {
    this.own.add(targetId);
  }

  /** Whether the front tab may have changed since `current()` last answered. */
  due(): boolean {
    return this.stale || Date.now() - this.checkedAt >= RECHECK_MS;
  }

  /** The front tab's target id; undefined when the browser has no tab. */
  async current(): Promise<string | undefined> {
    if (!this.due() && this.known) return this.known;
    this.stale = false;
    this.checkedAt = Date.now();
    this.known = (await this.fromList()) ?? (await this.fromTargets());
    return this.known;
  }

  private async fromList(): Promise<string | undefined> {
    try {
      const res = await fetch(this.listUrl, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      const list = (await res.json()) as { id: string; type: string }[];
      return list.find((t) => t.type === 'page' && !this.own.has(t.id))?.id;
    } catch {
      return undefined; // no DevTools HTTP server to ask: the protocol's own list below
    }
  }

  private async fromTargets(): Promise<string | undefined> {
    const { targetInfos } = await this.cdp.send<{ targetInfos: TargetInfo[] }>('Target.getTargets');
    return targetInfos.find((t) => t.type === 'page' && !this.own.has(t.targetId))?.targetId;
  }
}
