// Proxies of a project: stored configurations, their health checks, and what a browser's `proxy`,
// `proxy_id` or a pool's `proxy_id` resolves to. Only custom proxies carry traffic here (through the
// session's forwarder, forwarder.ts); the hosted-only types are stored and listed but refused for
// browsers with 400 proxy_unavailable. A password is sealed before it is stored and opened only to build a
// session's route or to run a check.
import type { BrowserProxy, BrowserProxyConfig, Proxy, ProxyCreateParams } from '../../../api/types.js';
import { DomainError, invalidField, notFound } from '../errors.js';
import { newId } from '../../ids.js';
import type { SecretsBox } from '../../secrets-box.js';
import type { BrowserProxyLink, ProxiesRepo, ProxyListQuery, ProxyRow } from '../../store/proxies-repo.js';
import { checkProxy } from './check.js';
import { checkProxyConfig, hostedOnlyReason } from './config.js';
import type { ProxyForwarder } from './forwarder.js';
import type { Upstream } from './upstream.js';

/** Where a check goes when the body names no URL: a stable, well-known page. */
export const DEFAULT_CHECK_URL = 'https://example.com/';
const CHECK_TIMEOUT_MS = 15_000;

/**
 * Something that still needs a proxy, so deleting it would break that: answers a description of each
 * referrer of `proxyId` ("browser pool 'x'"). Live auth connections (not built yet) register here; sessions
 * deliberately do not: as on the hosted API they keep their route when the proxy is deleted.
 */
export type ProxyReferrers = (proxyId: string) => string[] | Promise<string[]>;

/** A browser's egress as asked for: what to record and, for a proxy, the route its browser is launched with. */
export interface ProxySelection {
  link: BrowserProxyLink;
  upstream: Upstream | null;
}

export interface ProxyServiceOptions {
  repo: ProxiesRepo;
  secrets: SecretsBox;
  now: () => Date;
  /** The check's target when the body has no `url` (tests point it at a local site). */
  checkUrl?: string;
}

/** What a session object shows of its egress. */
export interface BrowserProxyFields {
  proxy?: BrowserProxy;
  proxy_id?: string;
}

export class ProxyService {
  private readonly referrers: ProxyReferrers[] = [];
  /** Per proxy id, the tail of the deletes and recorded uses waiting their turn (see `exclusive`). */
  private readonly turns = new Map<string, Promise<void>>();

  constructor(private readonly opts: ProxyServiceOptions) {}

  addReferrers(referrers: ProxyReferrers): void {
    this.referrers.push(referrers);
  }

  /** `input` names where the body came from (`body`), for the fields of 400s; so in the methods below. */
  async create(projectId: string | null, body: ProxyCreateParams, input: string): Promise<ProxyRow> {
    const { config, password } = checkProxyConfig(body, input);
    const id = newId();
    const custom = body.type === 'custom';
    const row: ProxyRow = {
      id,
      project_id: projectId,
      name: body.name?.trim() || null,
      type: body.type,
      // The hosted default for custom proxies; the hosted-only types never connect from here anyway.
      protocol: body.protocol ?? 'https',
      bypass_hosts: body.bypass_hosts ?? [],
      config,
      password_sealed: password !== undefined ? this.opts.secrets.seal(password, passwordContext(id)) : null,
      // A custom proxy's health is unknown until checked; a hosted-only one can never be used here.
      status: custom ? null : 'unavailable',
      status_detail: custom ? null : hostedOnlyReason(body.type),
      ip_address: null,
      last_checked: null,
      created_at: this.opts.now().toISOString(),
      deleted_at: null,
    };
    await this.opts.repo.insert(row);
    return row;
  }

  /** An active proxy of the project, else 404. */
  async get(projectId: string | null, id: string): Promise<ProxyRow> {
    const row = await this.opts.repo.get(id);
    if (!row || row.deleted_at || row.project_id !== projectId) throw notFound('proxy', id);
    return row;
  }

  list(q: ProxyListQuery): Promise<{ rows: ProxyRow[]; hasMore: boolean }> {
    return this.opts.repo.list(q);
  }

  async rename(projectId: string | null, id: string, name: string, input: string): Promise<ProxyRow> {
    const row = await this.get(projectId, id);
    const trimmed = name.trim();
    if (!trimmed) throw invalidField(`${input}.name`, 'must not be empty');
    await this.opts.repo.rename(row.id, trimmed);
    return { ...row, name: trimmed };
  }

  /**
   * Soft delete; refused with 400 resource_in_use while something still needs the proxy. Takes the proxy's
   * turn (as `recordUse` does), so a use being written cannot slip in between the check and the delete.
   */
  async delete(projectId: string | null, id: string): Promise<void> {
    const row = await this.get(projectId, id);
    await this.exclusive(row.id, async () => {
      const users = (await Promise.all(this.referrers.map((referrers) => referrers(row.id)))).flat();
      if (users.length) {
        throw new DomainError('invalid', 'resource_in_use', `proxy '${id}' is still used by ${users.join(', ')}; stop using it there first`);
      }
      await this.opts.repo.softDelete(row.id, this.opts.now());
    });
  }

  /**
   * Runs `write`, which stores a lasting use of the proxy (a site config, an auth connection, a pool), in
   * the proxy's turn and after checking it is still a usable proxy of the project (a 400 naming `field`
   * otherwise): a delete either sees the use or runs first and the use is refused.
   */
  async recordUse<T>(projectId: string | null, proxyId: string | null | undefined, field: string, write: () => Promise<T>): Promise<T> {
    if (!proxyId) return write();
    return this.exclusive(proxyId, async () => {
      await this.poolRoute(projectId, proxyId, field);
      return write();
    });
  }

  /**
   * Runs a check. Without `url` the result is stored (status, last_checked, ip_address); with one it is only
   * reported, since a failure may be the target's rather than the proxy's (as on the hosted API).
   */
  async check(projectId: string | null, id: string, url: string | undefined, input: string): Promise<ProxyRow> {
    const row = await this.get(projectId, id);
    const at = this.opts.now().toISOString();
    let result: Pick<ProxyRow, 'status' | 'status_detail' | 'ip_address' | 'last_checked'>;
    if (row.type !== 'custom') {
      result = { status: 'unavailable', status_detail: hostedOnlyReason(row.type), ip_address: null, last_checked: at };
    } else {
      let target: URL;
      try {
        target = new URL(url ?? this.opts.checkUrl ?? DEFAULT_CHECK_URL);
      } catch {
        throw invalidField(`${input}.url`, 'is not a valid URL');
      }
      const outcome = await checkProxy(this.upstreamOf(row), target, CHECK_TIMEOUT_MS);
      result = {
        status: outcome.ok ? 'available' : 'unavailable',
        status_detail: outcome.detail,
        ip_address: outcome.ipAddress ?? row.ip_address,
        last_checked: at,
      };
    }
    if (url === undefined) await this.opts.repo.setCheck(row.id, result);
    return { ...row, ...result };
  }

  /**
   * Resolves a create body's `proxy` / `proxy_id` (undefined when it has neither). Throws 400s naming the
   * field: both given, not exactly one of mode/id/name, no such proxy, an ambiguous name, a hosted-only type.
   */
  async select(projectId: string | null, body: { proxy?: BrowserProxyConfig; proxy_id?: string | null }, input: string): Promise<ProxySelection | undefined> {
    const { proxy, proxy_id: proxyId } = body;
    if (proxy !== undefined && proxyId !== undefined && proxyId !== null) {
      throw invalidField(`${input}.proxy`, 'cannot be combined with proxy_id (deprecated); use proxy alone');
    }
    if (proxy !== undefined) {
      const given = (['mode', 'id', 'name'] as const).filter((k) => proxy[k] !== undefined);
      if (given.length !== 1) throw invalidField(`${input}.proxy`, `takes exactly one of mode, id, name (got ${given.length ? given.join(', ') : 'none'})`);
      if (proxy.mode) return { link: { proxy_id: null, mode: proxy.mode }, upstream: null };
      const row = proxy.id !== undefined ? await this.byId(projectId, proxy.id, `${input}.proxy.id`) : await this.byName(projectId, proxy.name!, `${input}.proxy.name`);
      return this.selectionOf(row, proxy.id !== undefined ? `${input}.proxy.id` : `${input}.proxy.name`);
    }
    // `""` means no proxy, as on update.
    if (proxyId) return this.selectionOf(await this.byId(projectId, proxyId, `${input}.proxy_id`), `${input}.proxy_id`);
    return undefined;
  }

  /**
   * Checks a PATCH body's `proxy` / `proxy_id` / `disable_default_proxy` and returns what applies it (after
   * the rest of the update passed), or undefined when it changes nothing. The session's egress proxy
   * (its forwarder) switches upstream in place, whether or not it was launched with one.
   */
  async prepareUpdate(
    projectId: string | null,
    browserId: string,
    forwarder: ProxyForwarder | undefined,
    body: { proxy?: BrowserProxyConfig; proxy_id?: string | null; disable_default_proxy?: boolean },
    input: string,
  ): Promise<(() => Promise<void>) | undefined> {
    if (body.proxy !== undefined && body.disable_default_proxy !== undefined) {
      throw invalidField(`${input}.proxy`, 'cannot be combined with disable_default_proxy (deprecated)');
    }
    // disable_default_proxy alone changes nothing: there is no default proxy here.
    let selection: ProxySelection | undefined;
    if (body.proxy === undefined && body.proxy_id === '') selection = { link: { proxy_id: null, mode: null }, upstream: null };
    else selection = await this.select(projectId, body, input);
    if (!selection) return undefined;
    if (selection.upstream && !forwarder) {
      const field = `${input}.${body.proxy !== undefined ? 'proxy' : 'proxy_id'}`;
      throw invalidField(field, 'this session is not running');
    }
    const chosen = selection;
    return async () => {
      forwarder?.use(chosen.upstream);
      await this.linkBrowser(browserId, chosen.link);
    };
  }

  /** The route of a pool's proxy (checked when the pool is created or changed, resolved at each launch). */
  async poolRoute(projectId: string | null, proxyId: string, field: string): Promise<Upstream> {
    return this.selectionOf(await this.byId(projectId, proxyId, field), field).upstream!;
  }

  linkBrowser(browserId: string, link: BrowserProxyLink): Promise<void> {
    return this.opts.repo.linkBrowser(browserId, link);
  }

  /** The `proxy` and deprecated `proxy_id` fields of a session, when it was given either. */
  async presentFor(browserId: string): Promise<BrowserProxyFields> {
    return (await this.presentForEach([browserId])).get(browserId) ?? {};
  }

  /** The proxy fields of each of these sessions that has a proxy or mode, in one query. */
  async presentForEach(browserIds: readonly string[]): Promise<Map<string, BrowserProxyFields>> {
    const fields = new Map<string, BrowserProxyFields>();
    for (const [browserId, link] of await this.opts.repo.browserLinks(browserIds)) {
      if (link.proxy_id) {
        fields.set(browserId, { proxy: { id: link.proxy_id, ...(link.proxy_name ? { name: link.proxy_name } : {}) }, proxy_id: link.proxy_id });
      } else if (link.mode) fields.set(browserId, { proxy: { mode: link.mode } });
    }
    return fields;
  }

  private async byId(projectId: string | null, id: string, field: string): Promise<ProxyRow> {
    const row = await this.opts.repo.get(id);
    if (!row || row.deleted_at || row.project_id !== projectId) throw invalidField(field, `no proxy '${id}' in this project`);
    return row;
  }

  private async byName(projectId: string | null, name: string, field: string): Promise<ProxyRow> {
    const rows = await this.opts.repo.activeByName(projectId, name);
    if (rows.length === 0) throw invalidField(field, `no proxy named '${name}' in this project`);
    if (rows.length > 1) throw invalidField(field, `several proxies are named '${name}' (names are not unique); select it by id`);
    return rows[0]!;
  }

  /**
   * Runs `work` once every earlier delete or recorded use of the same proxy has finished. In-process: the
   * referrers a delete asks include live pools, which only this process knows.
   */
  private async exclusive<T>(proxyId: string, work: () => Promise<T>): Promise<T> {
    const before = this.turns.get(proxyId) ?? Promise.resolve();
    let done!: () => void;
    const released = new Promise<void>((resolve) => (done = resolve));
    const mine = before.then(() => released);
    this.turns.set(proxyId, mine);
    await before;
    try {
      return await work();
    } finally {
      done();
      if (this.turns.get(proxyId) === mine) this.turns.delete(proxyId);
    }
  }

  private selectionOf(row: ProxyRow, field: string): ProxySelection {
    if (row.type !== 'custom') {
      const message = `${field}: proxy '${row.id}' is a ${row.type} proxy. ${hostedOnlyReason(row.type)}`;
      throw new DomainError('invalid', 'proxy_unavailable', message, [{ code: 'invalid_input', field, message }]);
    }
    return { link: { proxy_id: row.id, mode: null }, upstream: this.upstreamOf(row) };
  }

  private upstreamOf(row: ProxyRow): Upstream {
    return {
      proxyId: row.id,
      protocol: row.protocol,
      host: row.config.host!,
      port: row.config.port!,
      ...(row.config.username !== undefined ? { username: row.config.username } : {}),
      ...(row.password_sealed ? { password: this.opts.secrets.open(row.password_sealed, passwordContext(row.id)) } : {}),
      bypass: row.bypass_hosts,
    };
  }
}

function passwordContext(proxyId: string): string {
  return `proxy:${proxyId}:password`;
}

/** The wire shape: the password only as `has_password`, never its value. */
export function presentProxy(row: ProxyRow): Proxy {
  const proxy: Proxy = {
    id: row.id,
    type: row.type,
    protocol: row.protocol,
    bypass_hosts: row.bypass_hosts,
    config: row.type === 'custom' ? { ...row.config, has_password: row.password_sealed !== null } : row.config,
  };
  if (row.name) proxy.name = row.name;
  if (row.ip_address) proxy.ip_address = row.ip_address;
  if (row.status) proxy.status = row.status;
  if (row.status_detail) proxy.status_detail = row.status_detail;
  if (row.last_checked) proxy.last_checked = row.last_checked;
  return proxy;
}
