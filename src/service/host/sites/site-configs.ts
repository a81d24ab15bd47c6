// Site configs: what works against a site, kept per project and domain pattern, and applied as defaults to
// browsers created for that site (`start_url`) and to auth connections' browsers. Explicit fields always win.
import type { BrowserCreateParams } from '../../../api/types.js';
import type { SiteConfig, SiteConfigCreateParams, SiteConfigUpdateParams } from '../../../api/schemas/site-configs.js';
import { newId } from '../../ids.js';
import type { SiteConfigRow, SiteConfigsRepo, SiteSettings } from '../../store/site-configs-repo.js';
import { conflict } from '../errors.js';
import { findInProject } from '../find-in-project.js';
import type { ProxyService } from '../proxy/index.js';
import { UniqueViolation } from '../../store/unique.js';

export interface SiteConfigsDeps {
  repo: SiteConfigsRepo;
  proxies: ProxyService;
  now: () => Date;
}

export class SiteConfigs {
  constructor(private readonly deps: SiteConfigsDeps) {
    deps.proxies.addReferrers((proxyId) => deps.repo.usingProxy(proxyId).map((c) => `site config '${c.domain}'`));
  }

  create(projectId: string | null, body: SiteConfigCreateParams, input: string): SiteConfigRow {
    const at = this.deps.now().toISOString();
    const { domain, ...settings } = body;
    if (settings.proxy_id !== undefined) this.checkProxy(projectId, settings.proxy_id, `${input}.proxy_id`);
    const row: SiteConfigRow = { id: newId(), project_id: projectId, domain: domain.toLowerCase(), settings, created_at: at, updated_at: at };
    this.unique(row.domain, () => this.deps.repo.insert(row));
    return row;
  }

  /** By id, else by its exact domain pattern, within the project. */
  find(projectId: string | null, idOrDomain: string): SiteConfigRow {
    return findInProject(this.deps.repo, projectId, idOrDomain, 'site config');
  }

  update(row: SiteConfigRow, body: SiteConfigUpdateParams, input: string): SiteConfigRow {
    const settings: SiteSettings = { ...row.settings };
    for (const key of ['stealth', 'headless', 'proxy_id', 'notes'] as const) {
      const value = body[key];
      if (value === null) delete settings[key];
      else if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
    }
    if (typeof body.proxy_id === 'string') this.checkProxy(row.project_id, body.proxy_id, `${input}.proxy_id`);
    const next: SiteConfigRow = { ...row, domain: body.domain?.toLowerCase() ?? row.domain, settings, updated_at: this.deps.now().toISOString() };
    this.unique(next.domain, () => this.deps.repo.update(next));
    return next;
  }

  delete(row: SiteConfigRow): void {
    this.deps.repo.remove(row.id);
  }

  list(q: { projectId: string | null; query?: string; offset: number; limit: number }): { rows: SiteConfigRow[]; hasMore: boolean } {
    return this.deps.repo.list(q);
  }

  /** The config for a host: an exact domain first, then the most specific pattern that covers it. */
  match(projectId: string | null, host: string): SiteConfigRow | undefined {
    const h = host.toLowerCase().replace(/\.$/, '');
    let best: { row: SiteConfigRow; score: number } | undefined;
    for (const row of this.deps.repo.ofProject(projectId)) {
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
  matchUrl(projectId: string | null, url: string | undefined): SiteConfigRow | undefined {
    if (!url) return undefined;
    try {
      const { protocol, hostname } = new URL(url);
      return /^https?:$/.test(protocol) && hostname ? this.match(projectId, hostname.replace(/^\[|\]$/g, '')) : undefined;
    } catch {
      return undefined;
    }
  }

  /** A browser create body with a matching config's settings where the body says nothing, and which config it was. */
  applyToBrowser(projectId: string | null, body: BrowserCreateParams): { params: BrowserCreateParams; config?: SiteConfigRow } {
    const config = this.matchUrl(projectId, body.start_url);
    if (!config) return { params: body };
    const s = config.settings;
    const params = { ...body };
    if (params.stealth === undefined && s.stealth !== undefined) params.stealth = s.stealth;
    if (params.headless === undefined && s.headless !== undefined) params.headless = s.headless;
    if (params.proxy === undefined && params.proxy_id === undefined && s.proxy_id !== undefined) params.proxy = { id: s.proxy_id };
    return { params, config };
  }

  linkBrowser(browserId: string, config: SiteConfigRow): void {
    this.deps.repo.linkBrowser(browserId, config.id);
  }

  browserLink(browserId: string): string | undefined {
    return this.deps.repo.browserLink(browserId);
  }

  present(row: SiteConfigRow): SiteConfig {
    return { id: row.id, domain: row.domain, ...row.settings, created_at: row.created_at, updated_at: row.updated_at };
  }

  /** The proxy exists in the project and can carry traffic here. */
  private checkProxy(projectId: string | null, proxyId: string, field: string): void {
    this.deps.proxies.poolRoute(projectId, proxyId, field);
  }

  private unique(domain: string, write: () => void): void {
    try {
      write();
    } catch (err) {
      if (err instanceof UniqueViolation) throw conflict(`a site config for '${domain}' already exists in this project`);
      throw err;
    }
  }
}
