// The CDP side of telemetry: the service's own browser connection per session, auto-attached to every tab
// (flattened sessions), with only the domains the session's categories need enabled on each. It emits raw
// mapped events to a sink; which of them are kept is the hub's decision. Events of a tab opened later are
// captured from the moment it is attached (waitForDebuggerOnStart is off, so no tab ever waits for us).
import { CdpConnection } from '../browser/index.js';
import type { CategorySet, ConfigurableCategory } from './config.js';
import {
  INTERACTION_BINDING,
  INTERACTION_SCRIPT,
  INTERACTION_WORLD,
  consoleData,
  exceptionData,
  failureData,
  interactionEvent,
  requestData,
  responseData,
  type RequestWillBeSent,
  type ResponseReceived,
} from './cdp-map.js';

export type CdpSink = (category: ConfigurableCategory, type: string, cdpEvent: string, data: Record<string, unknown>) => void;

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  title?: string;
  openerId?: string;
}

/**
 * One attached tab and what is known about its current document. A cross-site iframe runs in its own
 * process and target (an OOPIF): it is attached through its tab and reported as part of it.
 */
interface Tab {
  targetId: string;
  /** For an out-of-process iframe: the tab it belongs to, and its frame id (the iframe target's id). */
  parent?: Tab;
  oopifFrameId?: string;
  sessionId: string;
  url: string;
  navSeq: number;
  frameId?: string;
  loaderId?: string;
  /** CDP domains (and the interaction listener) enabled on this tab so far. */
  enabled: Set<string>;
  /** Requests seen and not yet finished: for the method and URL of later events, and network_idle. */
  requests: Map<string, { url: string; method: string }>;
  /** Responses waiting for their body to finish loading, as the hosted network_response fires then. */
  responses: Map<string, Record<string, unknown>>;
  idleTimer?: NodeJS.Timeout;
}

const NETWORK_IDLE_MS = 500;
/** The longest a settings change waits for the events already sent to arrive (CdpCollector.flush). */
const FLUSH_MAX_MS = 1_000;

/** Requests that never finish (long polls, streams) must not pile up. */
const MAX_TRACKED_REQUESTS = 2000;

export class CdpCollector {
  private readonly tabs = new Map<string, Tab>();
  private readonly setups = new Set<Promise<void>>();
  private closed = false;
  /**
   * Wall-clock ms minus the browser's monotonic ms, learned from the first request (network events carry
   * only monotonic time). Chromium has one monotonic clock for all its processes, so one offset serves.
   */
  private wallMinusMonoMs?: number;

  private constructor(
    private readonly cdp: CdpConnection,
    private readonly sink: CdpSink,
    private readonly wanted: () => CategorySet,
  ) {}

  /** Connects, attaches to every tab and enables what `wanted()` asks for before resolving. */
  static async start(wsEndpoint: string, sink: CdpSink, wanted: () => CategorySet): Promise<CdpCollector> {
    const cdp = await CdpConnection.connect(wsEndpoint);
    const collector = new CdpCollector(cdp, sink, wanted);
    try {
      collector.listen();
      await cdp.send('Target.setDiscoverTargets', { discover: true });
      await cdp.send('Target.setAutoAttach', { autoAttach: true, flatten: true, waitForDebuggerOnStart: false });
      await collector.settled();
      return collector;
    } catch (err) {
      collector.close();
      throw err;
    }
  }

  /** Enables domains for categories turned on since (PATCH); categories turned off are filtered by the hub. */
  async refresh(): Promise<void> {
    await Promise.all([...this.tabs.values()].map((tab) => this.enable(tab)));
  }

  /**
   * Resolves once every event each tab sent before now has reached the sink: a round trip on each tab's
   * own session, which Chromium answers after the events it sent on that session earlier. At most
   * FLUSH_MAX_MS: a page stuck in a loop does not answer, and holds nothing up for longer.
   */
  async flush(): Promise<void> {
    if (this.closed || this.tabs.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((done) => (timer = setTimeout(done, FLUSH_MAX_MS)));
    const trips = Promise.all([...this.tabs.values()].map((tab) => this.cdp.send('Runtime.evaluate', { expression: '0' }, tab.sessionId).catch(() => undefined)));
    await Promise.race([trips, limit]).finally(() => clearTimeout(timer));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const tab of this.tabs.values()) clearTimeout(tab.idleTimer);
    this.tabs.clear();
    this.cdp.close();
  }

  private async settled(): Promise<void> {
    while (this.setups.size) await Promise.all([...this.setups]);
  }

  private wants(category: ConfigurableCategory): boolean {
    return !!this.wanted()?.has(category);
  }

  private context(tab: Tab, frameId?: string): Record<string, unknown> {
    const top = tab.parent ?? tab;
    return {
      target_id: top.targetId,
      target_type: 'page',
      session_id: tab.sessionId,
      frame_id: frameId ?? tab.oopifFrameId ?? top.frameId,
      loader_id: top.loaderId,
      nav_seq: top.navSeq,
      url: top.url,
    };
  }

  /** Subscribes a handler for a tab-scoped event; handler errors never reach the socket's event loop. */
  private onTab<T>(method: string, handler: (tab: Tab, params: T) => void): void {
    this.cdp.on(method, (params: T, sessionId?: string) => {
      const tab = sessionId ? this.tabs.get(sessionId) : undefined;
      if (!tab || this.closed) return;
      try {
        handler(tab, params);
      } catch {
        // A malformed or unexpected event is skipped; capture goes on.
      }
    });
  }

  private listen(): void {
    this.cdp.on('Target.attachedToTarget', (p: { sessionId: string; targetInfo: TargetInfo }, parentSession?: string) => {
      if (this.closed) return;
      const parent = parentSession ? this.tabs.get(parentSession) : undefined;
      const oopif = p.targetInfo.type === 'iframe' && parent;
      if (p.targetInfo.type !== 'page' && !oopif) return;
      const top = parent?.parent ?? parent;
      const tab: Tab = {
        targetId: oopif && top ? top.targetId : p.targetInfo.targetId,
        parent: oopif ? top : undefined,
        oopifFrameId: oopif ? p.targetInfo.targetId : undefined,
        sessionId: p.sessionId,
        url: p.targetInfo.url,
        navSeq: 0,
        enabled: new Set(),
        requests: new Map(),
        responses: new Map(),
      };
      this.tabs.set(p.sessionId, tab);
      if (!oopif) {
        this.sink('page', 'page_tab_opened', 'Target.attachedToTarget', {
          target_id: tab.targetId,
          target_type: 'page',
          url: p.targetInfo.url,
          title: p.targetInfo.title,
          opener_id: p.targetInfo.openerId,
        });
      }
      const setup = this.enable(tab).catch(() => undefined);
      this.setups.add(setup);
      void setup.finally(() => this.setups.delete(setup));
    });
    this.cdp.on('Target.detachedFromTarget', (p: { sessionId: string }) => {
      const tab = this.tabs.get(p.sessionId);
      if (tab) clearTimeout(tab.idleTimer);
      this.tabs.delete(p.sessionId);
    });
    this.cdp.on('Target.targetInfoChanged', (p: { targetInfo: TargetInfo }) => {
      for (const tab of this.tabs.values()) {
        if ((tab.oopifFrameId ?? tab.targetId) === p.targetInfo.targetId) tab.url = p.targetInfo.url;
      }
    });

    // Runtime's timestamps are wall-clock ms; they say when the page did it, which `ts` (when the event
    // reached the service) can trail under load by more than a step lasts.
    this.onTab('Runtime.consoleAPICalled', (tab, p: Parameters<typeof consoleData>[0] & { timestamp?: number }) => {
      const { type, data } = consoleData(p);
      this.sink('console', type, 'Runtime.consoleAPICalled', { ...this.context(tab), ...data, browser_ts: micros(p.timestamp) });
    });
    this.onTab('Runtime.exceptionThrown', (tab, p: Parameters<typeof exceptionData>[0] & { timestamp?: number }) => {
      this.sink('console', 'console_error', 'Runtime.exceptionThrown', { ...this.context(tab), ...exceptionData(p), browser_ts: micros(p.timestamp) });
    });
    this.onTab('Runtime.bindingCalled', (tab, p: { name: string; payload: string }) => {
      if (p.name !== INTERACTION_BINDING) return;
      const event = interactionEvent(p.payload);
      if (event) this.sink('interaction', event.type, 'Runtime.bindingCalled', { ...this.context(tab), ...event.data });
    });

    this.onTab('Network.requestWillBeSent', (tab, p: RequestWillBeSent & { timestamp?: number; wallTime?: number }) => {
      if (this.wallMinusMonoMs === undefined && p.wallTime && p.timestamp) this.wallMinusMonoMs = (p.wallTime - p.timestamp) * 1000;
      if (tab.requests.size >= MAX_TRACKED_REQUESTS) tab.requests.delete(tab.requests.keys().next().value!);
      tab.requests.set(p.requestId, { url: p.request.url, method: p.request.method });
      clearTimeout(tab.idleTimer);
      this.sink('network', 'network_request', 'Network.requestWillBeSent', { ...this.context(tab, p.frameId), ...requestData(p) });
    });
    this.onTab('Network.responseReceived', (tab, p: ResponseReceived & { timestamp?: number }) => {
      if (tab.responses.size >= MAX_TRACKED_REQUESTS) tab.responses.delete(tab.responses.keys().next().value!);
      const data = responseData(p, tab.requests.get(p.requestId)?.method);
      tab.responses.set(p.requestId, { ...this.context(tab, p.frameId), ...data, browser_ts: this.wallMicros(p.timestamp) });
    });
    this.onTab('Network.loadingFinished', (tab, p: { requestId: string }) => {
      const response = tab.responses.get(p.requestId);
      if (response) this.sink('network', 'network_response', 'Network.responseReceived', response);
      this.finishRequest(tab, p.requestId);
    });
    this.onTab('Network.loadingFailed', (tab, p: Parameters<typeof failureData>[0] & { timestamp?: number }) => {
      const data = failureData(p, tab.requests.get(p.requestId)?.url);
      this.sink('network', 'network_loading_failed', 'Network.loadingFailed', { ...this.context(tab), ...data, browser_ts: this.wallMicros(p.timestamp) });
      this.finishRequest(tab, p.requestId);
    });

    this.onTab('Page.frameNavigated', (tab, p: { frame: { id: string; parentId?: string; loaderId: string; url: string } }) => {
      const { frame } = p;
      if (!frame.parentId && !tab.oopifFrameId) {
        // A new top-level document: a new navigation epoch for every later event of this tab.
        tab.navSeq++;
        tab.frameId = frame.id;
        tab.loaderId = frame.loaderId;
        tab.url = frame.url;
      }
      this.sink('page', 'page_navigation', 'Page.frameNavigated', {
        target_id: tab.targetId,
        target_type: 'page',
        session_id: tab.sessionId,
        frame_id: frame.id,
        loader_id: frame.loaderId,
        parent_frame_id: frame.parentId,
        url: frame.url,
      });
    });
    this.onTab('Page.domContentEventFired', (tab, p: { timestamp: number }) => {
      this.sink('page', 'page_dom_content_loaded', 'Page.domContentEventFired', { ...this.context(tab), cdp_timestamp: p.timestamp });
    });
    this.onTab('Page.loadEventFired', (tab, p: { timestamp: number }) => {
      this.sink('page', 'page_load', 'Page.loadEventFired', { ...this.context(tab), cdp_timestamp: p.timestamp });
    });
  }

  /** A network event's monotonic seconds as wall-clock microseconds, once the offset is known. */
  private wallMicros(monotonicSeconds: number | undefined): number | undefined {
    if (monotonicSeconds === undefined || this.wallMinusMonoMs === undefined) return undefined;
    return micros(monotonicSeconds * 1000 + this.wallMinusMonoMs);
  }

  private finishRequest(tab: Tab, requestId: string): void {
    tab.requests.delete(requestId);
    tab.responses.delete(requestId);
    // Idle is a property of the tab; an iframe's own quiet moments are not reported.
    if (tab.requests.size || tab.parent) return;
    clearTimeout(tab.idleTimer);
    tab.idleTimer = setTimeout(() => {
      if (!tab.requests.size && !this.closed) this.sink('network', 'network_idle', 'Network.loadingFinished', this.context(tab));
    }, NETWORK_IDLE_MS);
    tab.idleTimer.unref();
  }

  /** Enables, on one tab, the domains of the wanted categories it does not have yet. */
  private async enable(tab: Tab): Promise<void> {
    const send = (method: string, params: object = {}) => this.cdp.send(method, params, tab.sessionId);
    const steps: Promise<unknown>[] = [];
    const need = (domain: string, ...categories: ConfigurableCategory[]) =>
      categories.some((c) => this.wants(c)) && !tab.enabled.has(domain) && (tab.enabled.add(domain), true);
    // The interaction listener needs both: without Runtime its binding is dropped on navigation, without
    // Page its script is not run in new documents. Console and page events it brings are filtered by the hub.
    if (need('Runtime', 'console', 'interaction')) steps.push(send('Runtime.enable'));
    if (need('Page', 'page', 'interaction')) steps.push(send('Page.enable'));
    // Bodies are never read, so Chromium need not keep them for this client.
    if (need('Network', 'network')) steps.push(send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }));
    if (need('Interaction', 'interaction')) {
      steps.push(
        send('Runtime.addBinding', { name: INTERACTION_BINDING, executionContextName: INTERACTION_WORLD }).then(() =>
          send('Page.addScriptToEvaluateOnNewDocument', { source: INTERACTION_SCRIPT, worldName: INTERACTION_WORLD, runImmediately: true }),
        ),
      );
    }
    // Cross-site iframes of this tab run in targets of their own; attach to those too.
    if (!tab.enabled.has('Target')) {
      tab.enabled.add('Target');
      steps.push(send('Target.setAutoAttach', { autoAttach: true, flatten: true, waitForDebuggerOnStart: false }));
    }
    await Promise.all(steps);
  }
}

/** Wall-clock ms as the integer microseconds `ts` is given in. */
function micros(ms: number | undefined): number | undefined {
  return typeof ms === 'number' && Number.isFinite(ms) ? Math.round(ms * 1000) : undefined;
}
