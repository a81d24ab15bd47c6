// Deployments and the app versions they register. A deployment's files live under
// <dataDir>/deployments/<id>/ (host/apps/deployments.ts); env var values are stored sealed.
import type { Database, Queryable } from './database.js';
import { join, likePattern, raw, sql } from './sql.js';
import { forUpdate, lockNamed } from './row-lock.js';

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

/** How goLive ended: live (with the deployments it replaced), refused (a version held, no force), or not building any more. */
export type GoLiveResult = { kind: 'live'; replaced: string[] } | { kind: 'held'; held: AppVersionRow } | { kind: 'not_building'; status: DeploymentStatus | undefined };

const COLUMN_NAMES = ['id', 'project_id', 'status', 'status_reason', 'entrypoint_rel_path', 'env_vars', 'version', 'app_name', 'source_checksum', 'created_at', 'updated_at'];
const COLUMNS = raw(COLUMN_NAMES.join(', '));
const D_COLUMNS = raw(COLUMN_NAMES.map((c) => `d.${c}`).join(', '));
const VERSION_COLUMNS = raw('id, project_id, deployment_id, app_name, version, actions, live');
/** Deployments a build or a stop may still change; the other two are ends. */
const UNENDED = raw(`('queued', 'in_progress', 'running')`);

export class DeploymentsRepo {
  constructor(private readonly db: Database) {}

  async insert(row: DeploymentRow): Promise<void> {
    await this.db.run(sql`INSERT INTO deployments (${COLUMNS}) VALUES (${row.id}, ${row.project_id}, ${row.status}, ${row.status_reason},
      ${row.entrypoint_rel_path}, ${row.env_vars}, ${row.version}, ${row.app_name}, ${row.source_checksum}, ${row.created_at}, ${row.updated_at})`);
  }

  get(id: string): Promise<DeploymentRow | undefined> {
    return this.db.get<DeploymentRow>(sql`SELECT ${COLUMNS} FROM deployments WHERE id = ${id}`);
  }

  /** `from` → `to` in one statement; false when the deployment was not in `from` (another change came first). */
  async transition(id: string, from: DeploymentStatus, to: DeploymentStatus, reason: string | null, at: Date): Promise<boolean> {
    const { changes } = await this.db.run(
      sql`UPDATE deployments SET status = ${to}, status_reason = ${reason}, updated_at = ${at.toISOString()} WHERE id = ${id} AND status = ${from}`,
    );
    return changes === 1;
  }

  async setEntrypoint(id: string, entrypoint: string): Promise<void> {
    await this.db.run(sql`UPDATE deployments SET entrypoint_rel_path = ${entrypoint} WHERE id = ${id}`);
  }

  withStatus(status: DeploymentStatus): Promise<DeploymentRow[]> {
    return this.db.all<DeploymentRow>(sql`SELECT ${COLUMNS} FROM deployments WHERE status = ${status} ORDER BY seq`);
  }

  /**
   * Makes a building deployment's apps live and the deployment running, in one transaction that also decides
   * who holds the versions: another deployment's live version refuses it (`held`), unless `force`, when that
   * deployment is stopped with `reason` in the same step. Concurrent calls are serialized (SQLite: one writer;
   * PostgreSQL: an advisory lock), so two builds never both find a version free. Should a write still meet
   * the app_versions_live index, it throws UniqueViolation.
   */
  goLive(id: string, versions: AppVersionRow[], opts: { force: boolean; reason: string; at: Date }): Promise<GoLiveResult> {
    const at = opts.at.toISOString();
    return this.db.transaction(async (tx): Promise<GoLiveResult> => {
      await lockNamed(tx, 'bcs.app_versions');
      // Locked on PostgreSQL so a concurrent stop waits for this to commit (stop changes the row first).
      const current = await tx.get<{ status: DeploymentStatus }>(sql`SELECT status FROM deployments WHERE id = ${id}${forUpdate(tx)}`);
      if (current?.status !== 'in_progress') return { kind: 'not_building', status: current?.status };
      const replaced = new Set<string>();
      for (const v of versions) {
        const held = await heldBy(tx, v, id);
        if (!held) continue;
        if (!opts.force) return { kind: 'held', held };
        replaced.add(held.deployment_id);
      }
      for (const old of replaced) {
        await tx.run(sql`UPDATE deployments SET status = 'stopped', status_reason = ${opts.reason}, updated_at = ${at} WHERE id = ${old}`);
        await tx.run(sql`UPDATE app_versions SET live = 0 WHERE deployment_id = ${old}`);
      }
      for (const v of versions) {
        await tx.run(sql`INSERT INTO app_versions (${VERSION_COLUMNS})
          VALUES (${v.id}, ${v.project_id}, ${v.deployment_id}, ${v.app_name}, ${v.version}, ${v.actions}, ${v.live})`);
      }
      const appName = versions.map((v) => v.app_name).join(',');
      await tx.run(sql`UPDATE deployments SET app_name = ${appName}, status = 'running', status_reason = ${null}, updated_at = ${at} WHERE id = ${id}`);
      return { kind: 'live', replaced: [...replaced] };
    });
  }

  /**
   * Ends a deployment that has not ended (its versions are no longer live); false when it had already
   * stopped or failed: the first end wins.
   */
  stop(id: string, status: 'stopped' | 'failed', reason: string, at: Date): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // The row first: on PostgreSQL that waits for a goLive holding it, so the versions it made live are seen.
      const { changes } = await tx.run(
        sql`UPDATE deployments SET status = ${status}, status_reason = ${reason}, updated_at = ${at.toISOString()} WHERE id = ${id} AND status IN ${UNENDED}`,
      );
      if (changes === 0) return false;
      await tx.run(sql`UPDATE app_versions SET live = 0 WHERE deployment_id = ${id}`);
      return true;
    });
  }

  liveVersion(projectId: string | null, appName: string, version: string): Promise<AppVersionRow | undefined> {
    return this.db.get<AppVersionRow>(
      sql`SELECT ${VERSION_COLUMNS} FROM app_versions WHERE coalesce(project_id, '') = ${projectId ?? ''} AND app_name = ${appName} AND version = ${version} AND live = 1`,
    );
  }

  versionsOf(deploymentId: string): Promise<AppVersionRow[]> {
    return this.db.all<AppVersionRow>(sql`SELECT ${VERSION_COLUMNS} FROM app_versions WHERE deployment_id = ${deploymentId} ORDER BY seq`);
  }

  /** Newest first; `query` matches ids and app names (case-insensitive). */
  async list(q: DeploymentListQuery): Promise<{ rows: DeploymentRow[]; hasMore: boolean }> {
    const where = [sql`coalesce(d.project_id, '') = ${q.projectId ?? ''}`];
    if (q.appName !== undefined || q.appVersion !== undefined) {
      // A deployment belongs to the apps it registered, or (before it registered any) to none.
      const of = [sql`v.deployment_id = d.id`];
      if (q.appName !== undefined) of.push(sql`v.app_name = ${q.appName}`);
      if (q.appVersion !== undefined) of.push(sql`v.version = ${q.appVersion}`);
      where.push(sql`EXISTS (SELECT 1 FROM app_versions v WHERE ${join(of, ' AND ')})`);
    }
    if (q.query) {
      const pattern = likePattern(q.query);
      where.push(sql`(lower(d.id) LIKE ${pattern} ESCAPE '\\' OR lower(coalesce(d.app_name, '')) LIKE ${pattern} ESCAPE '\\')`);
    }
    const rows = await this.db.all<DeploymentRow>(
      sql`SELECT ${D_COLUMNS} FROM deployments d WHERE ${join(where, ' AND ')} ORDER BY d.seq DESC LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /** Live app versions, newest first. */
  async listApps(q: AppListQuery): Promise<{ rows: AppVersionRow[]; hasMore: boolean }> {
    const where = [sql`coalesce(project_id, '') = ${q.projectId ?? ''}`, sql`live = 1`];
    if (q.appName !== undefined) where.push(sql`app_name = ${q.appName}`);
    if (q.version !== undefined) where.push(sql`version = ${q.version}`);
    if (q.query) where.push(sql`lower(app_name) LIKE ${likePattern(q.query)} ESCAPE '\\'`);
    const rows = await this.db.all<AppVersionRow>(
      sql`SELECT ${VERSION_COLUMNS} FROM app_versions WHERE ${join(where, ' AND ')} ORDER BY seq DESC LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }
}

/** Another deployment's live version with the same project, app and version as `v`. */
function heldBy(tx: Queryable, v: AppVersionRow, deploymentId: string): Promise<AppVersionRow | undefined> {
  return tx.get<AppVersionRow>(sql`SELECT ${VERSION_COLUMNS} FROM app_versions
    WHERE coalesce(project_id, '') = ${v.project_id ?? ''} AND app_name = ${v.app_name} AND version = ${v.version} AND live = 1 AND deployment_id <> ${deploymentId}`);
}
