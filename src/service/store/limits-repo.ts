// The org's limits (one row) and each project's overrides. Read from the database at each check rather than
// kept in memory: on PostgreSQL several services share them, and a change made through one applies to all.
// What counts against the limits is live state, counted in memory (host/session/limits.ts).
import type { Database, Queryable } from './database.js';
import { join, raw, sql, type Sql } from './sql.js';
import { lockNamed } from './row-lock.js';

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

/** A project's session cap in force, and whether it is the project's own or the organisation's default. */
export interface ProjectSessionCap {
  limit: number | null;
  source: 'project' | 'org_default';
}

/** The session caps a create in a project (null: the default scope, no project cap) is held to. */
export interface SessionCaps {
  org: number | null;
  project: ProjectSessionCap | null;
}

const NO_PROJECT_LIMITS: StoredProjectLimits = { max_concurrent_sessions: null, max_concurrent_invocations: null };
const NO_ORG_LIMITS: StoredOrgLimits = { max_concurrent_sessions: null, max_pooled_sessions: null, default_project_max_concurrent_sessions: null };
const ORG_COLUMNS = raw('max_concurrent_sessions, max_pooled_sessions, default_project_max_concurrent_sessions');
const PROJECT_FIELDS = ['max_concurrent_sessions', 'max_concurrent_invocations'] as const;
const PROJECT_COLUMNS = raw(PROJECT_FIELDS.join(', '));

export class LimitsRepo {
  constructor(private readonly db: Database) {}

  async get(): Promise<StoredOrgLimits> {
    return readOrg(this.db);
  }

  /**
   * Sets the given fields (null removes a limit) and returns the result. `check` sees the limits as they
   * would be and may throw to refuse them; read, check and write are one transaction, so two changes at
   * once cannot together produce limits that neither's check saw.
   */
  async set(fields: Partial<StoredOrgLimits>, check?: (next: StoredOrgLimits) => void): Promise<StoredOrgLimits> {
    return this.db.transaction(async (tx) => {
      await lockNamed(tx, 'bcs.org_limits');
      const next = { ...(await readOrg(tx)), ...definedOnly(fields) };
      check?.(next);
      await tx.run(sql`INSERT INTO org_limits (id, ${ORG_COLUMNS})
        VALUES (1, ${next.max_concurrent_sessions}, ${next.max_pooled_sessions}, ${next.default_project_max_concurrent_sessions})
        ON CONFLICT (id) DO UPDATE SET max_concurrent_sessions = excluded.max_concurrent_sessions,
          max_pooled_sessions = excluded.max_pooled_sessions,
          default_project_max_concurrent_sessions = excluded.default_project_max_concurrent_sessions`);
      return next;
    });
  }

  async project(projectId: string): Promise<StoredProjectLimits> {
    const row = await this.db.get<StoredProjectLimits>(sql`SELECT ${PROJECT_COLUMNS} FROM project_limits WHERE project_id = ${projectId}`);
    return row ?? { ...NO_PROJECT_LIMITS };
  }

  /**
   * The session caps in force, in one read: the org's limit and, in a project, its own cap else the org's
   * default (read at each check, so a default set later applies to projects that already exist).
   */
  async sessionCaps(projectId: string | null): Promise<SessionCaps> {
    const row = await this.db.get<{ org: number | null; fallback: number | null; own: number | null }>(sql`SELECT
      (SELECT max_concurrent_sessions FROM org_limits WHERE id = 1) AS org,
      (SELECT default_project_max_concurrent_sessions FROM org_limits WHERE id = 1) AS fallback,
      (SELECT max_concurrent_sessions FROM project_limits WHERE project_id = ${projectId ?? ''}) AS own`);
    const org = row?.org ?? null;
    if (projectId === null) return { org, project: null };
    const own = row?.own ?? null;
    return { org, project: own !== null ? { limit: own, source: 'project' } : { limit: row?.fallback ?? null, source: 'org_default' } };
  }

  /** Sets the given fields of a project's overrides (null removes one) and returns them all. */
  async setProject(projectId: string, fields: Partial<StoredProjectLimits>): Promise<StoredProjectLimits> {
    const given = definedOnly(fields);
    const next = { ...NO_PROJECT_LIMITS, ...given };
    // Only the given fields change on a row that exists, so two changes of different fields both stay.
    const sets: Sql[] = PROJECT_FIELDS.filter((c) => c in given).map((c) => sql`${raw(c)} = excluded.${raw(c)}`);
    const row = await this.db.get<StoredProjectLimits>(sql`INSERT INTO project_limits (project_id, ${PROJECT_COLUMNS})
      VALUES (${projectId}, ${next.max_concurrent_sessions}, ${next.max_concurrent_invocations})
      ON CONFLICT (project_id) DO UPDATE SET ${sets.length ? join(sets, ', ') : raw('project_id = excluded.project_id')}
      RETURNING ${PROJECT_COLUMNS}`);
    return row!;
  }

  /** Forgets a deleted project's overrides (ProjectsRepo.softDelete removes them too; this makes sure). */
  async dropProject(projectId: string): Promise<void> {
    await this.db.run(sql`DELETE FROM project_limits WHERE project_id = ${projectId}`);
  }
}

async function readOrg(db: Queryable): Promise<StoredOrgLimits> {
  const row = await db.get<StoredOrgLimits>(sql`SELECT ${ORG_COLUMNS} FROM org_limits WHERE id = 1`);
  return row ?? { ...NO_ORG_LIMITS };
}

/** Only the fields present: an explicit undefined must not overwrite a stored limit. */
function definedOnly<T extends object>(fields: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}
