// The browser pools of the service: created, changed and deleted through the API, stored in SQLite and
// recreated (and refilled) when the service starts. Each pool's browsers live in a LivePool (pool.ts).
import { checkNetwork } from '../network/index.js';
import { admitChromePolicy, effectivePolicy } from '../browser/index.js';
import type { BrowserPool, BrowserPoolConfig, BrowserPoolRef, BrowserTelemetryRequest } from '../../../api/types.js';
import type { BrowserPoolCreateParams, BrowserPoolUpdateParams } from '../../../api/schemas/pools.js';
import { DomainError, conflict, notFound } from '../errors.js';
import { newId } from '../../ids.js';
import type { BrowsersRepo } from '../../store/browsers-repo.js';
import type { PoolRow, PoolsRepo, StoredPoolConfig } from '../../store/pools-repo.js';
import type { ExtensionStore } from '../extensions/index.js';
import type { ConcurrencyLimit, Logger, SessionManager, SessionReleaseHook } from '../session/index.js';
import { LivePool } from './pool.js';
import type { MemberOps, PoolMembers, PoolProxies } from './members.js';
import { applyPoolResources } from './resources.js';
import type { ProfileStore } from '../profiles/index.js';
import { lookUpInProject } from '../find-in-project.js';
import { UniqueViolation } from '../../store/unique.js';

export const DEFAULT_POOL_TIMEOUT_SECONDS = 600;
export const DEFAULT_FILL_RATE = 25;

/** The create body, and the update body (its fields all optional, plus `discard_all_idle`). */
export type PoolSettings = BrowserPoolCreateParams;
export type PoolUpdate = BrowserPoolUpdateParams;

export interface PoolManagerDeps {
  repo: PoolsRepo;
  browsers: BrowsersRepo;
  sessions: SessionManager;
  log: Logger;
  now: () => Date;
  headful: { available: boolean; reason: string };
  /** Whether pool browsers can run with chrome_policy here (browser/chrome-policy.ts). */
  chromePolicy: { available: boolean; reason: string };
  telemetry: PoolTelemetry;
  /** The pool browsers this host runs. */
  members: PoolMembers;
  /** Where a pool's next browser launches; this host unless given (a cluster's leader spreads them). */
  place?: (pool: LivePool) => MemberOps;
  proxies?: PoolProxies;
  profiles?: ProfileStore;
  extensions?: ExtensionStore;
}

/** What pools need of the telemetry hub: checking a config's settings before any browser launches with them. */
export interface PoolTelemetry {
  validate(req: BrowserTelemetryRequest | null | undefined, field: string): void;
}

export class PoolManager {
  private readonly pools = new Map<string, LivePool>();
  private limit: ConcurrencyLimit | undefined;
  /** Browsers admitted to pools whose rows are still being written (counted as reserved meanwhile), by project ('' for none). */
  private readonly admitted = new Map<string, number>();

  constructor(private readonly deps: PoolManagerDeps) {
    // A pool keeps launching browsers through its proxy, so the proxy cannot be deleted under it.
    deps.proxies?.addReferrers((proxyId) =>
      [...this.pools.values()].filter((p) => p.row.config.proxy_id === proxyId).map((p) => `browser pool '${p.row.name ?? p.id}'`),
    );
    // The same for the pool's profile and extensions.
    const usedBy = (uses: (config: StoredPoolConfig) => boolean) =>
      [...this.pools.values()].filter((p) => uses(p.row.config)).map((p) => `browser pool '${p.row.name ?? p.id}'`);
    deps.profiles?.addReferrers((profileId) => usedBy((c) => c.profile_id === profileId));
    deps.extensions?.addReferrers((extensionId) => usedBy((c) => c.extension_ids?.includes(extensionId) ?? false));
    // A browser of this host ended: its pool (when its books are kept here) refills.
    deps.members.onEnded = (poolId, sessionId) => this.pools.get(poolId)?.memberEnded(sessionId);
  }

  /** Lease release hook: a lease may have switched the browser's proxy (PATCH); the next holder gets the pool's route again. */
  readonly leaseReleased: SessionReleaseHook = async ({ id, proxy: forwarder }) => {
    const { proxies } = this.deps;
    if (forwarder) {
      // Most leases never switch the proxy: then the link still says what the browser was launched with.
      if (!forwarder.switched) return;
      forwarder.use(forwarder.launchedWith);
      await proxies?.linkBrowser(id, { proxy_id: forwarder.launchedWith?.proxyId ?? null, mode: null });
    } else if ((await proxies?.presentFor(id))?.proxy) {
      await proxies!.linkBrowser(id, { proxy_id: null, mode: null });
    }
  };

  /** The limit pools are checked against; set once both exist (the limit counts pool reservations). */
  setLimit(limit: ConcurrencyLimit): void {
    this.limit = limit;
  }

  /**
   * Recreates the stored pools and starts filling them (service start, after stale sessions are ended),
   * taking in first the browsers that `hosts` already run for them (a cluster's new leader).
   */
  async start(hosts: MemberOps[] = []): Promise<void> {
    const rows = await this.deps.repo.all();
    const found = await Promise.all(hosts.map(async (host) => ({ host, members: await host.list().catch(() => []) })));
    for (const row of rows) {
      const pool = this.add(row, false);
      for (const { host, members } of found) pool.adopt(host, members.filter((m) => m.pool_id === row.id));
    }
    for (const pool of this.pools.values()) pool.fill();
  }

  /**
   * Drops the members on other hosts that are no longer active (a cluster's leader, every heartbeat): those
   * hosts end their browsers without telling the leader, which refills from what the records say.
   */
  reconcile(active: ReadonlySet<string>): void {
    for (const pool of this.pools.values()) {
      for (const id of pool.remoteMembers(this.deps.members.hostId)) if (!active.has(id)) pool.memberEnded(id);
    }
  }

  /** Whether any pool keeps browsers on other hosts (the leader then checks them every beat). */
  get spansHosts(): boolean {
    for (const pool of this.pools.values()) if (pool.remoteMembers(this.deps.members.hostId).length) return true;
    return false;
  }

  close(): void {
    for (const pool of this.pools.values()) pool.close();
  }

  /** A draining host: no pool fills or leases from now on, each acquire answered with `err`. */
  refuse(err: DomainError): void {
    for (const pool of this.pools.values()) pool.refuse(err);
  }

  /** Pool browsers acquired and not yet released that this host runs. */
  get leased(): number {
    return this.deps.members.leased;
  }

  /** Browsers reserved by pools (of one project when given): the sum of their sizes, whatever is running right now. */
  reserved(projectId?: string): number {
    let n = 0;
    for (const pool of this.pools.values()) if (projectId === undefined || pool.row.project_id === projectId) n += pool.row.config.size;
    if (projectId !== undefined) return n + (this.admitted.get(projectId) ?? 0);
    for (const extra of this.admitted.values()) n += extra;
    return n;
  }

  /** Every pool of every project, as they are now (read at a metrics scrape). */
  livePools(): IterableIterator<LivePool> {
    return this.pools.values();
  }

  ref(poolId: string): BrowserPoolRef {
    const name = this.pools.has(poolId) ? this.pools.get(poolId)!.row.name : this.deps.members.poolName(poolId);
    return name ? { id: poolId, name } : { id: poolId };
  }

  /**
   * By id, else by name, within the project. From memory: this process holds every pool it serves (the
   * leader of a cluster all of them), so an acquire or a release reads nothing from the database to find it.
   */
  async find(projectId: string | null, idOrName: string): Promise<LivePool> {
    const pool = this.pools.get((await lookUpInProject(this.held, projectId, idOrName, 'browser pool')).id);
    if (!pool) throw notFound('browser pool', idOrName);
    return pool;
  }

  private readonly held = {
    get: async (id: string) => this.pools.get(id)?.row,
    getByName: async (projectId: string | null, name: string) => {
      for (const pool of this.pools.values()) if (pool.row.name === name && (pool.row.project_id ?? null) === projectId) return pool.row;
      return undefined;
    },
  };

  async list(q: Parameters<PoolsRepo['list']>[0]): Promise<{ pools: LivePool[]; hasMore: boolean }> {
    const page = await this.deps.repo.list(q);
    return { pools: page.rows.map((row) => this.pools.get(row.id)).filter((p) => p !== undefined), hasMore: page.hasMore };
  }

  /** `input` names where the settings came from (`body`), for the fields of 400s. */
  async create(projectId: string | null, body: PoolSettings, input: string): Promise<LivePool> {
    const config: StoredPoolConfig = {
      size: body.size,
      headless: body.headless ?? true,
      stealth: body.stealth ?? false,
      kiosk_mode: body.kiosk_mode ?? false,
      ...(body.viewport ? { viewport: body.viewport } : {}),
      ...(body.start_url ? { start_url: body.start_url } : {}),
      timeout_seconds: body.timeout_seconds ?? DEFAULT_POOL_TIMEOUT_SECONDS,
      fill_rate_per_minute: body.fill_rate_per_minute ?? DEFAULT_FILL_RATE,
      ...(body.telemetry ? { telemetry: body.telemetry } : {}),
      ...(body.proxy_id ? { proxy_id: body.proxy_id } : {}),
      ...(body.network ? { network: body.network } : {}),
      ...(effectivePolicy(body.chrome_policy) ? { chrome_policy: body.chrome_policy } : {}),
    };
    await applyPoolResources(config, body, projectId, this.deps, input);
    await this.checkConfig(config, projectId, input);
    const row: PoolRow = { id: newId(), project_id: projectId, name: body.name ?? null, config, created_at: this.deps.now().toISOString() };
    return this.usingProxy(projectId, config.proxy_id, input, () =>
      this.admitWhileWriting(config.size, projectId, row, () => this.deps.repo.insert(row), () => this.add(row)),
    );
  }

  async update(pool: LivePool, body: PoolUpdate, input: string): Promise<LivePool> {
    const { discard_all_idle: discard, name, profile, extensions, refresh_on_profile_update, ...changes } = body;
    const old = pool.row;
    const config: StoredPoolConfig = { ...old.config };
    for (const [key, value] of Object.entries(changes)) {
      if (value !== undefined) (config as unknown as Record<string, unknown>)[key] = value;
    }
    // As on the hosted API: "" clears the start URL, and is a no-op for the name (it cannot be cleared).
    if (config.start_url === '') delete config.start_url;
    // null clears the pool's telemetry: browsers launched from now on capture nothing.
    if (changes.telemetry === null) delete config.telemetry;
    if (config.proxy_id === '') delete config.proxy_id;
    if (config.network && !config.network.private_hosts?.length) delete config.network;
    // `{}` clears the pool's policies: browsers launched from now on run without.
    if (!effectivePolicy(config.chrome_policy)) delete config.chrome_policy;
    await applyPoolResources(config, { profile, extensions, refresh_on_profile_update }, old.project_id, this.deps, input);
    await this.checkConfig(config, old.project_id, input);
    const row: PoolRow = { ...old, name: name ? name : old.name, config };
    const newProxy = config.proxy_id !== old.config.proxy_id ? config.proxy_id : undefined;
    const reconfigured = await this.usingProxy(old.project_id, newProxy, input, () =>
      this.admitWhileWriting(config.size - old.config.size, old.project_id, row,
        () => this.deps.repo.update(row.id, row.name, config), () => pool.reconfigure(row, discard ?? false)));
    await reconfigured;
    return pool;
  }

  /** Refused while browsers are leased unless `force`, which ends them too. */
  async delete(pool: LivePool, force: boolean): Promise<void> {
    const leased = pool.acquiredCount;
    if (leased > 0 && !force) {
      throw conflict(
        `browser pool '${pool.row.name ?? pool.id}' has ${leased} acquired browser${leased === 1 ? '' : 's'}; release ${leased === 1 ? 'it' : 'them'} or delete with force: true`,
      );
    }
    this.pools.delete(pool.id);
    await this.deps.repo.remove(pool.id);
    await pool.destroy();
  }

  private add(row: PoolRow, fill = true): LivePool {
    const { browsers, log, members, sessions } = this.deps;
    const place = this.deps.place ?? (() => members);
    const pool = new LivePool(row, { browsers, log, place, closing: () => sessions.isClosing });
    this.pools.set(row.id, pool);
    if (fill) pool.fill();
    return pool;
  }

  /**
   * Admits `extra` more reserved browsers, writes the row, then `apply`s it to the live pools. The admitted
   * browsers count as reserved from the check (no await between the check and the count) until `apply` has
   * put them in a pool's size, so concurrent requests cannot overshoot while the write is in flight.
   */
  private async admitWhileWriting<T>(extra: number, projectId: string | null, row: PoolRow, write: () => Promise<void>, apply: () => T): Promise<T> {
    // The caps are read first; the check and the count follow with no await between.
    const caps = this.limit && extra > 0 ? await this.limit.caps(projectId) : undefined;
    if (caps) this.limit!.admitReservation(caps, extra, projectId);
    const counted = Math.max(extra, 0);
    const key = projectId ?? '';
    this.admitted.set(key, (this.admitted.get(key) ?? 0) + counted);
    try {
      await write();
      return apply();
    } catch (err) {
      if (err instanceof UniqueViolation) {
        throw conflict(`a browser pool named '${row.name}' already exists in this project`);
      }
      throw err;
    } finally {
      const left = (this.admitted.get(key) ?? 0) - counted;
      if (left > 0) this.admitted.set(key, left);
      else this.admitted.delete(key);
    }
  }

  /** Runs `write` (which makes a pool use `proxyId`) so that no delete of the proxy interleaves (ProxyService.recordUse). */
  private usingProxy<T>(projectId: string | null, proxyId: string | undefined, input: string, write: () => Promise<T>): Promise<T> {
    const { proxies } = this.deps;
    return proxies && proxyId ? proxies.recordUse(projectId, proxyId, `${input}.proxy_id`, write) : write();
  }

  private async checkConfig(config: StoredPoolConfig, projectId: string | null, input: string): Promise<void> {
    checkNetwork(config.network, input);
    admitChromePolicy(this.deps.chromePolicy, config.chrome_policy, `${input}.chrome_policy`);
    this.deps.telemetry.validate(config.telemetry, `${input}.telemetry`);
    // A custom proxy of the project, or a 400 naming proxy_id (hosted-only types cannot route here).
    if (config.proxy_id) await this.deps.proxies?.poolRoute(projectId, config.proxy_id, `${input}.proxy_id`);
    if (!config.headless && !this.deps.headful.available) {
      throw new DomainError('invalid', 'headful_unavailable', `headful browsers are not available: ${this.deps.headful.reason}; use headless: true`);
    }
  }
}

export function presentPool(pool: LivePool): BrowserPool {
  const { row } = pool;
  const { profile_id, extension_ids, ...stored } = row.config;
  const config: BrowserPoolConfig = { ...stored, ...(row.name ? { name: row.name } : {}) };
  return {
    id: row.id,
    ...(row.name ? { name: row.name } : {}),
    acquired_count: pool.acquiredCount,
    available_count: pool.availableCount,
    browser_pool_config: config,
    created_at: row.created_at,
    extension_ids: extension_ids ?? [],
    ...(profile_id ? { profile_id } : {}),
  };
}
