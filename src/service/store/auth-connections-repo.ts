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
import type { Db } from './sqlite/open.js';
import { unique } from './sqlite/database.js';
import { likePattern } from './sql.js';

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

const COLUMNS = `id, project_id, domain, profile_id, profile_name, proxy_id, settings, status, flow, last_auth_at, last_auth_check_at,
  post_login_url, created_at, updated_at`;

export class AuthConnectionsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO auth_connections (${COLUMNS}) VALUES (@id, @project_id, @domain, @profile_id, @profile_name, @proxy_id, @settings,
          @status, @flow, @last_auth_at, @last_auth_check_at, @post_login_url, @created_at, @updated_at)`,
      ),
      update: db.prepare(
        `UPDATE auth_connections SET proxy_id = @proxy_id, settings = @settings, status = @status, flow = @flow, last_auth_at = @last_auth_at,
          last_auth_check_at = @last_auth_check_at, post_login_url = @post_login_url, updated_at = @updated_at WHERE id = @id`,
      ),
      byId: db.prepare<[string], Stored>(`SELECT ${COLUMNS} FROM auth_connections WHERE id = ?`),
      all: db.prepare<[], Stored>(`SELECT ${COLUMNS} FROM auth_connections ORDER BY seq`),
      usingProxy: db.prepare<[string], Stored>(`SELECT ${COLUMNS} FROM auth_connections WHERE proxy_id = ?`),
      usingProfile: db.prepare<[string], Stored>(`SELECT ${COLUMNS} FROM auth_connections WHERE profile_id = ?`),
      remove: db.prepare(`DELETE FROM auth_connections WHERE id = ?`),
      removeTimeline: db.prepare(`DELETE FROM auth_timeline WHERE connection_id = ?`),
      addEvent: db.prepare(`INSERT INTO auth_timeline (id, connection_id, type, event) VALUES (@id, @connection_id, @type, @event)`),
      setEvent: db.prepare(`UPDATE auth_timeline SET event = @event WHERE id = @id`),
    };
  }

  /** Throws UniqueViolation when the project has a connection for this domain and profile. */
  insert(row: ConnectionRow): void {
    unique(() => this.stmts.insert.run(toStored(row)));
  }

  update(row: ConnectionRow): void {
    this.stmts.update.run(toStored(row));
  }

  get(id: string): ConnectionRow | undefined {
    const row = this.stmts.byId.get(id);
    return row && fromStored(row);
  }

  all(): ConnectionRow[] {
    return this.stmts.all.all().map(fromStored);
  }

  usingProxy(proxyId: string): ConnectionRow[] {
    return this.stmts.usingProxy.all(proxyId).map(fromStored);
  }

  usingProfile(profileId: string): ConnectionRow[] {
    return this.stmts.usingProfile.all(profileId).map(fromStored);
  }

  remove(id: string): void {
    this.db.transaction(() => {
      this.stmts.remove.run(id);
      this.stmts.removeTimeline.run(id);
    })();
  }

  list(q: ConnectionListQuery): { rows: ConnectionRow[]; hasMore: boolean } {
    const where = [`ifnull(project_id, '') = @project`];
    const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
    if (q.domain !== undefined) {
      where.push('domain = @domain COLLATE NOCASE');
      params.domain = q.domain;
    }
    if (q.profileName !== undefined) {
      where.push('profile_name = @profile_name');
      params.profile_name = q.profileName;
    }
    if (q.query) {
      where.push(`(id = @id OR lower(domain) LIKE @query ESCAPE '\\' OR lower(profile_name) LIKE @query ESCAPE '\\')`);
      params.id = q.query;
      params.query = likePattern(q.query);
    }
    const rows = this.db
      .prepare<Record<string, unknown>, Stored>(`SELECT ${COLUMNS} FROM auth_connections WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit OFFSET @offset`)
      .all(params);
    return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
  }

  addTimeline(connectionId: string, event: TimelineEvent): void {
    this.stmts.addEvent.run({ id: event.id, connection_id: connectionId, type: event.type, event: JSON.stringify(event) });
  }

  setTimeline(event: TimelineEvent): void {
    this.stmts.setEvent.run({ id: event.id, event: JSON.stringify(event) });
  }

  /** Newest first. */
  timeline(connectionId: string, q: { type?: string; offset: number; limit: number }): { rows: TimelineEvent[]; hasMore: boolean } {
    const rows = this.db
      .prepare<Record<string, unknown>, { event: string }>(
        `SELECT event FROM auth_timeline WHERE connection_id = @id ${q.type ? 'AND type = @type' : ''} ORDER BY seq DESC LIMIT @limit OFFSET @offset`,
      )
      .all({ id: connectionId, type: q.type, limit: q.limit + 1, offset: q.offset });
    return { rows: rows.slice(0, q.limit).map((r) => JSON.parse(r.event) as TimelineEvent), hasMore: rows.length > q.limit };
  }
}

function toStored(row: ConnectionRow): Stored {
  return { ...row, settings: JSON.stringify(row.settings), flow: row.flow && JSON.stringify(row.flow) };
}

function fromStored(row: Stored): ConnectionRow {
  return { ...row, settings: JSON.parse(row.settings) as ConnectionSettings, flow: row.flow ? (JSON.parse(row.flow) as FlowState) : null };
}
