// Site configs per project, and which one each browser was created with.
import type { Database, Queryable } from './database.js';
import { modifyRow } from './row-lock.js';
import { jsonText } from './json-text.js';
import { inList, likePattern, raw, sql } from './sql.js';

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

const COLUMNS = raw('id, project_id, domain, settings, created_at, updated_at');

export class SiteConfigsRepo {
  constructor(private readonly db: Database) {}

  /** Throws UniqueViolation when the project has a config for the domain. */
  async insert(row: SiteConfigRow): Promise<void> {
    await this.db.run(sql`INSERT INTO site_configs (${COLUMNS})
      VALUES (${row.id}, ${row.project_id}, ${row.domain}, ${JSON.stringify(row.settings)}, ${row.created_at}, ${row.updated_at})`);
  }

  /**
   * Reads the config and writes what `change` makes of it in one transaction, the row locked, so concurrent
   * updates of different settings both land. Undefined from `change` writes nothing. Throws UniqueViolation
   * when the new domain is taken.
   */
  async modify(id: string, change: (row: SiteConfigRow) => SiteConfigRow | undefined): Promise<SiteConfigRow | undefined> {
    return modifyRow(this.db, { read: sql`SELECT ${COLUMNS} FROM site_configs WHERE id = ${id}`, decode: fromStored, write: updateConfig }, change);
  }

  async get(id: string): Promise<SiteConfigRow | undefined> {
    const row = await this.db.get<Stored>(sql`SELECT ${COLUMNS} FROM site_configs WHERE id = ${id}`);
    return row && fromStored(row);
  }

  /** By domain pattern, exactly (for addressing a config by its domain). */
  async getByName(projectId: string | null, domain: string): Promise<SiteConfigRow | undefined> {
    const row = await this.db.get<Stored>(
      sql`SELECT ${COLUMNS} FROM site_configs WHERE coalesce(project_id, '') = ${projectId ?? ''} AND domain = ${domain.toLowerCase()}`,
    );
    return row && fromStored(row);
  }

  async ofProject(projectId: string | null): Promise<SiteConfigRow[]> {
    return (await this.db.all<Stored>(sql`SELECT ${COLUMNS} FROM site_configs WHERE coalesce(project_id, '') = ${projectId ?? ''} ORDER BY seq`)).map(
      fromStored,
    );
  }

  async usingProxy(proxyId: string): Promise<SiteConfigRow[]> {
    // The id is inside the JSON settings: their text narrows the rows, the exact field decides.
    const rows = await this.db.all<Stored>(sql`SELECT ${COLUMNS} FROM site_configs WHERE lower(settings) LIKE ${likePattern(jsonText(proxyId))} ESCAPE '\\' ORDER BY seq`);
    return rows.map(fromStored).filter((r) => r.settings.proxy_id === proxyId);
  }

  async remove(id: string): Promise<void> {
    await this.db.run(sql`DELETE FROM site_configs WHERE id = ${id}`);
  }

  /** One page of a project's configs, oldest first; a query matches ids exactly, domains and notes as substrings. */
  async list(q: { projectId: string | null; query?: string; offset: number; limit: number }): Promise<{ rows: SiteConfigRow[]; hasMore: boolean }> {
    const base = sql`SELECT ${COLUMNS} FROM site_configs WHERE coalesce(project_id, '') = ${q.projectId ?? ''}`;
    if (!q.query) {
      const rows = await this.db.all<Stored>(sql`${base} ORDER BY seq LIMIT ${q.limit + 1} OFFSET ${q.offset}`);
      return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
    }
    // Notes live inside the JSON settings: their text narrows the rows, the exact match and paging are here.
    const text = q.query;
    const rows = await this.db.all<Stored>(sql`${base} AND (id = ${text} OR lower(domain) LIKE ${likePattern(text)} ESCAPE '\\'
      OR lower(settings) LIKE ${likePattern(jsonText(text))} ESCAPE '\\') ORDER BY seq`);
    const needle = text.toLowerCase();
    const found = rows
      .map(fromStored)
      .filter((r) => r.id === text || r.domain.includes(needle) || (r.settings.notes ?? '').toLowerCase().includes(needle));
    const page = found.slice(q.offset, q.offset + q.limit + 1);
    return { rows: page.slice(0, q.limit), hasMore: page.length > q.limit };
  }

  async linkBrowser(browserId: string, siteConfigId: string): Promise<void> {
    await this.db.run(sql`INSERT INTO browser_site_configs (browser_id, site_config_id) VALUES (${browserId}, ${siteConfigId})
      ON CONFLICT (browser_id) DO UPDATE SET site_config_id = excluded.site_config_id`);
  }

  /** The site config each of these browsers was created with, for those that have one, in one query. */
  async browserLinks(browserIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.db.all<{ browser_id: string; site_config_id: string }>(
      sql`SELECT browser_id, site_config_id FROM browser_site_configs WHERE browser_id ${inList(browserIds)}`,
    );
    return new Map(rows.map((row) => [row.browser_id, row.site_config_id]));
  }
}

async function updateConfig(db: Queryable, row: SiteConfigRow): Promise<void> {
  await db.run(sql`UPDATE site_configs SET domain = ${row.domain}, settings = ${JSON.stringify(row.settings)}, updated_at = ${row.updated_at}
    WHERE id = ${row.id}`);
}

function fromStored(row: Stored): SiteConfigRow {
  return { ...row, settings: JSON.parse(row.settings) as SiteSettings };
}
