// Proxy configurations per project, soft-deleted, and which proxy (or egress mode) each session was given.
// A custom proxy's password is stored sealed by the caller (secrets-box.ts); this never sees plaintext.
import type { BrowserProxyMode, ProxyConfig, ProxyProtocol, ProxyType } from '../../api/types.js';
import type { Database } from './database.js';
import { jsonText } from './json-text.js';
import { inList, join, likePattern, raw, sql } from './sql.js';

export interface ProxyRow {
  id: string;
  project_id: string | null;
  name: string | null;
  type: ProxyType;
  protocol: ProxyProtocol;
  bypass_hosts: string[];
  /** The public config (no password). */
  config: ProxyConfig;
  password_sealed: string | null;
  status: 'available' | 'unavailable' | null;
  status_detail: string | null;
  ip_address: string | null;
  last_checked: string | null;
  created_at: string;
  deleted_at: string | null;
}

type StoredRow = Omit<ProxyRow, 'bypass_hosts' | 'config'> & { bypass_hosts: string; config: string };

export interface ProxyListQuery {
  projectId: string | null;
  name?: string;
  query?: string;
  offset: number;
  limit: number;
}

/** The egress a session was created with (or switched to): a proxy, or a mode. */
export interface BrowserProxyLink {
  proxy_id: string | null;
  mode: BrowserProxyMode | null;
}

const COLUMNS = raw(`id, project_id, name, type, protocol, bypass_hosts, config, password_sealed, status, status_detail,
  ip_address, last_checked, created_at, deleted_at`);

export class ProxiesRepo {
  constructor(private readonly db: Database) {}

  async insert(row: ProxyRow): Promise<void> {
    await this.db.run(sql`INSERT INTO proxies (${COLUMNS}) VALUES (${row.id}, ${row.project_id}, ${row.name}, ${row.type}, ${row.protocol},
      ${JSON.stringify(row.bypass_hosts)}, ${JSON.stringify(row.config)}, ${row.password_sealed}, ${row.status}, ${row.status_detail},
      ${row.ip_address}, ${row.last_checked}, ${row.created_at}, ${row.deleted_at})`);
  }

  /** Deleted ones too: sessions keep referring to a deleted proxy by id. */
  async get(id: string): Promise<ProxyRow | undefined> {
    const row = await this.db.get<StoredRow>(sql`SELECT ${COLUMNS} FROM proxies WHERE id = ${id}`);
    return row && fromStored(row);
  }

  /** Up to two active proxies with this name (case-insensitive): names are not unique, so callers check for ambiguity. */
  async activeByName(projectId: string | null, name: string): Promise<ProxyRow[]> {
    const rows = await this.db.all<StoredRow>(sql`SELECT ${COLUMNS} FROM proxies
      WHERE coalesce(project_id, '') = ${projectId ?? ''} AND lower(name) = lower(${name}) AND deleted_at IS NULL ORDER BY seq LIMIT 2`);
    return rows.map(fromStored);
  }

  async rename(id: string, name: string): Promise<void> {
    await this.db.run(sql`UPDATE proxies SET name = ${name} WHERE id = ${id}`);
  }

  async setCheck(id: string, check: Pick<ProxyRow, 'status' | 'status_detail' | 'ip_address' | 'last_checked'>): Promise<void> {
    await this.db.run(sql`UPDATE proxies SET status = ${check.status}, status_detail = ${check.status_detail}, ip_address = ${check.ip_address},
      last_checked = ${check.last_checked} WHERE id = ${id}`);
  }

  async softDelete(id: string, at: Date): Promise<boolean> {
    return (await this.db.run(sql`UPDATE proxies SET deleted_at = ${at.toISOString()} WHERE id = ${id} AND deleted_at IS NULL`)).changes > 0;
  }

  /**
   * One page of a project's active proxies, oldest first. A query matches the name, the custom host or the
   * last seen IP as a substring (case-insensitive), and ids exactly.
   */
  async list(q: ProxyListQuery): Promise<{ rows: ProxyRow[]; hasMore: boolean }> {
    const where = [sql`coalesce(project_id, '') = ${q.projectId ?? ''}`, sql`deleted_at IS NULL`];
    if (q.name !== undefined) where.push(sql`lower(name) = lower(${q.name})`);
    const base = sql`SELECT ${COLUMNS} FROM proxies WHERE ${join(where, ' AND ')}`;
    if (!q.query) {
      const rows = await this.db.all<StoredRow>(sql`${base} ORDER BY seq LIMIT ${q.limit + 1} OFFSET ${q.offset}`);
      return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
    }
    // The host lives inside the JSON config, which neither database can read with the same function: the
    // config's text narrows the rows (the host's JSON encoding is a substring of it), the exact match and
    // the paging are done here.
    const text = q.query;
    const pattern = likePattern(text);
    const rows = await this.db.all<StoredRow>(sql`${base} AND (id = ${text} OR lower(coalesce(name, '')) LIKE ${pattern} ESCAPE '\\'
      OR lower(coalesce(ip_address, '')) LIKE ${pattern} ESCAPE '\\' OR lower(config) LIKE ${likePattern(jsonText(text))} ESCAPE '\\') ORDER BY seq`);
    const needle = text.toLowerCase();
    const has = (value: string | null | undefined) => (value ?? '').toLowerCase().includes(needle);
    const found = rows.map(fromStored).filter((r) => r.id === text || has(r.name) || has(r.ip_address) || has(r.config.host));
    const page = found.slice(q.offset, q.offset + q.limit + 1);
    return { rows: page.slice(0, q.limit), hasMore: page.length > q.limit };
  }

  async linkBrowser(browserId: string, link: BrowserProxyLink): Promise<void> {
    await this.db.run(sql`INSERT INTO browser_proxies (browser_id, proxy_id, mode) VALUES (${browserId}, ${link.proxy_id}, ${link.mode})
      ON CONFLICT (browser_id) DO UPDATE SET proxy_id = excluded.proxy_id, mode = excluded.mode`);
  }

  /** The links of each of these browsers that has one, with the linked proxy's name, in one query. */
  async browserLinks(browserIds: readonly string[]): Promise<Map<string, BrowserProxyLink & { proxy_name: string | null }>> {
    const rows = await this.db.all<BrowserProxyLink & { browser_id: string; proxy_name: string | null }>(sql`
      SELECT l.browser_id, l.proxy_id, l.mode, p.name AS proxy_name FROM browser_proxies l LEFT JOIN proxies p ON p.id = l.proxy_id
      WHERE l.browser_id ${inList(browserIds)}`);
    return new Map(rows.map(({ browser_id, ...link }) => [browser_id, link]));
  }
}

function fromStored(row: StoredRow): ProxyRow {
  return { ...row, bypass_hosts: JSON.parse(row.bypass_hosts) as string[], config: JSON.parse(row.config) as ProxyConfig };
}
