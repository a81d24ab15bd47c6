// The pool browsers this host runs, whichever process keeps their pool's books (pool.ts: this one, or a
// cluster's leader host over HTTP, cluster/pool-member-routes.ts). A member is an ordinary session launched
// parked with its pool's id; here it is warmed (a CDP connection of ours kept for resets), leased (its
// record takes the holder's name and tags, it unparks), and on release reset for the next holder or
// replaced. The pool decides which browser goes to whom; this file does what must run beside the browser.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserCreateParams, BrowserTelemetryRequest } from '../../../api/types.js';
import { DomainError, conflict } from '../errors.js';
import type { BrowserRow, BrowsersRepo } from '../../store/browsers-repo.js';
import type { PoolRow } from '../../store/pools-repo.js';
import { BrowserTracker, DEFAULT_VIEWPORT } from '../browser/index.js';
import type { BrowserLauncher } from '../browsers/index.js';
import { DOWNLOADS_DIR } from '../fs/index.js';
import type { ProfileStore } from '../profiles/index.js';
import type { ProxyService } from '../proxy/index.js';
import type { LiveSession, Logger, SessionEndListener, SessionManager, SessionRestartHook } from '../session/index.js';
import { UniqueViolation } from '../../store/unique.js';

const RESET_TIMEOUT_MS = 15_000;

/** What a lease sets on the browser's record and session. */
export interface LeaseTerms {
  name?: string;
  tags?: Record<string, string>;
  start_url?: string;
  timeout_seconds: number;
  telemetry?: BrowserTelemetryRequest | null;
}

/** A release's first half is done (the holder is cut off); `after` says what became of the browser. */
export interface ReleaseTicket {
  after: Promise<'idle' | 'ended'>;
}

export interface MemberInfo {
  id: string;
  pool_id: string;
  state: 'idle' | 'leased';
}

/**
 * What a pool's books ask of the host that runs one of its browsers. Implemented here for this host and
 * by cluster/remote-pool-members.ts for another one; both throw the same DomainErrors.
 */
export interface MemberOps {
  /** The host's id in the cluster ('' for a single process). */
  readonly hostId: string;
  /** Launches a browser for the pool and resolves with its id once it is ready to lease. */
  launch(pool: PoolRow): Promise<string>;
  /** Leases it: undefined when the browser is gone; a 409 DomainError when the name is taken. */
  lease(id: string, terms: LeaseTerms): Promise<BrowserRow | undefined>;
  /**
   * Takes it back: resolves once the holder is cut off (connections, token, name and tags); then the browser
   * is reset for reuse when `keep` (the pool wants it) and it can be, else ended with `why`.
   */
  release(id: string, keep: boolean, label: string, why: string): Promise<ReleaseTicket>;
  end(id: string, why: string): Promise<void>;
  /** The pool browsers this host runs (a new leader adopts them). */
  list(): Promise<MemberInfo[]>;
}

export type PoolProxies = Pick<ProxyService, 'poolRoute' | 'linkBrowser' | 'addReferrers' | 'presentFor' | 'recordUse'>;

export interface PoolMembersDeps {
  hostId: string;
  sessions: SessionManager;
  browsers: BrowsersRepo;
  tokens: { revoke(sessionId: string): void };
  log: Logger;
  /** Launches the pool's browsers as every session is launched. */
  launcher: Pick<BrowserLauncher, 'launch'>;
  /** Resolves the pool's `proxy_id` at each launch (the pool stores only the id). */
  proxies?: PoolProxies;
  /** Tells browsers started from an older state of the pool's profile. */
  profiles?: Pick<ProfileStore, 'generation' | 'onUpdated' | 'savedAt'>;
  /** Applies a lease's telemetry settings (the telemetry hub runs beside the browser). */
  telemetry?: { applyCreate(sessionId: string, req: BrowserTelemetryRequest, field: string): Promise<void> };
}

interface Member {
  readonly id: string;
  readonly poolId: string;
  state: 'warming' | 'idle' | 'leased' | 'resetting';
  tracker?: BrowserTracker;
  /** As launched: a reused browser keeps the config it was created with, whatever the pool says since. */
  readonly startUrl: string | null;
  readonly viewport: { width: number; height: number };
  readonly headless: boolean;
  /** The pool's profile when launched, and how many saves of it had happened then (ProfileStore.generation). */
  readonly profileId: string | null;
  readonly profileGeneration: number;
  /** The profile's last write as of the launch: a save on another host since makes the browser stale too. */
  readonly profileSavedAt: string | undefined;
  readonly refreshOnProfileUpdate: boolean;
  /** Restarted with extensions or a profile of its holder's: no longer the pool's config, so not reused. */
  diverged?: boolean;
}

/** Launched, but ended (or went stale) before it was ready: the pool backs off before it tries again. */
export class MemberLaunchFailed extends Error {}

export class PoolMembers implements MemberOps {
  private readonly members = new Map<string, Member>();
  /** Pool names as of each launch here: a host that does not keep a pool's books still names it in its answers. */
  private readonly poolNames = new Map<string, string | null>();
  /** Told when a member ends, however that happened (DELETE, timeout, crash), with its pool's id. */
  onEnded: (poolId: string, sessionId: string) => void = () => {};

  constructor(private readonly deps: PoolMembersDeps) {
    // A session wrote the profile back: idle browsers started from its old state are replaced.
    deps.profiles?.onUpdated((profileId) => void this.refreshProfile(profileId));
  }

  get hostId(): string {
    return this.deps.hostId;
  }

  /** Pool browsers leased here right now. */
  get leased(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.state === 'leased') n++;
    return n;
  }

  async launch(pool: PoolRow): Promise<string> {
    const { sessions } = this.deps;
    const config = pool.config;
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
    const profileSavedAt = profileId ? await this.deps.profiles?.savedAt(profileId) : undefined;
    const proxy = config.proxy_id ? await this.deps.proxies?.poolRoute(pool.project_id, config.proxy_id, 'browser_pool_config.proxy_id') : undefined;
    this.poolNames.set(pool.id, pool.name);
    const row = await this.deps.launcher.launch({
      projectId: pool.project_id,
      params,
      poolId: pool.id,
      upstream: proxy,
      proxyLink: proxy ? { proxy_id: proxy.proxyId, mode: null } : undefined,
      telemetry: { settings: config.telemetry, field: 'browser_pool_config.telemetry' },
    });
    const member: Member = {
      id: row.id,
      poolId: pool.id,
      state: 'warming',
      startUrl: row.start_url,
      viewport: params.viewport ?? DEFAULT_VIEWPORT,
      headless: row.headless,
      profileId,
      profileGeneration,
      profileSavedAt,
      refreshOnProfileUpdate: config.refresh_on_profile_update !== false,
    };
    this.members.set(row.id, member);
    const live = sessions.get(row.id);
    if (!live || live.ending) throw new MemberLaunchFailed('the browser ended before it was ready');
    try {
      const tracker = await BrowserTracker.open(live.chromium.wsEndpoint);
      if (live.ending || this.members.get(row.id) !== member) {
        tracker.close();
        throw new MemberLaunchFailed('the browser ended before it was ready');
      }
      member.tracker = tracker;
      live.cleanups.push(() => tracker.close());
    } catch (err) {
      if (err instanceof MemberLaunchFailed) throw err;
      await sessions.end(row.id, 'browser_exited', `the pool could not connect to its browser: ${(err as Error).message}`);
      throw new MemberLaunchFailed(`could not connect to the browser: ${(err as Error).message}`);
    }
    if (this.profileStale(member)) {
      // Its profile was updated while it started: replaced rather than leased with the old state.
      await sessions.end(row.id, 'deleted', 'its pool profile was updated while it started');
      return this.launch(pool);
    }
    member.state = 'idle';
    return row.id;
  }

  async lease(id: string, terms: LeaseTerms): Promise<BrowserRow | undefined> {
    const member = this.members.get(id);
    const live = this.deps.sessions.get(id);
    if (!member || member.state !== 'idle' || !live || live.ending) return undefined;
    member.state = 'leased';
    if (await this.savedElsewhere(member)) {
      // Its profile was saved on another host since it started: replaced, the pool leases another.
      member.state = 'resetting';
      await this.deps.sessions.end(id, 'deleted', 'replaced in its pool after its profile was updated');
      return undefined;
    }
    let leased: BrowserRow | undefined;
    try {
      leased = await this.deps.browsers.update(id, { name: terms.name ?? null, tags: terms.tags ?? {}, timeout_seconds: terms.timeout_seconds, start_url: terms.start_url ?? member.startUrl });
    } catch (err) {
      if (this.members.get(id) === member) member.state = 'idle';
      if (err instanceof UniqueViolation) throw nameTaken(terms.name!);
      throw err;
    }
    if (this.members.get(id) !== member || live.ending || !leased) return undefined;
    live.parked = false;
    live.timeoutMs = terms.timeout_seconds * 1000;
    live.lastActivity = Date.now();
    if (terms.start_url) member.tracker?.navigate(terms.start_url).catch(() => undefined);
    // Checked before the acquire was taken in (routes/pools.ts): a failure here is the hub's, not the caller's.
    if (terms.telemetry && this.deps.telemetry) {
      await this.deps.telemetry.applyCreate(id, terms.telemetry, 'telemetry').catch((err: unknown) => this.deps.log.warn({ session_id: id, err: (err as Error).message }, "could not apply a lease's telemetry"));
    }
    return leased;
  }

  async release(id: string, keep: boolean, label: string, why: string): Promise<ReleaseTicket> {
    const member = this.members.get(id);
    const { sessions, browsers, tokens } = this.deps;
    const live = sessions.get(id);
    if (!member || !live || live.ending) return { after: Promise.resolve('ended') };
    if (member.state !== 'leased') throw conflict(`browser '${id}' is not acquired from ${label} (it is ${member.state})`);
    member.state = 'resetting';
    live.parked = true;
    sessions.dropClients(id);
    tokens.revoke(id);
    await sessions.released(live);
    await browsers.update(id, { name: null, tags: {}, start_url: member.startUrl });
    // A browser with a profile is replaced rather than reset: a reset would clear the profile's cookies and
    // storage too, and the next holder must start from the profile as it is, not from the last lease.
    if (!keep || member.profileId || member.diverged) {
      const reason = !keep
        ? why
        : member.profileId
          ? `released to ${label}; replaced so the next holder starts from the profile`
          : `released to ${label}; replaced since its holder restarted it with other extensions or a profile`;
      await sessions.end(id, 'deleted', reason);
      return { after: Promise.resolve('ended') };
    }
    // The reset runs after the answer: the holder is done with the browser, and the next one waits for it.
    return { after: this.recycle(member, live, label) };
  }

  private async recycle(member: Member, live: LiveSession, label: string): Promise<'idle' | 'ended'> {
    const { sessions, log } = this.deps;
    const { id } = member;
    try {
      await withTimeout(this.reset(member, live), RESET_TIMEOUT_MS, 'the reset took too long');
    } catch (err) {
      log.warn({ session_id: id, err: (err as Error).message }, 'could not reset a pool browser; replacing it');
      await sessions.end(id, 'deleted', `released to ${label}, could not be reset for reuse: ${(err as Error).message}`);
      return 'ended';
    }
    if (this.members.get(id) !== member || live.ending) return 'ended';
    member.state = 'idle';
    return 'idle';
  }

  /** The name of a pool this host has launched browsers for, as it was then. */
  poolName(poolId: string): string | null | undefined {
    return this.poolNames.get(poolId);
  }

  /** Ends the idle ones (a draining host: they would only be leased here again); their pools refill elsewhere. */
  async endIdle(why: string): Promise<void> {
    const idle = [...this.members.values()].filter((m) => m.state === 'idle');
    for (const m of idle) m.state = 'resetting';
    await Promise.all(idle.map((m) => this.deps.sessions.end(m.id, 'deleted', why)));
  }

  async end(id: string, why: string): Promise<void> {
    await this.deps.sessions.end(id, 'deleted', why);
  }

  async list(): Promise<MemberInfo[]> {
    const out: MemberInfo[] = [];
    for (const m of this.members.values()) {
      if (m.state === 'idle' || m.state === 'leased') out.push({ id: m.id, pool_id: m.poolId, state: m.state });
    }
    return out;
  }

  /** Session end hook. */
  readonly memberEnded: SessionEndListener = (session) => {
    const member = this.members.get(session.id);
    if (!member) return;
    this.members.delete(session.id);
    member.tracker?.close();
    this.onEnded(member.poolId, member.id);
  };

  /** Restart hook: a leased browser restarted with other extensions or a profile is replaced on release. */
  readonly memberRestarted: SessionRestartHook = async (live: LiveSession) => {
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
  };

  /** Started from an older state of its pool's profile, and the pool refreshes on profile updates. */
  private profileStale(member: Member): boolean {
    if (!member.profileId || !member.refreshOnProfileUpdate) return false;
    return member.profileGeneration < (this.deps.profiles?.generation(member.profileId) ?? 0);
  }

  private async savedElsewhere(member: Member): Promise<boolean> {
    if (!member.profileId || !member.refreshOnProfileUpdate || !this.deps.profiles) return false;
    return (await this.deps.profiles.savedAt(member.profileId)) !== member.profileSavedAt;
  }

  /** The profile was updated: idle browsers started from its older state are replaced (their pools refill). */
  private async refreshProfile(profileId: string): Promise<void> {
    const stale = [...this.members.values()].filter((m) => m.state === 'idle' && m.profileId === profileId && this.profileStale(m));
    for (const m of stale) m.state = 'resetting';
    await Promise.all(stale.map((m) => this.deps.sessions.end(m.id, 'deleted', 'replaced in its pool after its profile was updated')));
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

export function nameTaken(name: string): DomainError {
  return conflict(`a browser named '${name}' is already active in this project`);
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
