// Site configs per project, and which one each browser was created with.
import type { Db } from './sqlite/open.js';
import { unique } from './sqlite/database.js';
import { likePattern } from './sql.js';

export interface SiteSettings {
  stealth?: boolean;
  headless?: boolean;
  proxy_id?: string;
  notes?: string;
}

export interface SiteConfigRow {
  id: string;
  project_id: string | null;
  /** Lower case; `*.` in front for subdomains only. */
  domain: string;
  settings: SiteSettings;
  created_at: string;
  updated_at: string;
}

type Stored = Omit<SiteConfigRow, 'settings'> & { settings: string };

const COLUMNS = 'id, project_id, domain, settings, created_at, updated_at';

export class SiteConfigsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(`INSERT INTO site_configs (${COLUMNS}) VALUES (@id, @project_id, @domain, @settings, @created_at, @updated_at)`),
      update: db.prepare(`UPDATE site_configs SET domain = @domain, settings = @settings, updated_at = @updated_at WHERE id = @id`),
      byId: db.prepare<[string], Stored>(`SELECT ${COLUMNS} FROM site_configs WHERE id = ?`),
      byDomain: db.prepare<[string, string], Stored>(`SELECT ${COLUMNS} FROM site_configs WHERE ifnull(project_id, '') = ? AND domain = ?`),
      ofProject: db.prepare<[string], Stored>(`SELECT ${COLUMNS} FROM site_configs WHERE ifnull(project_id, '') = ?`),
      usingProxy: db.prepare<[string], Stored>(`SELECT ${COLUMNS} FROM site_configs WHERE json_extract(settings, '$.proxy_id') = ?`),
      remove: db.prepare(`DELETE FROM site_configs WHERE id = ?`),
      link: db.prepare(`INSERT OR REPLACE INTO browser_site_configs (browser_id, site_config_id) VALUES (?, ?)`),
      linkOf: db.prepare<[string], { site_config_id: string }>(`SELECT site_config_id FROM browser_site_configs WHERE browser_id = ?`),
    };
  }

  /** Throws UniqueViolation when the project has a config for the domain. */
  insert(row: SiteConfigRow): void {
    unique(() => this.stmts.insert.run(toStored(row)));
  }

  /** Throws UniqueViolation when the new domain is taken. */
  update(row: SiteConfigRow): void {
    unique(() => this.stmts.update.run(toStored(row)));
  }

  get(id: string): SiteConfigRow | undefined {
    const row = this.stmts.byId.get(id);
    return row && fromStored(row);
  }

  /** By domain pattern, exactly (for addressing a config by its domain). */
  getByName(projectId: string | null, domain: string): SiteConfigRow | undefined {
    const row = this.stmts.byDomain.get(projectId ?? '', domain.toLowerCase());
    return row && fromStored(row);
  }

  ofProject(projectId: string | null): SiteConfigRow[] {
    return this.stmts.ofProject.all(projectId ?? '').map(fromStored);
  }

  usingProxy(proxyId: string): SiteConfigRow[] {
    return this.stmts.usingProxy.all(proxyId).map(fromStored);
  }

  remove(id: string): void {
    this.stmts.remove.run(id);
  }

  list(q: { projectId: string | null; query?: string; offset: number; limit: number }): { rows: SiteConfigRow[]; hasMore: boolean } {
    const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
    let extra = '';
    if (q.query) {
      extra = `AND (id = @id OR domain LIKE @query ESCAPE '\\' OR lower(ifnull(json_extract(settings, '$.notes'), '')) LIKE @query ESCAPE '\\')`;
      params.id = q.query;
      params.query = likePattern(q.query);
    }
    const rows = this.db
      .prepare<Record<string, unknown>, Stored>(`SELECT ${COLUMNS} FROM site_configs WHERE ifnull(project_id, '') = @project ${extra} ORDER BY seq LIMIT @limit OFFSET @offset`)
      .all(params);
    return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
  }

  linkBrowser(browserId: string, siteConfigId: string): void {
    this.stmts.link.run(browserId, siteConfigId);
  }

  browserLink(browserId: string): string | undefined {
    return this.stmts.linkOf.get(browserId)?.site_config_id;
  }
}

function toStored(row: SiteConfigRow): Stored {
  return { ...row, settings: JSON.stringify(row.settings) };
}

function fromStored(row: Stored): SiteConfigRow {
  return { ...row, settings: JSON.parse(row.settings) as SiteSettings };
}
