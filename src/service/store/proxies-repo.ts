// Proxy configurations per project, soft-deleted, and which proxy (or egress mode) each session was given.
// A custom proxy's password is stored sealed by the caller (secrets-box.ts); this never sees plaintext.
import type { BrowserProxyMode, ProxyConfig, ProxyProtocol, ProxyType } from '../../api/types.js';
import type { Db } from './sqlite/open.js';
import { likePattern } from './sql.js';

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

const COLUMNS = `id, project_id, name, type, protocol, bypass_hosts, config, password_sealed, status, status_detail,
  ip_address, last_checked, created_at, deleted_at`;

export class ProxiesRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO proxies (${COLUMNS}) VALUES (@id, @project_id, @name, @type, @protocol, @bypass_hosts, @config,
          @password_sealed, @status, @status_detail, @ip_address, @last_checked, @created_at, @deleted_at)`,
      ),
      byId: db.prepare<[string], StoredRow>(`SELECT ${COLUMNS} FROM proxies WHERE id = ?`),
      activeByName: db.prepare<[string, string], StoredRow>(
        `SELECT ${COLUMNS} FROM proxies WHERE ifnull(project_id, '') = ? AND name = ? COLLATE NOCASE AND deleted_at IS NULL ORDER BY seq LIMIT 2`,
      ),
      rename: db.prepare(`UPDATE proxies SET name = @name WHERE id = @id`),
      setCheck: db.prepare(
        `UPDATE proxies SET status = @status, status_detail = @status_detail, ip_address = @ip_address, last_checked = @last_checked WHERE id = @id`,
      ),
      softDelete: db.prepare(`UPDATE proxies SET deleted_at = @at WHERE id = @id AND deleted_at IS NULL`),
      link: db.prepare(
        `INSERT INTO browser_proxies (browser_id, proxy_id, mode) VALUES (@browser_id, @proxy_id, @mode)
          ON CONFLICT (browser_id) DO UPDATE SET proxy_id = excluded.proxy_id, mode = excluded.mode`,
      ),
      linkOf: db.prepare<[string], BrowserProxyLink>(`SELECT proxy_id, mode FROM browser_proxies WHERE browser_id = ?`),
    };
  }

  insert(row: ProxyRow): void {
    this.stmts.insert.run(toStored(row));
  }

  /** Deleted ones too: sessions keep referring to a deleted proxy by id. */
  get(id: string): ProxyRow | undefined {
    const row = this.stmts.byId.get(id);
    return row && fromStored(row);
  }

  /** Up to two active proxies with this name (case-insensitive): names are not unique, so callers check for ambiguity. */
  activeByName(projectId: string | null, name: string): ProxyRow[] {
    return this.stmts.activeByName.all(projectId ?? '', name).map(fromStored);
  }

  rename(id: string, name: string): void {
    this.stmts.rename.run({ id, name });
  }

  setCheck(id: string, check: Pick<ProxyRow, 'status' | 'status_detail' | 'ip_address' | 'last_checked'>): void {
    this.stmts.setCheck.run({ id, ...check });
  }

  softDelete(id: string, at: Date): boolean {
    return this.stmts.softDelete.run({ id, at: at.toISOString() }).changes > 0;
  }

  /** One page of a project's active proxies, oldest first. */
  list(q: ProxyListQuery): { rows: ProxyRow[]; hasMore: boolean } {
    const where = [`ifnull(project_id, '') = @project`, 'deleted_at IS NULL'];
    const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
    if (q.name !== undefined) {
      where.push('name = @name COLLATE NOCASE');
      params.name = q.name;
    }
    if (q.query) {
      // The query matches the name, the custom host or the last seen IP as a substring, and ids exactly.
      where.push(`(id = @id OR lower(ifnull(name, '')) LIKE @query ESCAPE '\\'
        OR lower(ifnull(json_extract(config, '$.host'), '')) LIKE @query ESCAPE '\\'
        OR lower(ifnull(ip_address, '')) LIKE @query ESCAPE '\\')`);
      params.id = q.query;
      params.query = likePattern(q.query);
    }
    const rows = this.db
      .prepare<Record<string, unknown>, StoredRow>(
        `SELECT ${COLUMNS} FROM proxies WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit OFFSET @offset`,
      )
      .all(params);
    return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
  }

  linkBrowser(browserId: string, link: BrowserProxyLink): void {
    this.stmts.link.run({ browser_id: browserId, ...link });
  }

  browserLink(browserId: string): BrowserProxyLink | undefined {
    return this.stmts.linkOf.get(browserId);
  }
}

function toStored(row: ProxyRow): StoredRow {
  return { ...row, bypass_hosts: JSON.stringify(row.bypass_hosts), config: JSON.stringify(row.config) };
}

function fromStored(row: StoredRow): ProxyRow {
  return { ...row, bypass_hosts: JSON.parse(row.bypass_hosts) as string[], config: JSON.parse(row.config) as ProxyConfig };
}
