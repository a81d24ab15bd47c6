// Site configs: what works against a site, kept per project and domain pattern, and applied as defaults to
// browsers created for that site (`start_url`) and to auth connections' browsers. Explicit fields always win.
import type { BrowserCreateParams } from '../../../api/types.js';
import type { SiteConfig, SiteConfigCreateParams, SiteConfigUpdateParams } from '../../../api/schemas/site-configs.js';
import { newId } from '../../ids.js';
import type { SiteConfigRow, SiteConfigsRepo, SiteSettings } from '../../store/site-configs-repo.js';
import { conflict, notFound } from '../errors.js';
import { lookUpInProject } from '../find-in-project.js';
import type { ProxyService } from '../proxy/index.js';
import { UniqueViolation } from '../../store/unique.js';

export interface SiteConfigsDeps {
  repo: SiteConfigsRepo;
  proxies: ProxyService;
  now: () => Date;
}

export class SiteConfigs {
  constructor(private readonly deps: SiteConfigsDeps) {
    deps.proxies.addReferrers(async (proxyId) => (await deps.repo.usingProxy(proxyId)).map((c) => `site config '${c.domain}'`));
  }

  async create(projectId: string | null, body: SiteConfigCreateParams, input: string): Promise<SiteConfigRow> {
    const at = this.deps.now().toISOString();
    const { domain, ...settings } = body;
    const row: SiteConfigRow = { id: newId(), project_id: projectId, domain: domain.toLowerCase(), settings, created_at: at, updated_at: at };
    // The proxy exists in the project and can carry traffic here, and is not deleted while this is written.
    await this.deps.proxies.recordUse(projectId, settings.proxy_id, `${input}.proxy_id`, () => this.unique(row.domain, () => this.deps.repo.insert(row)));
    return row;
  }

  /** By id, else by its exact domain pattern, within the project. */
  find(projectId: string | null, idOrDomain: string): Promise<SiteConfigRow> {
    return lookUpInProject(this.deps.repo, projectId, idOrDomain, 'site config');
  }

  /** The body's changes over the stored config as it is when written, so concurrent updates of other settings stay. */
  async update(row: SiteConfigRow, body: SiteConfigUpdateParams, input: string): Promise<SiteConfigRow> {
    const updatedAt = this.deps.now().toISOString();
    const change = (current: SiteConfigRow): SiteConfigRow => {
      const settings: SiteSettings = { ...current.settings };
      for (const key of ['stealth', 'headless', 'proxy_id', 'notes'] as const) {
        const value = body[key];
        if (value === null) delete settings[key];
        else if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
      }
      return { ...current, domain: body.domain?.toLowerCase() ?? current.domain, settings, updated_at: updatedAt };
    };
    const domain = body.domain?.toLowerCase() ?? row.domain;
    const newProxy = typeof body.proxy_id === 'string' ? body.proxy_id : undefined;
    const next = await this.deps.proxies.recordUse(row.project_id, newProxy, `${input}.proxy_id`, () =>
      this.unique(domain, () => this.deps.repo.modify(row.id, change)),
    );
    if (!next) throw notFound('site config', row.id);
    return next;
  }

  async delete(row: SiteConfigRow): Promise<void> {
    await this.deps.repo.remove(row.id);
  }

  list(q: { projectId: string | null; query?: string; offset: number; limit: number }): Promise<{ rows: SiteConfigRow[]; hasMore: boolean }> {
    return this.deps.repo.list(q);
  }

  /** The config for a host: an exact domain first, then the most specific pattern that covers it. */
  async match(projectId: string | null, host: string): Promise<SiteConfigRow | undefined> {
    const h = host.toLowerCase().replace(/\.$/, '');
    let best: { row: SiteConfigRow; score: number } | undefined;
    for (const row of await this.deps.repo.ofProject(projectId)) {
      const wildcard = row.domain.startsWith('*.');
      const base = wildcard ? row.domain.slice(2) : row.domain;
      const covers = wildcard ? h.endsWith(`.${base}`) : h === base || h.endsWith(`.${base}`);
      if (!covers) continue;
      // Exact beats a parent domain, a longer domain beats a shorter one, and for a subdomain `*.d` (which
      // says subdomains) beats `d` (which says the domain and, by default, its subdomains).
      const score = (h === base ? 1_000_000 : 0) + base.length * 2 + (wildcard ? 1 : 0);
      if (!best || score > best.score) best = { row, score };
    }
    return best?.row;
  }

  /** The config for a URL's host, if the URL has one. */
  async matchUrl(projectId: string | null, url: string | undefined): Promise<SiteConfigRow | undefined> {
    if (!url) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    const { protocol, hostname } = parsed;
    return /^https?:$/.test(protocol) && hostname ? this.match(projectId, hostname.replace(/^\[|\]$/g, '')) : undefined;
  }

  /** A browser create body with a matching config's settings where the body says nothing, and which config it was. */
  async applyToBrowser(projectId: string | null, body: BrowserCreateParams): Promise<{ params: BrowserCreateParams; config?: SiteConfigRow }> {
    const config = await this.matchUrl(projectId, body.start_url);
    if (!config) return { params: body };
    const s = config.settings;
    const params = { ...body };
    if (params.stealth === undefined && s.stealth !== undefined) params.stealth = s.stealth;
    if (params.headless === undefined && s.headless !== undefined) params.headless = s.headless;
    if (params.proxy === undefined && params.proxy_id === undefined && s.proxy_id !== undefined) params.proxy = { id: s.proxy_id };
    return { params, config };
  }

  linkBrowser(browserId: string, config: SiteConfigRow): Promise<void> {
    return this.deps.repo.linkBrowser(browserId, config.id);
  }

  /** The site config each of these sessions was created with, for those that have one. */
  browserLinks(browserIds: readonly string[]): Promise<Map<string, string>> {
    return this.deps.repo.browserLinks(browserIds);
  }

  present(row: SiteConfigRow): SiteConfig {
    return { id: row.id, domain: row.domain, ...row.settings, created_at: row.created_at, updated_at: row.updated_at };
  }

  private async unique<T>(domain: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof UniqueViolation) throw conflict(`a site config for '${domain}' already exists in this project`);
      throw err;
    }
  }
}
