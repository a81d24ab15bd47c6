// Auth connections: a project's profile kept logged in to a domain. This holds their records (the profile
// created when missing, the proxy and credential checked), starts login flows (flows.ts) and answers for
// them. A connection is addressed by id within its project.
import type { ConnectionCreateParams, ConnectionCredential, ConnectionUpdateParams, LoginParams, ManagedAuth, TimelineEvent } from '../../../api/schemas/auth-connections.js';
import { newId } from '../../ids.js';
import type { AuthConnectionsRepo, ConnectionListQuery, ConnectionRow, ConnectionSettings } from '../../store/auth-connections-repo.js';
import type { CredentialProviders, CredentialStore } from '../credentials/index.js';
import { DomainError, conflict, invalidField, notFound } from '../errors.js';
import { lookUpByIdInProject } from '../find-in-project.js';
import type { ProfileStore } from '../profiles/index.js';
import type { ProfileRow } from '../../store/profiles-repo.js';
import type { ProxyService } from '../proxy/index.js';
import { UniqueViolation } from '../../store/unique.js';

export interface AuthConnectionsDeps {
  repo: AuthConnectionsRepo;
  profiles: ProfileStore;
  proxies: ProxyService;
  credentials: CredentialStore;
  providers: CredentialProviders;
  now: () => Date;
}

const DEFAULT_HEALTH_CHECK_INTERVAL = 3600;

export class AuthConnections {
  constructor(private readonly deps: AuthConnectionsDeps) {
    // A proxy a connection uses cannot be deleted from under it (seed).
    deps.proxies.addReferrers(async (proxyId) => (await deps.repo.usingProxy(proxyId)).map((c) => `auth connection '${c.id}' (${c.domain})`));
    deps.profiles.addReferrers(async (profileId) => (await deps.repo.usingProfile(profileId)).map((c) => `auth connection '${c.id}' (${c.domain})`));
  }

  /** `input` names where the body came from (`body`), for the fields of 400s. */
  async create(projectId: string | null, body: ConnectionCreateParams, input: string): Promise<ConnectionRow> {
    const settings = { ...defaults(), ...(await this.settingsOf(projectId, body, input)) };
    const proxy = await this.proxyOf(projectId, body, input);
    const proxyId = proxy?.id;
    const profile = await this.profileNamed(projectId, body.profile_name);
    const at = this.deps.now().toISOString();
    const row: ConnectionRow = {
      id: newId(),
      project_id: projectId,
      domain: body.domain.toLowerCase(),
      profile_id: profile.id,
      profile_name: body.profile_name,
      proxy_id: proxyId ?? null,
      settings,
      status: 'NEEDS_AUTH',
      flow: null,
      last_auth_at: null,
      last_auth_check_at: null,
      post_login_url: null,
      created_at: at,
      updated_at: at,
    };
    try {
      await this.deps.proxies.recordUse(projectId, proxyId, proxy?.field ?? `${input}.proxy`, () => this.deps.repo.insert(row));
    } catch (err) {
      if (err instanceof UniqueViolation) {
        throw conflict(`an auth connection for '${row.domain}' with profile '${row.profile_name}' already exists in this project`);
      }
      throw err;
    }
    return row;
  }

  find(projectId: string | null, id: string): Promise<ConnectionRow> {
    return lookUpByIdInProject(this.deps.repo, projectId, id, 'auth connection');
  }

  get(id: string): Promise<ConnectionRow | undefined> {
    return this.deps.repo.get(id);
  }

  /** The body's changes over the connection as stored when written, so a flow's or check's writes meanwhile stay. */
  async update(row: ConnectionRow, body: ConnectionUpdateParams, input: string): Promise<ConnectionRow> {
    const settings = await this.settingsOf(row.project_id, body, input);
    const proxy = await this.proxyOf(row.project_id, body, input);
    const next = await this.deps.proxies.recordUse(row.project_id, proxy?.id, proxy?.field ?? `${input}.proxy`, () =>
      this.modify(row.id, (current) => ({
        ...current,
        settings: { ...current.settings, ...settings },
        ...(proxy !== undefined ? { proxy_id: proxy.id } : {}),
      })),
    );
    if (!next) throw notFound('auth connection', row.id);
    return next;
  }

  /** What a login request sets for its own flow: its proxy (checked), recording and telemetry. */
  async loginOverrides(
    row: ConnectionRow,
    body: LoginParams,
    input: string,
  ): Promise<{ proxy_id?: string | null; record_session?: boolean; browser_telemetry?: ConnectionSettings['browser_telemetry'] }> {
    const proxyId = body.proxy !== undefined ? (await this.proxyOf(row.project_id, { proxy: body.proxy }, input))?.id : undefined;
    return {
      ...(proxyId !== undefined ? { proxy_id: proxyId } : {}),
      ...(body.record_session !== undefined ? { record_session: body.record_session } : {}),
      ...(body.browser_telemetry !== undefined ? { browser_telemetry: body.browser_telemetry } : {}),
    };
  }

  /**
   * Changes a connection's state as it is stored now (flows, health checks and PATCH call this): `change`
   * sees the current row, in one transaction with it. Undefined from `change`, or no such connection: no
   * write, undefined back.
   */
  modify(id: string, change: (current: ConnectionRow) => ConnectionRow | undefined): Promise<ConnectionRow | undefined> {
    return this.deps.repo.modify(id, (current) => {
      const next = change(current);
      return next && { ...next, updated_at: this.deps.now().toISOString() };
    });
  }

  async remove(row: ConnectionRow): Promise<void> {
    await this.deps.repo.remove(row.id);
  }

  list(q: ConnectionListQuery): Promise<{ rows: ConnectionRow[]; hasMore: boolean }> {
    return this.deps.repo.list(q);
  }

  all(): Promise<ConnectionRow[]> {
    return this.deps.repo.all();
  }

  addTimeline(connectionId: string, event: TimelineEvent): Promise<void> {
    return this.deps.repo.addTimeline(connectionId, event);
  }

  setTimeline(event: TimelineEvent): Promise<void> {
    return this.deps.repo.setTimeline(event);
  }

  timeline(row: ConnectionRow, q: { type?: string; offset: number; limit: number }): Promise<{ rows: TimelineEvent[]; hasMore: boolean }> {
    return this.deps.repo.timeline(row.id, q);
  }

  /** Whether a re-login could run without a person, and why (the SDK's reasons). */
  reauthability(row: ConnectionRow): Pick<ManagedAuth, 'can_reauth' | 'can_reauth_reason'> {
    const cred = row.settings.credential;
    if (!cred) return { can_reauth: false, can_reauth_reason: 'no_credential' };
    if (cred.provider) return { can_reauth: true, can_reauth_reason: 'external_credential' };
    if (!row.last_auth_at) return { can_reauth: false, can_reauth_reason: 'no_prior_successful_login' };
    return { can_reauth: true, can_reauth_reason: 'has_credential' };
  }

  present(row: ConnectionRow, hostedUrl: (row: ConnectionRow) => string | null): ManagedAuth {
    const s = row.settings;
    const flow = row.flow;
    const out: ManagedAuth = {
      id: row.id,
      domain: row.domain,
      profile_name: row.profile_name,
      status: row.status,
      record_session: s.record_session,
      save_credentials: s.save_credentials,
      allowed_domains: s.allowed_domains,
      auto_reauth: s.auto_reauth,
      health_checks: s.health_checks,
      health_check_interval: s.health_check_interval,
      browser_telemetry: s.browser_telemetry,
      browser_session_id: flow?.browser_session_id ?? null,
      ...this.reauthability(row),
      flow_status: flow?.status ?? null,
      flow_step: flow?.step ?? null,
      flow_type: flow?.type ?? null,
      flow_expires_at: flow?.expires_at ?? null,
      discovered_fields: flow?.discovered_fields ?? null,
      fields: flow?.fields ?? null,
      choices: flow?.choices ?? null,
      mfa_options: flow?.mfa_options ?? null,
      pending_sso_buttons: flow?.pending_sso_buttons ?? null,
      sign_in_options: null,
      website_error: flow?.website_error ?? null,
      error_code: flow?.error_code ?? null,
      error_message: flow?.error_message ?? null,
      hosted_url: hostedUrl(row),
      live_view_url: null,
      created_at: row.created_at,
    };
    if (s.login_url) out.login_url = s.login_url;
    if (s.credential) out.credential = s.credential;
    if (s.browser) out.browser = s.browser;
    if (row.proxy_id) out.proxy_id = row.proxy_id;
    if (row.post_login_url) out.post_login_url = row.post_login_url;
    if (row.last_auth_at) out.last_auth_at = row.last_auth_at;
    if (row.last_auth_check_at) out.last_auth_check_at = row.last_auth_check_at;
    return out;
  }

  /** The settings `body` changes, each field checked. */
  private async settingsOf(projectId: string | null, body: ConnectionUpdateParams, input: string): Promise<Partial<ConnectionSettings>> {
    const next: Partial<ConnectionSettings> = {};
    if (body.login_url !== undefined) next.login_url = checkedUrl(body.login_url, `${input}.login_url`);
    if (body.allowed_domains !== undefined) next.allowed_domains = body.allowed_domains.map((d) => d.toLowerCase());
    if (body.credential !== undefined) next.credential = await this.checkedCredential(projectId, body.credential, `${input}.credential`);
    if (body.browser !== undefined) next.browser = body.browser;
    if (body.browser_telemetry !== undefined) next.browser_telemetry = body.browser_telemetry;
    for (const key of ['auto_reauth', 'health_checks', 'save_credentials', 'record_session'] as const) {
      if (body[key] !== undefined) next[key] = body[key];
    }
    if (body.health_check_interval !== undefined) next.health_check_interval = body.health_check_interval;
    return next;
  }

  /**
   * The proxy a body names (`browser.proxy`, `proxy` or the deprecated `proxy_id`), checked, with the field
   * that named it; undefined: unchanged; id null: none.
   */
  private async proxyOf(projectId: string | null, body: ConnectionUpdateParams, input: string): Promise<{ id: string | null; field: string } | undefined> {
    const fields = [
      body.browser?.proxy !== undefined && (['browser.proxy', body.browser.proxy] as const),
      body.proxy !== undefined && (['proxy', body.proxy] as const),
      body.proxy_id !== undefined && (['proxy_id', { id: body.proxy_id } as { id?: string; name?: string }] as const),
    ].filter((f) => f !== false);
    if (fields.length > 1) throw invalidField(`${input}.${fields[1]![0]}`, `cannot be combined with ${fields[0]![0]}; name the proxy once`);
    if (!fields.length) return undefined;
    const [field, ref] = fields[0]!;
    const named = `${input}.${field === 'proxy_id' ? 'proxy' : field}`;
    if (ref.id === undefined && ref.name === undefined) return { id: null, field: named };
    const selection = await this.deps.proxies.select(projectId, { proxy: ref }, named);
    return { id: selection?.link.proxy_id ?? null, field: named };
  }

  private async checkedCredential(projectId: string | null, cred: ConnectionCredential, field: string): Promise<ConnectionCredential | null> {
    const given = Object.keys(cred).filter((k) => cred[k as keyof ConnectionCredential] !== undefined);
    if (!given.length) return null;
    if (cred.name !== undefined) {
      if (given.length > 1) throw invalidField(field, 'takes either name, or provider with path or auto');
      await this.deps.credentials.find(projectId, cred.name);
      return { name: cred.name };
    }
    if (cred.provider === undefined) throw invalidField(field, 'needs name, or provider with path or auto');
    if ((cred.path === undefined) === (cred.auto !== true)) throw invalidField(field, 'with a provider takes exactly one of path and auto: true');
    await this.deps.providers.find(cred.provider);
    return cred.path !== undefined ? { provider: cred.provider, path: cred.path } : { provider: cred.provider, auto: true };
  }

  /** The project's profile of that name, created when there is none. */
  private async profileNamed(projectId: string | null, name: string): Promise<ProfileRow> {
    const existing = await this.deps.profiles.find(projectId, name).catch(() => undefined);
    if (existing) return existing;
    try {
      return await this.deps.profiles.create(projectId, name);
    } catch (err) {
      // A concurrent create made it between the look-up and ours: that one is the profile.
      if (err instanceof DomainError && err.kind === 'conflict') return this.deps.profiles.find(projectId, name);
      throw err;
    }
  }
}

function defaults(): ConnectionSettings {
  return {
    login_url: null,
    allowed_domains: [],
    credential: null,
    browser: null,
    browser_telemetry: null,
    auto_reauth: false,
    health_checks: true,
    health_check_interval: DEFAULT_HEALTH_CHECK_INTERVAL,
    save_credentials: true,
    record_session: false,
  };
}

function checkedUrl(url: string, field: string): string {
  try {
    return new URL(url).toString();
  } catch {
    throw invalidField(field, 'is not a valid URL');
  }
}
