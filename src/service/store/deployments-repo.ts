// Deployments and the app versions they register. A deployment's files live under
// <dataDir>/deployments/<id>/ (host/apps/deployments.ts); env var values are stored sealed.
import type { Db } from './sqlite/open.js';
import { unique } from './sqlite/database.js';
import { likePattern } from './sql.js';

export type DeploymentStatus = 'queued' | 'in_progress' | 'running' | 'failed' | 'stopped';

export interface DeploymentRow {
  id: string;
  project_id: string | null;
  status: DeploymentStatus;
  status_reason: string | null;
  entrypoint_rel_path: string | null;
  /** Sealed JSON of the env var map (SecretsBox, context `deployment:<id>:env`). */
  env_vars: string;
  version: string;
  app_name: string | null;
  source_checksum: string;
  created_at: string;
  updated_at: string | null;
}

export interface AppVersionRow {
  id: string;
  project_id: string | null;
  deployment_id: string;
  app_name: string;
  version: string;
  /** JSON array of `{name}`. */
  actions: string;
  live: number;
}

export interface DeploymentListQuery {
  projectId: string | null;
  appName?: string;
  appVersion?: string;
  query?: string;
  offset: number;
  limit: number;
}

export interface AppListQuery {
  projectId: string | null;
  appName?: string;
  version?: string;
  query?: string;
  offset: number;
  limit: number;
}

const COLUMNS = 'id, project_id, status, status_reason, entrypoint_rel_path, env_vars, version, app_name, source_checksum, created_at, updated_at';
const VERSION_COLUMNS = 'id, project_id, deployment_id, app_name, version, actions, live';

export class DeploymentsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(`INSERT INTO deployments (${COLUMNS}) VALUES (@id, @project_id, @status, @status_reason, @entrypoint_rel_path, @env_vars, @version, @app_name, @source_checksum, @created_at, @updated_at)`),
      byId: db.prepare<[string], DeploymentRow>(`SELECT ${COLUMNS} FROM deployments WHERE id = ?`),
      setStatus: db.prepare(`UPDATE deployments SET status = @status, status_reason = @reason, updated_at = @at WHERE id = @id`),
      setEntrypoint: db.prepare(`UPDATE deployments SET entrypoint_rel_path = ? WHERE id = ?`),
      setApp: db.prepare(`UPDATE deployments SET app_name = @app_name, updated_at = @at WHERE id = @id`),
      withStatus: db.prepare<[string], DeploymentRow>(`SELECT ${COLUMNS} FROM deployments WHERE status = ? ORDER BY seq`),
      insertVersion: db.prepare(`INSERT INTO app_versions (${VERSION_COLUMNS}) VALUES (@id, @project_id, @deployment_id, @app_name, @version, @actions, @live)`),
      liveVersion: db.prepare<[string, string, string], AppVersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM app_versions WHERE ifnull(project_id, '') = ? AND app_name = ? AND version = ? AND live = 1`,
      ),
      versionsOf: db.prepare<[string], AppVersionRow>(`SELECT ${VERSION_COLUMNS} FROM app_versions WHERE deployment_id = ? ORDER BY seq`),
      retire: db.prepare(`UPDATE app_versions SET live = 0 WHERE deployment_id = ?`),
    };
  }

  insert(row: DeploymentRow): void {
    this.stmts.insert.run(row);
  }

  get(id: string): DeploymentRow | undefined {
    return this.stmts.byId.get(id);
  }

  setStatus(id: string, status: DeploymentStatus, reason: string | null, at: Date): void {
    this.stmts.setStatus.run({ id, status, reason, at: at.toISOString() });
  }

  setEntrypoint(id: string, entrypoint: string): void {
    this.stmts.setEntrypoint.run(entrypoint, id);
  }

  withStatus(status: DeploymentStatus): DeploymentRow[] {
    return this.stmts.withStatus.all(status);
  }

  /**
   * Makes the deployment's apps live and the deployment running, in one transaction. `replace` lists the
   * deployments whose versions it takes over (force); they are stopped in the same step. Throws
   * UniqueViolation when another running deployment holds one of the versions.
   */
  goLive(id: string, versions: AppVersionRow[], replace: string[], reason: string, at: Date): void {
    const run = this.db.transaction(() => {
      for (const old of replace) {
        this.stmts.retire.run(old);
        this.stmts.setStatus.run({ id: old, status: 'stopped', reason, at: at.toISOString() });
      }
      for (const v of versions) this.stmts.insertVersion.run(v);
      this.stmts.setApp.run({ id, app_name: versions.map((v) => v.app_name).join(','), at: at.toISOString() });
      this.stmts.setStatus.run({ id, status: 'running', reason: null, at: at.toISOString() });
    });
    unique(run);
  }

  /** Stops a deployment: its versions are no longer live. */
  stop(id: string, status: 'stopped' | 'failed', reason: string, at: Date): void {
    this.db.transaction(() => {
      this.stmts.retire.run(id);
      this.stmts.setStatus.run({ id, status, reason, at: at.toISOString() });
    })();
  }

  liveVersion(projectId: string | null, appName: string, version: string): AppVersionRow | undefined {
    return this.stmts.liveVersion.get(projectId ?? '', appName, version);
  }

  versionsOf(deploymentId: string): AppVersionRow[] {
    return this.stmts.versionsOf.all(deploymentId);
  }

  list(q: DeploymentListQuery): { rows: DeploymentRow[]; hasMore: boolean } {
    const where = [`ifnull(d.project_id, '') = @project`];
    const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
    if (q.appName !== undefined || q.appVersion !== undefined) {
      // A deployment belongs to the apps it registered, or (before it registered any) to none.
      where.push(`EXISTS (SELECT 1 FROM app_versions v WHERE v.deployment_id = d.id ${q.appName !== undefined ? 'AND v.app_name = @app' : ''} ${q.appVersion !== undefined ? 'AND v.version = @version' : ''})`);
      params.app = q.appName;
      params.version = q.appVersion;
    }
    if (q.query) {
      where.push(`(lower(d.id) LIKE @query ESCAPE '\\' OR lower(ifnull(d.app_name, '')) LIKE @query ESCAPE '\\')`);
      params.query = likePattern(q.query);
    }
    const rows = this.db
      .prepare<Record<string, unknown>, DeploymentRow>(
        `SELECT ${COLUMNS.split(', ').map((c) => `d.${c}`).join(', ')} FROM deployments d WHERE ${where.join(' AND ')} ORDER BY d.seq DESC LIMIT @limit OFFSET @offset`,
      )
      .all(params);
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /** Live app versions, newest first. */
  listApps(q: AppListQuery): { rows: AppVersionRow[]; hasMore: boolean } {
    const where = [`ifnull(project_id, '') = @project`, 'live = 1'];
    const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
    if (q.appName !== undefined) {
      where.push('app_name = @app');
      params.app = q.appName;
    }
    if (q.version !== undefined) {
      where.push('version = @version');
      params.version = q.version;
    }
    if (q.query) {
      where.push(`lower(app_name) LIKE @query ESCAPE '\\'`);
      params.query = likePattern(q.query);
    }
    const rows = this.db
      .prepare<Record<string, unknown>, AppVersionRow>(`SELECT ${VERSION_COLUMNS} FROM app_versions WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT @limit OFFSET @offset`)
      .all(params);
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }
}
