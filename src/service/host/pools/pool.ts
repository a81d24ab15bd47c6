// One browser pool's live state: its browsers (warming, idle, leased, being reset), the acquires waiting
// for one (first come, first served), and filling back up to size. Pool browsers are ordinary sessions
// recorded with the pool's id; while idle they are parked (no inactivity timeout, no CDP clients).
//
// Fill rate: the hosted service fills `fill_rate_per_minute` percent of the pool per minute because a
// VM takes tens of seconds to boot. A browser here starts in well under a second, so the rate is applied
// as how many of the pool's browsers may launch at once, ceil(size x rate / 100) and at least one: a pool
// of 3 at 25% launches one at a time and is full in about three launch times; a pool of 40 at 25%
// launches 10 at a time. Launching starts as soon as the pool is created, and after any browser leaves.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserCreateParams, BrowserPoolAcquireParams, BrowserTelemetryRequest } from '../../../api/types.js';
import { DomainError, conflict, notFound, unavailable } from '../errors.js';
import type { BrowserRow, BrowsersRepo } from '../../store/browsers-repo.js';
import type { PoolRow } from '../../store/pools-repo.js';
import { BrowserTracker, DEFAULT_VIEWPORT } from '../browser/index.js';
import type { BrowserLauncher } from '../browsers/index.js';
import { DOWNLOADS_DIR } from '../fs/index.js';
import type { ProfileStore } from '../profiles/index.js';
import type { ProxyService } from '../proxy/index.js';
import type { LiveSession, Logger, SessionManager } from '../session/index.js';
import { UniqueViolation } from '../../store/unique.js';

const MAX_BACKOFF_MS = 30_000;
const RESET_TIMEOUT_MS = 15_000;

type MemberState = 'warming' | 'idle' | 'leased' | 'resetting';

interface Member {
  readonly id: string;
  state: MemberState;
  tracker?: BrowserTracker;
  /** As launched: a reused browser keeps the config it was created with, whatever the pool says since. */
  readonly startUrl: string | null;
  readonly viewport: { width: number; height: number };
  readonly headless: boolean;
  /** The pool's profile when launched, and how many saves of it had happened then (ProfileStore.generation). */
  readonly profileId: string | null;
  readonly profileGeneration: number;
  /** Restarted with extensions or a profile of its holder's: no longer the pool's config, so not reused. */
  diverged?: boolean;
}

interface Waiter {
  readonly body: BrowserPoolAcquireParams;
  resolve(row: BrowserRow | undefined): void;
  reject(err: unknown): void;
  timer?: NodeJS.Timeout;
  gone: boolean;
}

export interface PoolDeps {
  sessions: SessionManager;
  browsers: BrowsersRepo;
  tokens: { revoke(sessionId: string): void };
  log: Logger;
  /** Launches the pool's browsers as every session is launched. */
  launcher: Pick<BrowserLauncher, 'launch'>;
  /** Resolves the pool's `proxy_id` at each launch (the pool stores only the id). */
  proxies?: PoolProxies;
  /** Tells browsers started from an older state of the pool's profile. */
  profiles?: Pick<ProfileStore, 'generation'>;
}

export type PoolProxies = Pick<ProxyService, 'poolRoute' | 'linkBrowser' | 'addReferrers' | 'presentFor' | 'recordUse'>;

/** What pools need of the telemetry hub: checking a config's settings before any browser launches with them. */
export interface PoolTelemetry {
  validate(req: BrowserTelemetryRequest | null | undefined, field: string): void;
}

export class LivePool {
  private readonly members = new Map<string, Member>();
  private readonly idle: string[] = [];
  private readonly waiters: Waiter[] = [];
  private launching = 0;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  /** Why acquires are refused once the service stops or drains (a deleted pool answers 404 instead). */
  private refusal: DomainError | undefined;
  private closed = false;

  constructor(
    public row: PoolRow,
    private readonly deps: PoolDeps,
  ) {}

  get id(): string {
    return this.row.id;
  }

  get availableCount(): number {
    return this.idle.length;
  }

  get acquiredCount(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.state === 'leased') n++;
    return n;
  }

  /** Acquires waiting for a browser to free up. */
  get waitingCount(): number {
    return this.waiters.length;
  }

  /** Browsers being launched for the pool right now (not yet members). */
  get launchingCount(): number {
    return this.launching;
  }

  /** How many of the pool's browsers may launch at once (see the top of this file). */
  get parallelLaunches(): number {
    return Math.max(1, Math.ceil((this.row.config.size * this.row.config.fill_rate_per_minute) / 100));
  }

  /** The default long-poll: time to refill the whole pool at its rate, allowing 2 s per launch round. */
  get defaultAcquireTimeoutSeconds(): number {
    return Math.min(50, Math.max(10, 2 * Math.ceil(this.row.config.size / this.parallelLaunches)));
  }

  private get label(): string {
    return `pool '${this.row.name ?? this.row.id}'`;
  }

  has(sessionId: string): boolean {
    return this.members.has(sessionId);
  }

  fill(): void {
    while (!this.closed && !this.retry && this.members.size + this.launching < this.row.config.size && this.launching < this.parallelLaunches) {
      this.launching++;
      void this.warmOne();
    }
  }

  /** A browser that cannot start (or dies at once) will likely do so again on the next try: wait first. */
  private backOff(why: string): void {
    if (this.retry) return;
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.failures++);
    this.deps.log.warn({ pool_id: this.id, err: why, retry_in_ms: delay }, 'could not warm a pool browser');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.fill();
    }, delay);
    this.retry.unref();
  }

  private async warmOne(): Promise<void> {
    const { sessions } = this.deps;
    const config = this.row.config;
    const params: BrowserCreateParams = {
      headless: config.headless,
      stealth: config.stealth,
      kiosk_mode: config.kiosk_mode,
      timeout_seconds: config.timeout_seconds,
      ...(config.viewport ? { viewport: config.viewport } : {}),
      ...(config.start_url ? { start_url: config.start_url } : {}),
      // Read-only: pool browsers never write the profile back.
      ...(config.profile_id ? { profile: { id: config.profile_id } } : {}),
      ...(config.extension_ids?.length ? { extensions: config.extension_ids.map((id) => ({ id })) } : {}),
      ...(config.network ? { network: config.network } : {}),
      ...(config.chrome_policy ? { chrome_policy: config.chrome_policy } : {}),
    };
    // Read before the launch copies the profile, so a save that lands meanwhile marks this browser stale.
    const profileId = config.profile_id ?? null;
    const profileGeneration = profileId ? (this.deps.profiles?.generation(profileId) ?? 0) : 0;
    let row: BrowserRow;
    try {
      const proxy = config.proxy_id ? await this.deps.proxies?.poolRoute(this.row.project_id, config.proxy_id, 'browser_pool_config.proxy_id') : undefined;
      row = await this.deps.launcher.launch({
        projectId: this.row.project_id,
        params,
        poolId: this.id,
        upstream: proxy,
        proxyLink: proxy ? { proxy_id: proxy.proxyId, mode: null } : undefined,
        telemetry: { settings: config.telemetry, field: 'browser_pool_config.telemetry' },
      });
    } catch (err) {
      this.launching--;
      if (!this.closed && !sessions.isClosing) this.backOff((err as Error).message);
      return;
    }
    this.launching--;
    const member: Member = {
      id: row.id,
      state: 'warming',
      startUrl: row.start_url,
      viewport: params.viewport ?? DEFAULT_VIEWPORT,
      headless: row.headless,
      profileId,
      profileGeneration,
    };
    this.members.set(row.id, member);
    if (this.closed || this.members.size > this.row.config.size) {
      void sessions.end(row.id, 'deleted', `${this.label} no longer needs it`);
      return;
    }
    const live = sessions.get(row.id);
    try {
      if (!live) return;
      const tracker = await BrowserTracker.open(live.chromium.wsEndpoint);
      if (live.ending || this.members.get(row.id) !== member) return tracker.close();
      member.tracker = tracker;
      live.cleanups.push(() => tracker.close());
    } catch (err) {
      void sessions.end(row.id, 'browser_exited', `the pool could not connect to its browser: ${(err as Error).message}`);
      return;
    }
    this.failures = 0;
    if (this.profileStale(member)) {
      // Its profile was updated while it started: replaced rather than leased with the old state.
      this.members.delete(row.id);
      void sessions.end(row.id, 'deleted', `${this.label}: its profile was updated while it started`);
      this.fill();
      return;
    }
    this.becomeIdle(member);
    this.fill();
  }

  /** Started from an older state of the pool's profile, and the pool refreshes on profile updates. */
  private profileStale(member: Member): boolean {
    const { profile_id: profileId, refresh_on_profile_update: refresh } = this.row.config;
    if (!member.profileId || member.profileId !== profileId || refresh === false) return false;
    return member.profileGeneration < (this.deps.profiles?.generation(profileId) ?? 0);
  }

  /** The pool's profile was updated: idle browsers started from its older state are replaced. */
  async refreshProfile(): Promise<void> {
    const stale = this.idle.filter((id) => {
      const member = this.members.get(id);
      return member !== undefined && this.profileStale(member);
    });
    for (const id of stale) this.idle.splice(this.idle.indexOf(id), 1);
    await Promise.all(stale.map((id) => this.deps.sessions.end(id, 'deleted', `replaced in ${this.label} after its profile was updated`)));
  }

  /** Leases an idle browser now, or waits up to `timeoutMs` for one; undefined means none came (204). */
  async acquire(body: BrowserPoolAcquireParams, timeoutMs: number, gone: Promise<void>): Promise<BrowserRow | undefined> {
    if (this.refusal) throw this.refusal;
    if (this.closed) throw notFound('browser pool', this.row.name ?? this.row.id);
    // Refused before waiting; checked again when the browser is leased, since a name can be taken meanwhile.
    if (body.name && (await this.deps.browsers.getActiveByName(this.row.project_id, body.name))) throw nameTaken(body.name);
    if (this.closed) throw notFound('browser pool', this.row.name ?? this.row.id);
    if (this.waiters.length === 0) {
      const lease = this.leaseIdle(body);
      if (lease) return lease;
    }
    if (timeoutMs <= 0) return undefined;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { body, resolve, reject, gone: false };
      const leave = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        clearTimeout(waiter.timer);
        resolve(undefined);
      };
      waiter.timer = setTimeout(leave, timeoutMs);
      void gone.then(() => {
        waiter.gone = true;
        leave();
      });
      this.waiters.push(waiter);
    });
  }

  /** Ends a lease: the holder's connections and CDP URL stop working, then the browser is reset or replaced. */
  async release(sessionId: string, reuse: boolean): Promise<void> {
    const member = this.members.get(sessionId);
    if (!member) throw new DomainError('not_found', 'not_found', `browser '${sessionId}' is not in ${this.label}`);
    if (member.state !== 'leased') throw conflict(`browser '${sessionId}' is not acquired from ${this.label} (it is ${member.state})`);
    const { sessions, browsers, tokens, log } = this.deps;
    const live = sessions.get(sessionId)!;
    member.state = 'resetting';
    live.parked = true;
    sessions.dropClients(sessionId);
    tokens.revoke(sessionId);
    await sessions.released(live);
    await browsers.update(sessionId, { name: null, tags: {}, start_url: member.startUrl });
    // A browser with a profile is replaced rather than reset: a reset would clear the profile's cookies and
    // storage too, and the next holder must start from the profile as it is, not from the last lease.
    if (!reuse || this.closed || this.members.size > this.row.config.size || member.profileId || member.diverged) {
      const why = !reuse
        ? `released to ${this.label} with reuse: false`
        : member.profileId
          ? `released to ${this.label}; replaced so the next holder starts from the profile`
          : member.diverged
            ? `released to ${this.label}; replaced since its holder restarted it with other extensions or a profile`
            : `${this.label} no longer needs it`;
      await sessions.end(sessionId, 'deleted', why);
      return;
    }
    try {
      await withTimeout(this.reset(member, live), RESET_TIMEOUT_MS, 'the reset took too long');
    } catch (err) {
      log.warn({ session_id: sessionId, err: (err as Error).message }, 'could not reset a pool browser; replacing it');
      await sessions.end(sessionId, 'deleted', `released to ${this.label}, could not be reset for reuse: ${(err as Error).message}`);
      return;
    }
    if (this.members.get(sessionId) === member && !live.ending) this.becomeIdle(member);
  }

  /** Destroys the idle browsers; the pool refills with its current config. Leased ones are untouched. */
  async flush(why = 'flushed'): Promise<void> {
    const ids = this.idle.splice(0);
    await Promise.all(ids.map((id) => this.deps.sessions.end(id, 'deleted', `${why} from ${this.label}`)));
  }

  /** Applies an updated config to browsers launched from now on; shrinking destroys surplus idle ones. */
  async reconfigure(row: PoolRow, discardIdle: boolean): Promise<void> {
    this.row = row;
    if (discardIdle) await this.flush('discarded on update');
    const surplus = Math.min(this.members.size - row.config.size, this.idle.length);
    if (surplus > 0) {
      const ids = this.idle.splice(0, surplus);
      await Promise.all(ids.map((id) => this.deps.sessions.end(id, 'deleted', `${this.label} shrank`)));
    }
    this.fill();
  }

  /** Told when a leased browser's Chromium was restarted (loaded extensions or a profile). */
  async memberRestarted(live: LiveSession): Promise<void> {
    const member = this.members.get(live.id);
    if (!member) return;
    member.diverged = true;
    member.tracker?.close();
    member.tracker = undefined;
    // The tracker's connection is what a reset would use; without one the release replaces the browser anyway.
    const tracker = await BrowserTracker.open(live.chromium.wsEndpoint).catch(() => undefined);
    if (!tracker) return;
    if (live.ending || this.members.get(live.id) !== member) return tracker.close();
    member.tracker = tracker;
    live.cleanups.push(() => tracker.close());
  }

  /** Told when one of the pool's sessions starts ending, however that happened (DELETE, timeout, crash). */
  memberEnded(sessionId: string): void {
    const member = this.members.get(sessionId);
    if (!member) return;
    this.members.delete(sessionId);
    const i = this.idle.indexOf(sessionId);
    if (i >= 0) this.idle.splice(i, 1);
    member.tracker?.close();
    if (member.state === 'warming' && !this.closed) this.backOff('the browser ended before it was ready');
    this.fill();
  }

  /** The pool was deleted: waiters get 404, and every browser ends, leased ones too. */
  async destroy(): Promise<void> {
    this.stop((w) => w.reject(notFound('browser pool', this.row.name ?? this.row.id)));
    await Promise.all([...this.members.keys()].map((id) => this.deps.sessions.end(id, 'deleted', `${this.label} was deleted`)));
  }

  /** Service shutdown: stop filling and answer waiters; the session manager ends the browsers. */
  close(): void {
    this.refuse(unavailable('shutting_down', 'the service is shutting down'));
  }

  /** Stops filling and leasing: waiters and later acquires get `err` (a draining host); leases run on. */
  refuse(err: DomainError): void {
    this.refusal ??= err;
    this.stop((w) => w.reject(err));
  }

  private stop(answer: (w: Waiter) => void): void {
    this.closed = true;
    clearTimeout(this.retry);
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      answer(w);
    }
  }

  private becomeIdle(member: Member): void {
    member.state = 'idle';
    this.idle.push(member.id);
    this.serveWaiters();
  }

  /** Hands idle browsers to waiters, first come first served; each lease claims its browser at once. */
  private serveWaiters(): void {
    while (this.waiters.length && this.idle.length) {
      const waiter = this.waiters.shift()!;
      clearTimeout(waiter.timer);
      if (waiter.gone) continue;
      const lease = this.leaseIdle(waiter.body);
      if (!lease) {
        this.waiters.unshift(waiter);
        return;
      }
      lease.then(waiter.resolve, waiter.reject);
    }
  }

  /**
   * Claims an idle browser synchronously (so no other acquire can take it) and leases it once its record
   * holds the lease's name and tags; undefined when none is idle. A name taken meanwhile puts the browser back.
   */
  private leaseIdle(body: BrowserPoolAcquireParams): Promise<BrowserRow | undefined> | undefined {
    const { sessions, browsers } = this.deps;
    for (;;) {
      const id = this.idle.shift();
      if (id === undefined) return undefined;
      const member = this.members.get(id);
      const live = sessions.get(id);
      if (!member || !live || live.ending) continue;
      member.state = 'leased';
      return this.lease(member, live, body);
    }
  }

  private async lease(member: Member, live: LiveSession, body: BrowserPoolAcquireParams): Promise<BrowserRow | undefined> {
    const { browsers } = this.deps;
    const { id } = member;
    const { timeout_seconds } = this.row.config;
    let leased: BrowserRow | undefined;
    try {
      leased = await browsers.update(id, { name: body.name ?? null, tags: body.tags ?? {}, timeout_seconds, start_url: body.start_url ?? member.startUrl });
    } catch (err) {
      if (this.members.get(id) === member && !live.ending) {
        member.state = 'idle';
        this.idle.unshift(id);
        // Served after this failure is answered; the browser is free for the next waiter.
        queueMicrotask(() => this.serveWaiters());
      }
      if (err instanceof UniqueViolation) throw nameTaken(body.name!);
      throw err;
    }
    // Ended while its record was written: another idle browser, if there is one.
    if (this.members.get(id) !== member || live.ending) return this.leaseIdle(body);
    live.parked = false;
    live.timeoutMs = timeout_seconds * 1000;
    live.lastActivity = Date.now();
    if (body.start_url) member.tracker?.navigate(body.start_url).catch(() => undefined);
    return leased;
  }

  private async reset(member: Member, live: LiveSession): Promise<void> {
    if (!member.tracker) throw new Error('the pool has no connection to the browser');
    const frame = member.headless ? await this.deps.sessions.windowFrameOf(live.id) : { width: 0, height: 0 };
    await member.tracker.reset({ width: member.viewport.width + frame.width, height: member.viewport.height + frame.height });
    // Files the last holder downloaded are theirs, not the next holder's.
    const downloads = live.view.hostPath(DOWNLOADS_DIR);
    const names = await readdir(downloads);
    await Promise.all(names.map((name) => rm(join(downloads, name), { recursive: true, force: true })));
  }
}

function nameTaken(name: string): DomainError {
  return conflict(`a browser named '${name}' is already active in this project`);
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
