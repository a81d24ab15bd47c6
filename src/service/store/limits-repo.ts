// The org's limits (one row) and each project's overrides: read on every create, so both are kept in
// memory and written through. Also what a project uses right now, for its own limit.
import type { Db } from './sqlite/open.js';

/** The organisation's limits as stored; null means no limit (or no default). */
export interface StoredOrgLimits {
  max_concurrent_sessions: number | null;
  max_pooled_sessions: number | null;
  /** The `max_concurrent_sessions` of every project that sets none itself. */
  default_project_max_concurrent_sessions: number | null;
}

/** A project's overrides; null means no project-level cap (only the org limit applies). */
export interface StoredProjectLimits {
  max_concurrent_sessions: number | null;
  max_concurrent_invocations: number | null;
}

const NO_PROJECT_LIMITS: StoredProjectLimits = { max_concurrent_sessions: null, max_concurrent_invocations: null };
const NO_ORG_LIMITS: StoredOrgLimits = { max_concurrent_sessions: null, max_pooled_sessions: null, default_project_max_concurrent_sessions: null };
const ORG_COLUMNS = 'max_concurrent_sessions, max_pooled_sessions, default_project_max_concurrent_sessions';

/** A project's session cap in force, and whether it is the project's own or the organisation's default. */
export interface ProjectSessionCap {
  limit: number | null;
  source: 'project' | 'org_default';
}

export class LimitsRepo {
  private current: StoredOrgLimits;
  private readonly projects = new Map<string, StoredProjectLimits>();
  private readonly stmts;

  constructor(private readonly db: Db) {
    const row = db.prepare<[], StoredOrgLimits>(`SELECT ${ORG_COLUMNS} FROM org_limits WHERE id = 1`).get();
    this.current = row ?? { ...NO_ORG_LIMITS };
    const rows = db
      .prepare<[], StoredProjectLimits & { project_id: string }>(`SELECT project_id, max_concurrent_sessions, max_concurrent_invocations FROM project_limits`)
      .all();
    for (const { project_id, ...limits } of rows) this.projects.set(project_id, limits);
    this.stmts = {
      upsertProject: db.prepare(
        `INSERT INTO project_limits (project_id, max_concurrent_sessions, max_concurrent_invocations)
         VALUES (@project_id, @max_concurrent_sessions, @max_concurrent_invocations)
         ON CONFLICT (project_id) DO UPDATE SET max_concurrent_sessions = excluded.max_concurrent_sessions,
           max_concurrent_invocations = excluded.max_concurrent_invocations`,
      ),
      // On-demand sessions of a project: its live records without a pool (pool browsers count by pool size).
      onDemand: db.prepare<[string], { n: number }>(
        `SELECT count(*) AS n FROM browsers WHERE project_id = ? AND deleted_at IS NULL AND pool_id IS NULL`,
      ),
      reserved: db.prepare<[string], { n: number | null }>(
        `SELECT sum(json_extract(config, '$.size')) AS n FROM browser_pools WHERE project_id = ?`,
      ),
    };
  }

  get(): StoredOrgLimits {
    return { ...this.current };
  }

  /** Sets the given fields (null removes a limit) and returns the result. */
  set(fields: Partial<StoredOrgLimits>): StoredOrgLimits {
    const next = { ...this.current, ...fields };
    this.db
      .prepare(
        `INSERT INTO org_limits (id, ${ORG_COLUMNS})
         VALUES (1, @max_concurrent_sessions, @max_pooled_sessions, @default_project_max_concurrent_sessions)
         ON CONFLICT (id) DO UPDATE SET max_concurrent_sessions = excluded.max_concurrent_sessions,
           max_pooled_sessions = excluded.max_pooled_sessions,
           default_project_max_concurrent_sessions = excluded.default_project_max_concurrent_sessions`,
      )
      .run(next);
    this.current = next;
    return this.get();
  }

  project(projectId: string): StoredProjectLimits {
    return { ...(this.projects.get(projectId) ?? NO_PROJECT_LIMITS) };
  }

  /**
   * The session cap a project is held to: its own override, else the organisation's default. Read at each
   * check, so a default set later applies to projects that already exist.
   */
  projectSessionCap(projectId: string): ProjectSessionCap {
    const own = this.project(projectId).max_concurrent_sessions;
    if (own !== null) return { limit: own, source: 'project' };
    return { limit: this.current.default_project_max_concurrent_sessions, source: 'org_default' };
  }

  setProject(projectId: string, fields: Partial<StoredProjectLimits>): StoredProjectLimits {
    const next = { ...this.project(projectId), ...fields };
    this.stmts.upsertProject.run({ project_id: projectId, ...next });
    this.projects.set(projectId, next);
    return this.project(projectId);
  }

  /** Forgets a deleted project's overrides (the row goes with the project, see ProjectsRepo.softDelete). */
  dropProject(projectId: string): void {
    this.projects.delete(projectId);
  }

  /** What counts against a project's `max_concurrent_sessions` now. Synchronous, like the org check. */
  projectUsage(projectId: string): { onDemand: number; reserved: number } {
    return { onDemand: this.stmts.onDemand.get(projectId)!.n, reserved: this.stmts.reserved.get(projectId)!.n ?? 0 };
  }
}
