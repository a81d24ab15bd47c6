// Auth connections and their timelines. A connection's settings and its current flow's state are JSON: they
// are read and written whole, never queried by field.
import type {
  AuthChoice,
  AuthField,
  ConnectionBrowser,
  ConnectionCredential,
  DiscoveredField,
  FlowStatus,
  FlowStep,
  FlowType,
  MfaOption,
  SsoButton,
  TimelineEvent,
} from '../../api/schemas/auth-connections.js';
import type { BrowserTelemetryRequest } from '../../api/types.js';
import type { Database, Queryable } from './database.js';
import { modifyRow } from './row-lock.js';
import { join, likePattern, raw, sql } from './sql.js';

export interface ConnectionSettings {
  login_url: string | null;
  allowed_domains: string[];
  credential: ConnectionCredential | null;
  browser: ConnectionBrowser | null;
  browser_telemetry: Pick<BrowserTelemetryRequest, 'enabled' | 'browser'> | null;
  auto_reauth: boolean;
  health_checks: boolean;
  health_check_interval: number;
  save_credentials: boolean;
  record_session: boolean;
}

/** The current (or last) login flow of a connection. */
export interface FlowState {
  id: string;
  type: FlowType;
  status: FlowStatus;
  step: FlowStep;
  started_at: string;
  expires_at: string;
  /** The secret of the hosted page's URL. */
  handoff_code: string;
  browser_session_id: string | null;
  /** The replay of the flow's browser, with record_session. */
  replay_id: string | null;
  timeline_id: string;
  discovered_fields: DiscoveredField[] | null;
  fields: AuthField[] | null;
  choices: AuthChoice[] | null;
  mfa_options: MfaOption[] | null;
  pending_sso_buttons: SsoButton[] | null;
  website_error: string | null;
  error_code: string | null;
  error_message: string | null;
}

export interface ConnectionRow {
  id: string;
  project_id: string | null;
  domain: string;
  profile_id: string;
  profile_name: string;
  proxy_id: string | null;
  settings: ConnectionSettings;
  status: 'AUTHENTICATED' | 'NEEDS_AUTH';
  flow: FlowState | null;
  last_auth_at: string | null;
  last_auth_check_at: string | null;
  post_login_url: string | null;
  created_at: string;
  updated_at: string;
}

type Stored = Omit<ConnectionRow, 'settings' | 'flow'> & { settings: string; flow: string | null };

export interface ConnectionListQuery {
  projectId: string | null;
  domain?: string;
  profileName?: string;
  query?: string;
  offset: number;
  limit: number;
}

const COLUMNS = raw(`id, project_id, domain, profile_id, profile_name, proxy_id, settings, status, flow, last_auth_at, last_auth_check_at,
  post_login_url, created_at, updated_at`);

export class AuthConnectionsRepo {
  constructor(private readonly db: Database) {}

  /** Throws UniqueViolation when the project has a connection for this domain and profile. */
  async insert(row: ConnectionRow): Promise<void> {
    const s = toStored(row);
    await this.db.run(sql`INSERT INTO auth_connections (${COLUMNS}) VALUES (${s.id}, ${s.project_id}, ${s.domain}, ${s.profile_id},
      ${s.profile_name}, ${s.proxy_id}, ${s.settings}, ${s.status}, ${s.flow}, ${s.last_auth_at}, ${s.last_auth_check_at}, ${s.post_login_url},
      ${s.created_at}, ${s.updated_at})`);
  }

  /**
   * Reads the connection and writes what `change` makes of it in one transaction, the row locked: a login
   * flow, a health check and a PATCH each change the current row, never write back a stale copy. Undefined
   * from `change` (or no such connection) writes nothing and answers undefined.
   */
  async modify(id: string, change: (row: ConnectionRow) => ConnectionRow | undefined): Promise<ConnectionRow | undefined> {
    return modifyRow(this.db, { read: sql`SELECT ${COLUMNS} FROM auth_connections WHERE id = ${id}`, decode: fromStored, write: updateConnection }, change);
  }

  async get(id: string): Promise<ConnectionRow | undefined> {
    const row = await this.db.get<Stored>(sql`SELECT ${COLUMNS} FROM auth_connections WHERE id = ${id}`);
    return row && fromStored(row);
  }

  async all(): Promise<ConnectionRow[]> {
    return (await this.db.all<Stored>(sql`SELECT ${COLUMNS} FROM auth_connections ORDER BY seq`)).map(fromStored);
  }

  async usingProxy(proxyId: string): Promise<ConnectionRow[]> {
    return (await this.db.all<Stored>(sql`SELECT ${COLUMNS} FROM auth_connections WHERE proxy_id = ${proxyId} ORDER BY seq`)).map(fromStored);
  }

  async usingProfile(profileId: string): Promise<ConnectionRow[]> {
    return (await this.db.all<Stored>(sql`SELECT ${COLUMNS} FROM auth_connections WHERE profile_id = ${profileId} ORDER BY seq`)).map(fromStored);
  }

  /** The connection and its timeline, together. */
  async remove(id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(sql`DELETE FROM auth_connections WHERE id = ${id}`);
      await tx.run(sql`DELETE FROM auth_timeline WHERE connection_id = ${id}`);
    });
  }

  async list(q: ConnectionListQuery): Promise<{ rows: ConnectionRow[]; hasMore: boolean }> {
    const where = [sql`coalesce(project_id, '') = ${q.projectId ?? ''}`];
    if (q.domain !== undefined) where.push(sql`lower(domain) = lower(${q.domain})`);
    if (q.profileName !== undefined) where.push(sql`profile_name = ${q.profileName}`);
    if (q.query) {
      const pattern = likePattern(q.query);
      where.push(sql`(id = ${q.query} OR lower(domain) LIKE ${pattern} ESCAPE '\\' OR lower(profile_name) LIKE ${pattern} ESCAPE '\\')`);
    }
    const rows = await this.db.all<Stored>(
      sql`SELECT ${COLUMNS} FROM auth_connections WHERE ${join(where, ' AND ')} ORDER BY seq LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
  }

  async addTimeline(connectionId: string, event: TimelineEvent): Promise<void> {
    await this.db.run(sql`INSERT INTO auth_timeline (id, connection_id, type, event)
      VALUES (${event.id}, ${connectionId}, ${event.type}, ${JSON.stringify(event)})`);
  }

  async setTimeline(event: TimelineEvent): Promise<void> {
    await this.db.run(sql`UPDATE auth_timeline SET event = ${JSON.stringify(event)} WHERE id = ${event.id}`);
  }

  /** Newest first. */
  async timeline(connectionId: string, q: { type?: string; offset: number; limit: number }): Promise<{ rows: TimelineEvent[]; hasMore: boolean }> {
    const ofType = q.type ? sql` AND type = ${q.type}` : raw('');
    const rows = await this.db.all<{ event: string }>(
      sql`SELECT event FROM auth_timeline WHERE connection_id = ${connectionId}${ofType} ORDER BY seq DESC LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit).map((r) => JSON.parse(r.event) as TimelineEvent), hasMore: rows.length > q.limit };
  }
}

async function updateConnection(db: Queryable, row: ConnectionRow): Promise<void> {
  const s = toStored(row);
  await db.run(sql`UPDATE auth_connections SET proxy_id = ${s.proxy_id}, settings = ${s.settings}, status = ${s.status}, flow = ${s.flow},
    last_auth_at = ${s.last_auth_at}, last_auth_check_at = ${s.last_auth_check_at}, post_login_url = ${s.post_login_url}, updated_at = ${s.updated_at}
    WHERE id = ${s.id}`);
}

function toStored(row: ConnectionRow): Stored {
  return { ...row, settings: JSON.stringify(row.settings), flow: row.flow && JSON.stringify(row.flow) };
}

function fromStored(row: Stored): ConnectionRow {
  return { ...row, settings: JSON.parse(row.settings) as ConnectionSettings, flow: row.flow ? (JSON.parse(row.flow) as FlowState) : null };
}
