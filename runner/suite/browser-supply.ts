// Browsers ready before the scenarios that need them start. The run knows every selected scenario's
// browser configuration up front (runner/suite/browser-need.ts), so while one scenario runs, the next ones'
// browsers are prepared beside it: a session of their own created and connected, or, for scenarios that
// only drive pages, a fresh browser context in a session the run keeps (one per worker and configuration,
// as Playwright Test keeps one browser per worker). The scenario's own create and delete steps then take
// and give back what was prepared; when nothing usable was prepared they do their own API calls as before.
import { withLocalServers } from '../exec/local-servers.js';
import { playwrightCore } from '../exec/playwright-lib.js';
import type { Browser, BrowserContext } from 'playwright-core';
import type { CloudClient } from '../../src/api/client.js';
import type { Plan } from '../../src/scenario/plan.js';
import { acquireCall } from '../../src/scenario/browser-calls.js';
import { browserNeed, type BrowserNeed } from './browser-need.js';
import type { BrowserLease, BrowserSource, SessionInfo } from '../exec/browser-source.js';
import { newContext, scenarioPage } from '../exec/context-options.js';

export interface SupplyOptions {
  client: CloudClient;
  /** Scenarios running at once. */
  workers: number;
  /**
   * Browsers being prepared at once, and kept ready, ahead of the scenarios that will take them (default:
   * the workers; more would only take the CPU from the scenarios running).
   */
  lookahead?: number;
  /** Whether page-only scenarios may share sessions (`--isolation context`, the default). */
  share?: boolean;
  /**
   * Contexts that take longer than this to make (the median of the last few) are made when their scenario
   * starts rather than beside the one running: default CONTEXT_AHEAD_MAX_MS.
   */
  contextAheadMaxMs?: number;
  /** See ExecuteDeps.localServers: added to every browser prepared here. */
  localServers?: { urls: string[] };
  notice(message: string): void;
}

type Prepared = Omit<BrowserLease, 'how'> & {
  mode: BrowserNeed['mode'];
  /** No longer to be handed out: its browser went away, or its shared session was retired after a failure. */
  stale(): boolean;
};

/** A session the run keeps for scenarios that only drive pages: each gets a context of its own in it. */
interface Host {
  /** Resolves once the session is created and connected (false if it could not be). */
  ready: Promise<boolean>;
  session?: SessionInfo;
  browser?: Browser;
  requestId?: string;
  /** Contexts being prepared, prepared or leased in it. */
  load: number;
  /** Takes no new contexts; deleted when the last one is given back. */
  retired: boolean;
  deleted: boolean;
  /**
   * The service keeps it for a failed scenario (--keep-on-failure): retired, and once its other contexts
   * are given back only disconnected, the failed scenario's context left open in it.
   */
  kept?: boolean;
}

/** Contexts (prepared or running) one shared session takes before another is started beside it. */
const CONTEXTS_PER_SESSION = 4;

/**
 * Where making a context ahead stops paying. On the headless shell a context and its page take about
 * 200 ms, made beside a running scenario or not, and making them ahead hides that (20 flows: 0.80x of
 * Playwright Test's time ahead, 0.91x on demand). A full Chromium in new headless opens a window per
 * context: 600-700 ms alone, 1-1.5 s beside a running scenario, whose steps slowed from 0.47 to 1.3 s, so
 * the suite took longer than making each context when its scenario starts (1.38x against 1.17x).
 */
const CONTEXT_AHEAD_MAX_MS = 400;
/** How many of the latest context timings the median is taken over. */
const CONTEXT_SAMPLES = 5;

export class BrowserSupply implements BrowserSource {
  readonly #o: Required<SupplyOptions>;
  readonly #needs = new WeakMap<Plan, BrowserNeed | null>();
  /** Needs of scenarios not started yet, in the order they are expected to start. */
  #upcoming: BrowserNeed[] = [];
  readonly #stock = new Map<string, Promise<Prepared | undefined>[]>();
  readonly #hosts = new Map<string, Host[]>();
  readonly #background = new Set<Promise<unknown>>();
  #closed = false;
  #preparing = 0;
  /** How long the latest contexts took to make (ms), newest last. */
  readonly #contextMs: number[] = [];
  #contextsPreparing = 0;

  constructor(options: SupplyOptions) {
    this.#o = { lookahead: Math.max(1, options.workers), share: true, contextAheadMaxMs: CONTEXT_AHEAD_MAX_MS, localServers: { urls: [] }, ...options };
  }

  /** The scenarios about to run, in order: preparing starts now. */
  expect(plans: Plan[]): void {
    this.#upcoming = plans.map((p) => this.#need(p)).filter((n): n is BrowserNeed => n !== undefined);
    this.#refill();
  }

  async take(plan: Plan): Promise<BrowserLease | undefined> {
    const need = this.#need(plan);
    if (!need || this.#closed) return undefined;
    const at = this.#upcoming.findIndex((n) => n.key === need.key);
    if (at >= 0) this.#upcoming.splice(at, 1);
    const started = performance.now();
    const waiting = this.#stock.get(need.key)?.shift();
    this.#refill();
    let prepared = waiting ? await waiting : undefined;
    let ahead = prepared !== undefined;
    if (prepared && (prepared.stale() || prepared.page.isClosed())) {
      prepared.release(false);
      prepared = undefined;
      ahead = false;
    }
    // A shared session takes a new context in a few tens of milliseconds; an own session is left to the
    // scenario's own create step, which reports the service's answer if it fails.
    if (!prepared && need.mode === 'shared') prepared = await this.#prepare(need);
    if (!prepared) return undefined;
    const { mode, stale: _stale, ...lease } = prepared;
    return { ...lease, how: { mode, ahead, waited_ms: Math.round(performance.now() - started) } };
  }

  /** Waits for whatever is being prepared or given back, and deletes every session the supply holds. */
  async close(): Promise<void> {
    this.#closed = true;
    const unused = [...this.#stock.values()].flat();
    this.#stock.clear();
    for (const prepared of await Promise.all(unused)) prepared?.release(false);
    for (const host of [...this.#hosts.values()].flat()) {
      host.retired = true;
      await host.ready;
      if (host.load === 0) this.#track(this.#deleteHost(host));
    }
    while (this.#background.size) await Promise.all(this.#background);
    this.#hosts.clear();
  }

  #need(plan: Plan): BrowserNeed | undefined {
    if (!this.#needs.has(plan)) this.#needs.set(plan, browserNeed(plan, { share: this.#o.share ?? true }) ?? null);
    return this.#needs.get(plan) ?? undefined;
  }

  /**
   * Keeps as many browsers prepared, per configuration, as the next `lookahead` scenarios need, with at
   * most `lookahead` being prepared at any moment (one a scenario already waits for included).
   */
  #refill(): void {
    if (this.#closed) return;
    const wanted = new Map<string, { need: BrowserNeed; count: number }>();
    for (const need of this.#upcoming.slice(0, this.#o.lookahead)) {
      const entry = wanted.get(need.key) ?? { need, count: 0 };
      entry.count++;
      wanted.set(need.key, entry);
    }
    for (const [key, { need, count }] of wanted) {
      const stock = this.#stock.get(key) ?? [];
      this.#stock.set(key, stock);
      const shared = need.mode === 'shared';
      while (stock.length < count && this.#preparing < this.#o.lookahead && (!shared || this.#contextsPayAhead())) {
        this.#preparing++;
        if (shared) this.#contextsPreparing++;
        const prepared = this.#track(this.#prepare(need));
        stock.push(prepared);
        void prepared.finally(() => {
          this.#preparing--;
          if (shared) this.#contextsPreparing--;
          this.#refill();
        });
      }
    }
  }

  /** A browser for `need`, or undefined when it could not be had (the scenario then creates its own). */
  async #prepare(need: BrowserNeed): Promise<Prepared | undefined> {
    try {
      return need.mode === 'shared' ? await this.#prepareContext(need) : await this.#prepareSession(need);
    } catch {
      return undefined;
    }
  }

  async #prepareSession(need: BrowserNeed): Promise<Prepared> {
    const { session, browser, requestId } = await this.#open(need);
    try {
      const { context, page } = await scenarioPage(browser, need.context);
      const release = () => {
        this.#track(
          (async () => {
            await browser.close().catch(() => {});
            await this.#delete(session);
          })(),
        );
      };
      return { session, browser, context, page, mode: 'own', release, stale: () => !browser.isConnected(), ...(requestId ? { request_id: requestId } : {}) };
    } catch (err) {
      await browser.close().catch(() => {});
      await this.#delete(session);
      throw err;
    }
  }

  async #prepareContext(need: BrowserNeed): Promise<Prepared> {
    const host = this.#pickHost(need);
    host.load++;
    let context: BrowserContext | undefined;
    try {
      if (!(await host.ready) || host.retired || !host.browser!.isConnected()) throw new Error('no session to share');
      // No emulated viewport: the page gets the session's window, as the first page of a session of its own would.
      const started = performance.now();
      context = await newContext(host.browser!, need.context ?? {}, need.context ? {} : { viewport: null });
      const page = await context.newPage();
      this.#contextMs.push(performance.now() - started);
      if (this.#contextMs.length > CONTEXT_SAMPLES) this.#contextMs.shift();
      const release = (failed: boolean, opts: { kept?: boolean } = {}) => {
        if (failed || opts.kept) host.retired = true;
        if (opts.kept) host.kept = true;
        this.#track(this.#closeContext(host, opts.kept ? undefined : context!));
      };
      return { session: host.session!, browser: host.browser!, context, page, mode: 'shared', release, stale: () => host.retired, ...(host.requestId ? { request_id: host.requestId } : {}) };
    } catch (err) {
      if (context) host.retired = true;
      await this.#closeContext(host, context);
      throw err;
    }
  }

  /** Whether contexts are cheap enough to make beside a running scenario (see CONTEXT_AHEAD_MAX_MS). */
  #contextsPayAhead(): boolean {
    // Until one has been timed, one at a time.
    if (this.#contextMs.length === 0) return this.#contextsPreparing === 0;
    const sorted = [...this.#contextMs].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]! <= this.#o.contextAheadMaxMs;
  }

  /**
   * The least loaded live session of this configuration, or a new one when each has CONTEXTS_PER_SESSION
   * contexts: every Chromium launched and connected costs a second or more of CPU with a full Chromium,
   * more than the contexts of a few workers cost one browser process.
   */
  #pickHost(need: BrowserNeed): Host {
    const hosts = (this.#hosts.get(need.key) ?? []).filter((h) => !h.retired);
    const least = hosts.sort((a, b) => a.load - b.load)[0];
    if (least && least.load < CONTEXTS_PER_SESSION) return least;
    const host: Host = { ready: Promise.resolve(false), load: 0, retired: false, deleted: false };
    host.ready = this.#open(need).then(
      ({ session, browser, requestId }) => {
        Object.assign(host, { session, browser, requestId });
        browser.on('disconnected', () => (host.retired = true));
        return true;
      },
      () => {
        host.retired = true;
        return false;
      },
    );
    this.#hosts.set(need.key, [...(this.#hosts.get(need.key) ?? []).filter((h) => !h.deleted), host]);
    return host;
  }

  async #closeContext(host: Host, context: BrowserContext | undefined): Promise<void> {
    await context?.close().catch(() => {});
    host.load--;
    if ((host.retired || this.#closed) && host.load === 0) await this.#deleteHost(host);
  }

  async #deleteHost(host: Host): Promise<void> {
    if (host.deleted) return;
    host.deleted = true;
    if (!host.session) return;
    // Over CDP this disconnects; a kept session's service holds on to the contexts left open in it.
    await host.browser!.close().catch(() => {});
    if (!host.kept) await this.#delete(host.session);
  }

  async #open(need: BrowserNeed): Promise<{ session: SessionInfo; browser: Browser; requestId?: string }> {
    // Loaded first: with the embedded service in this process, Playwright's load (a third of a second of
    // the main thread) would hold up the create's own handling anyway.
    const { chromium } = playwrightCore();
    // The very request the scenario's own acquire_browser would make (browser-calls.ts).
    const create = acquireCall({ op: 'acquire_browser', body: need.body, save: 'session' });
    const body = withLocalServers(create.body, this.#o.localServers.urls, {});
    const { data: session, requestId } = await this.#o.client.request<SessionInfo>(create.method, create.path, { body });
    try {
      return { session, browser: await chromium.connectOverCDP(session.cdp_ws_url), requestId };
    } catch (err) {
      await this.#delete(session);
      throw err;
    }
  }

  async #delete(session: SessionInfo): Promise<void> {
    try {
      await this.#o.client.request('DELETE', `/browsers/${encodeURIComponent(session.session_id)}`);
    } catch (err) {
      this.#o.notice(`could not delete browser ${session.session_id}: ${(err as Error).message}`);
    }
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#background.add(work);
    void work.finally(() => this.#background.delete(work)).catch(() => {});
    return work;
  }
}
