// The organisation's external credential providers: stored with their token sealed, tested, listed for
// their items, and asked for a login's values by path or by domain. Each provider type is one
// ProviderClient (onepassword.ts); the service never depends on which.
import type { CredentialProvider, CredentialProviderCreateParams, CredentialProviderTestResult, CredentialProviderUpdateParams } from '../../../api/types.js';
import { newId } from '../../ids.js';
import type { SecretsBox } from '../../secrets-box.js';
import type { CredentialProviderRow, CredentialProvidersRepo } from '../../store/credentials-repo.js';
import { DomainError, conflict, notFound } from '../errors.js';
import { UniqueViolation } from '../../store/unique.js';

export type ProviderType = CredentialProviderRow['provider_type'];

export interface ProviderVault {
  id: string;
  name: string;
}

export interface ProviderItem {
  id: string;
  /** `Vault/Item`: how a connection's `credential.path` names it. */
  path: string;
  title: string;
  vault_id: string;
  vault_name: string;
  urls?: string[];
}

/** What a login form is filled with, as a provider holds it. */
export interface ProviderLogin {
  values: Record<string, string>;
  /** A base32 secret or an otpauth URI, when the item has a one-time password. */
  totp: string | null;
}

/** One provider account, signed in. Every call gives up when `signal` aborts. */
export interface ProviderClient {
  vaults(signal: AbortSignal): Promise<ProviderVault[]>;
  items(signal: AbortSignal): Promise<ProviderItem[]>;
  login(item: ProviderItem, signal: AbortSignal): Promise<ProviderLogin>;
}

/** Signs in to a provider of `type` with its token. */
export type ProviderConnector = (type: ProviderType, token: string, signal: AbortSignal) => Promise<ProviderClient>;

export interface CredentialProvidersDeps {
  repo: CredentialProvidersRepo;
  secrets: SecretsBox;
  connect: ProviderConnector;
  now: () => Date;
  /** How long one call to a provider may take before it is given up (default 15 s). */
  timeoutMs?: number;
}

/** How a connection names its credential at a provider. */
export type ProviderReference = { provider: string; path: string } | { provider: string; auto: true };

const DEFAULT_TIMEOUT_MS = 15_000;

export class CredentialProviders {
  private readonly itemCache = new Map<string, { key: string; until: number; items: ProviderItem[] }>();

  constructor(private readonly deps: CredentialProvidersDeps) {}

  async create(body: CredentialProviderCreateParams): Promise<CredentialProviderRow> {
    const id = newId();
    const at = this.deps.now().toISOString();
    const row: CredentialProviderRow = {
      id,
      name: body.name,
      provider_type: body.provider_type,
      token_sealed: this.deps.secrets.seal(body.token, tokenContext(id)),
      enabled: true,
      priority: 0,
      cache_ttl_seconds: body.cache_ttl_seconds ?? 300,
      created_at: at,
      updated_at: at,
    };
    await this.unique(row.name, () => this.deps.repo.insert(row));
    return row;
  }

  /** By id, else by name (connections name providers either way); 404 otherwise. */
  async find(idOrName: string): Promise<CredentialProviderRow> {
    const row = (await this.deps.repo.get(idOrName)) ?? (await this.deps.repo.getByName(idOrName));
    if (!row) throw notFound('credential provider', idOrName);
    return row;
  }

  /** The body's fields over the provider as stored when written (one transaction), so concurrent updates of other fields stay. */
  async update(row: CredentialProviderRow, body: CredentialProviderUpdateParams): Promise<CredentialProviderRow> {
    const updatedAt = this.deps.now().toISOString();
    const tokenSealed = body.token !== undefined ? this.deps.secrets.seal(body.token, tokenContext(row.id)) : undefined;
    const change = (current: CredentialProviderRow): CredentialProviderRow => {
      const next: CredentialProviderRow = { ...current, updated_at: updatedAt };
      if (body.name !== undefined) next.name = body.name;
      if (tokenSealed !== undefined) next.token_sealed = tokenSealed;
      if (body.enabled !== undefined) next.enabled = body.enabled;
      if (body.priority !== undefined) next.priority = body.priority;
      if (body.cache_ttl_seconds !== undefined) next.cache_ttl_seconds = body.cache_ttl_seconds;
      return next;
    };
    const next = await this.unique(body.name ?? row.name, () => this.deps.repo.modify(row.id, change));
    this.itemCache.delete(row.id);
    if (!next) throw notFound('credential provider', row.id);
    return next;
  }

  async delete(row: CredentialProviderRow): Promise<void> {
    await this.deps.repo.remove(row.id);
    this.itemCache.delete(row.id);
  }

  list(q: { query?: string; offset: number; limit: number }): Promise<{ rows: CredentialProviderRow[]; hasMore: boolean }> {
    return this.deps.repo.list(q);
  }

  /** Signs in and lists the vaults the token can read. Never throws: a failure is `success: false` with its reason. */
  async test(row: CredentialProviderRow): Promise<CredentialProviderTestResult> {
    try {
      const vaults = await this.call(row, (client, signal) => client.vaults(signal));
      return { success: true, vaults };
    } catch (err) {
      return { success: false, vaults: [], error: (err as Error).message };
    }
  }

  /** The items the token can read, cached for the provider's `cache_ttl_seconds`. */
  async items(row: CredentialProviderRow): Promise<ProviderItem[]> {
    const cacheKey = row.updated_at;
    const cached = this.itemCache.get(row.id);
    const now = this.deps.now().getTime();
    if (cached && cached.key === cacheKey && cached.until > now) return cached.items;
    const items = await this.callOrFail(row, (client, signal) => client.items(signal));
    if (row.cache_ttl_seconds > 0) this.itemCache.set(row.id, { key: cacheKey, until: now + row.cache_ttl_seconds * 1000, items });
    return items;
  }

  /**
   * The login a reference names: the item at `path` of that provider, or with `auto` the first item (in
   * priority order of the enabled providers when `provider` is omitted) whose URLs match `domain`.
   */
  async resolve(ref: ProviderReference, domain: string): Promise<{ item: ProviderItem; login: ProviderLogin }> {
    const row = await this.find(ref.provider);
    if (!row.enabled) throw new DomainError('invalid', 'provider_disabled', `credential provider '${row.name}' is disabled`);
    const items = await this.items(row);
    const item = 'path' in ref ? items.find((i) => i.path === ref.path) : items.find((i) => matchesDomain(i.urls ?? [], domain));
    if (!item) {
      const what = 'path' in ref ? `no item at '${ref.path}'` : `no item whose website matches '${domain}'`;
      throw new DomainError('invalid', 'credential_not_found', `credential provider '${row.name}' has ${what}`);
    }
    return { item, login: await this.callOrFail(row, (client, signal) => client.login(item, signal)) };
  }

  present(row: CredentialProviderRow): CredentialProvider {
    const { token_sealed: _sealed, ...shown } = row;
    return shown;
  }

  /** Signs in and runs `op`, all within the timeout; the provider's own error message is kept. */
  private async call<T>(row: CredentialProviderRow, op: (client: ProviderClient, signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = this.deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    const token = this.deps.secrets.open(row.token_sealed, tokenContext(row.id));
    const work = (async () => op(await this.deps.connect(row.provider_type, token, signal), signal))();
    // A provider SDK that ignores the signal must not hold the request past the timeout either.
    const timedOut = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new Error(`${row.provider_type} did not answer within ${timeoutMs / 1000} s`)), { once: true }),
    );
    work.catch(() => undefined);
    return Promise.race([work, timedOut]);
  }

  private async callOrFail<T>(row: CredentialProviderRow, op: (client: ProviderClient, signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await this.call(row, op);
    } catch (err) {
      throw new DomainError('unavailable', 'provider_unavailable', `credential provider '${row.name}' failed: ${(err as Error).message}`);
    }
  }

  private async unique<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof UniqueViolation) throw conflict(`a credential provider named '${name}' already exists`);
      throw err;
    }
  }
}

/** Whether one of an item's website URLs is on `domain` or a subdomain of it. */
export function matchesDomain(urls: string[], domain: string): boolean {
  const want = domain.toLowerCase().replace(/^\*\./, '');
  return urls.some((url) => {
    let host: string;
    try {
      host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`).hostname.toLowerCase();
    } catch {
      return false;
    }
    return host === want || host.endsWith(`.${want}`) || want.endsWith(`.${host}`);
  });
}

const tokenContext = (id: string) => `credential_provider:${id}:token`;
