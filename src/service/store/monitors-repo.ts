// Monitors: deployed suites (their manifest's channels, secrets' sources and maintenance windows), their checks
// with each one's schedule state and health, the recent runs a check overview shows, and the alerts raised.
// A check is claimed for a run by one conditional UPDATE, so two schedulers on one database never start the
// same due run twice.
import type { MonitorCheckSpec, MonitorManifest, MonitorStatus } from '../../api/schemas/monitors.js';
import type { Database, Queryable } from './database.js';
import { inList, join, raw, sql } from './sql.js';

/** A check's standing as the alert policy keeps it (host/monitors/policy.ts). */
export interface CheckHealth {
  status: MonitorStatus;
  consecutive_failures: number;
  /** When the current failing streak began. */
  failing_since: string | null;
  /** Whether the channels were told about the current failing or degraded spell (so recovery is worth telling). */
  alerted: boolean;
  /** Failing runs since the last failing alert or reminder. */
  runs_since_alert: number;
  /** The browser a failed run kept at its failing step: while it lives, later runs keep none (one per spell). */
  kept?: KeptBrowser;
}

export interface KeptBrowser {
  session_id: string;
  live_view_url: string;
  until: string;
}

export interface SuiteRow {
  id: string;
  project_id: string | null;
  name: string;
  version: number;
  /** Everything of the manifest but the checks (channels, secrets' sources, maintenance). */
  settings: Omit<MonitorManifest, 'checks' | 'suite'>;
  /** The deployed folder, relative to the blob dir. */
  bundle: string;
  deployed_at: string;
}

export interface CheckRow {
  id: string;
  project_id: string | null;
  suite: string;
  name: string;
  spec: MonitorCheckSpec;
  paused: boolean;
  health: CheckHealth;
  /** When the next attempt starts (a retry's, or the next regular run's); null while paused. */
  due_at: string | null;
  /** The next regular run (what a finished spell of retries returns to). */
  next_run_at: string | null;
  /** The attempt `due_at` starts (1, or a retry's number + 1). */
  attempt: number;
  /** How the due attempt came about: `schedule`, or `manual` for a trigger. */
  due_reason: string;
  running_since: string | null;
  running_owner: string | null;
  last_run_at: string | null;
  last_run_id: string | null;
  last_duration_ms: number | null;
}

export interface CheckRunRow {
  id: string;
  check_id: string;
  run_id: string | null;
  status: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  message: string | null;
}

export interface AlertRow {
  id: string;
  check_id: string;
  project_id: string | null;
  kind: string;
  at: string;
  muted: boolean;
  run_id: string | null;
  deliveries: { channel: string; ok: boolean; attempts: number; error?: string }[];
}

/** A check's latest runs kept for its overview (the check list asks for at most 100). */
export const KEPT_CHECK_RUNS = 200;
/** A check's latest alerts kept. */
export const KEPT_ALERTS = 500;

const CHECK_COLUMNS = raw(`id, project_id, suite, name, spec, paused, health, due_at, next_run_at, attempt, due_reason, running_since, running_owner,
  last_run_at, last_run_id, last_duration_ms`);
type StoredCheck = Omit<CheckRow, 'spec' | 'health' | 'paused'> & { spec: string; health: string; paused: number };

export class MonitorsRepo {
  constructor(private readonly db: Database) {}

  getSuite(projectId: string | null, name: string): Promise<SuiteRow | undefined> {
    return this.db
      .get<Omit<SuiteRow, 'settings'> & { settings: string }>(sql`SELECT id, project_id, name, version, settings, bundle, deployed_at FROM monitor_suites
        WHERE coalesce(project_id, '') = ${projectId ?? ''} AND name = ${name}`)
      .then((row) => row && { ...row, settings: JSON.parse(row.settings) });
  }

  async listSuites(projectId: string | null): Promise<SuiteRow[]> {
    const rows = await this.db.all<Omit<SuiteRow, 'settings'> & { settings: string }>(sql`SELECT id, project_id, name, version, settings, bundle, deployed_at
      FROM monitor_suites WHERE coalesce(project_id, '') = ${projectId ?? ''} ORDER BY name`);
    return rows.map((row) => ({ ...row, settings: JSON.parse(row.settings) }));
  }

  /**
   * Replaces a suite's deploy in one transaction: the suite row, its checks' specs (a kept name keeps its id,
   * health and schedule unless its schedule changed), new checks due at `firstDue(spec)`, gone ones deleted.
   */
  async deploy(
    suite: SuiteRow,
    checks: { id: string; spec: MonitorCheckSpec }[],
    firstDue: (spec: MonitorCheckSpec, previous: CheckRow | undefined) => string | null,
    fresh: CheckHealth,
  ): Promise<{ removed: string[]; previousBundle: string | undefined }> {
    return this.db.transaction(async (tx) => {
      const before = await tx.get<{ bundle: string }>(sql`SELECT bundle FROM monitor_suites WHERE id = ${suite.id}`);
      if (before) {
        await tx.run(sql`UPDATE monitor_suites SET version = ${suite.version}, settings = ${JSON.stringify(suite.settings)}, bundle = ${suite.bundle},
          deployed_at = ${suite.deployed_at} WHERE id = ${suite.id}`);
      } else {
        await tx.run(sql`INSERT INTO monitor_suites (id, project_id, name, version, settings, bundle, deployed_at) VALUES (${suite.id}, ${suite.project_id},
          ${suite.name}, ${suite.version}, ${JSON.stringify(suite.settings)}, ${suite.bundle}, ${suite.deployed_at})`);
      }
      const existing = new Map((await checksOf(tx, suite.project_id, suite.name)).map((c) => [c.name, c]));
      for (const { id, spec } of checks) {
        const previous = existing.get(spec.name);
        existing.delete(spec.name);
        const due = firstDue(spec, previous);
        if (previous) {
          // A running check's due time is its next run's, set when the run ends; a paused one has none.
          const keepDue = previous.running_since !== null || previous.paused;
          const pausing = spec.paused === true && !previous.paused;
          const sets = [sql`spec = ${JSON.stringify(spec)}`];
          if (pausing) sets.push(raw('paused = 1'), raw('due_at = NULL'));
          else if (!keepDue) sets.push(sql`due_at = ${due}`);
          if (!keepDue) sets.push(sql`next_run_at = ${due}`, raw('attempt = 1'));
          await tx.run(sql`UPDATE monitor_checks SET ${join(sets, ', ')} WHERE id = ${previous.id}`);
        } else {
          await tx.run(sql`INSERT INTO monitor_checks (${CHECK_COLUMNS}) VALUES (${id}, ${suite.project_id}, ${suite.name}, ${spec.name}, ${JSON.stringify(spec)},
            ${spec.paused ? 1 : 0}, ${JSON.stringify(fresh)}, ${spec.paused ? null : due}, ${due}, 1, 'schedule', NULL, NULL, NULL, NULL, NULL)`);
        }
      }
      const removed = [...existing.values()];
      for (const gone of removed) await tx.run(sql`DELETE FROM monitor_checks WHERE id = ${gone.id}`);
      return { removed: removed.map((c) => c.name), previousBundle: before?.bundle };
    });
  }

  async deleteSuite(suiteId: string, projectId: string | null, name: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(sql`DELETE FROM monitor_checks WHERE coalesce(project_id, '') = ${projectId ?? ''} AND suite = ${name}`);
      await tx.run(sql`DELETE FROM monitor_suites WHERE id = ${suiteId}`);
    });
  }

  async getCheck(id: string): Promise<CheckRow | undefined> {
    const row = await this.db.get<StoredCheck>(sql`SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE id = ${id}`);
    return row && checkOf(row);
  }

  listChecks(projectId: string | null, suite?: string): Promise<CheckRow[]> {
    return checksOf(this.db, projectId, suite);
  }

  /** Every project's checks: what /metrics and the scheduler's count read. */
  async allChecks(): Promise<CheckRow[]> {
    return (await this.db.all<StoredCheck>(sql`SELECT ${CHECK_COLUMNS} FROM monitor_checks ORDER BY suite, name`)).map(checkOf);
  }

  /** Due checks, earliest first, that nobody runs. */
  async due(now: string, limit: number): Promise<CheckRow[]> {
    const rows = await this.db.all<StoredCheck>(sql`SELECT ${CHECK_COLUMNS} FROM monitor_checks
      WHERE paused = 0 AND running_since IS NULL AND due_at IS NOT NULL AND due_at <= ${now} ORDER BY due_at, id LIMIT ${limit}`);
    return rows.map(checkOf);
  }

  /** Takes the due run for `owner`; false when another scheduler (or a pause, or a redeploy) got there first. */
  async claim(check: CheckRow, owner: string, now: string): Promise<boolean> {
    const { changes } = await this.db.run(sql`UPDATE monitor_checks SET running_since = ${now}, running_owner = ${owner}
      WHERE id = ${check.id} AND paused = 0 AND running_since IS NULL AND due_at = ${check.due_at} AND attempt = ${check.attempt}`);
    return changes === 1;
  }

  /** Ends the claimed run: the next due time and attempt, the health, and the run in the recent list, at once. */
  async finish(
    checkId: string,
    owner: string,
    next: { due_at: string | null; next_run_at: string | null; attempt: number; health: CheckHealth; due_reason: string },
    run: CheckRunRow | undefined,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const last = run ? sql`, last_run_at = ${run.started_at}, last_run_id = ${run.run_id}, last_duration_ms = ${run.duration_ms}` : raw('');
      const { changes } = await tx.run(sql`UPDATE monitor_checks SET running_since = NULL, running_owner = NULL, health = ${JSON.stringify(next.health)},
        due_at = CASE WHEN paused = 1 THEN NULL ELSE ${next.due_at} END, next_run_at = ${next.next_run_at}, attempt = ${next.attempt},
        due_reason = ${next.due_reason} ${last} WHERE id = ${checkId} AND running_owner = ${owner}`);
      if (changes === 1 && run) {
        await tx.run(sql`INSERT INTO monitor_check_runs (id, check_id, run_id, status, attempt, started_at, duration_ms, message) VALUES (${run.id},
          ${run.check_id}, ${run.run_id}, ${run.status}, ${run.attempt}, ${run.started_at}, ${run.duration_ms}, ${run.message})`);
        // The glance keeps its last runs only: the whole history is the check's runs in /runs.
        await tx.run(sql`DELETE FROM monitor_check_runs WHERE check_id = ${run.check_id} AND seq <= (SELECT seq FROM monitor_check_runs
          WHERE check_id = ${run.check_id} ORDER BY seq DESC LIMIT 1 OFFSET ${KEPT_CHECK_RUNS})`);
      }
      return changes === 1;
    });
  }

  /** Every claimed check: the scheduler decides which claims were abandoned. */
  async runningChecks(): Promise<CheckRow[]> {
    return (await this.db.all<StoredCheck>(sql`SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE running_since IS NOT NULL`)).map(checkOf);
  }

  /** Frees an abandoned claim so the run is due again at `due` (only if `owner` still holds it). */
  async release(checkId: string, owner: string, due: string): Promise<boolean> {
    const { changes } = await this.db.run(sql`UPDATE monitor_checks SET running_since = NULL, running_owner = NULL,
      due_at = CASE WHEN paused = 1 THEN NULL ELSE ${due} END WHERE id = ${checkId} AND running_owner = ${owner}`);
    return changes === 1;
  }

  async setPaused(checkId: string, paused: boolean, due: string | null): Promise<void> {
    await this.db.run(sql`UPDATE monitor_checks SET paused = ${paused ? 1 : 0}, due_at = ${due}, next_run_at = ${due}, attempt = 1 WHERE id = ${checkId}`);
  }

  /** Makes a run due now for a trigger; false when the check is running already. */
  async trigger(checkId: string, now: string): Promise<boolean> {
    const { changes } = await this.db.run(sql`UPDATE monitor_checks SET due_at = ${now}, attempt = 1, due_reason = 'manual'
      WHERE id = ${checkId} AND running_since IS NULL`);
    return changes === 1;
  }

  /** The latest runs of each check, newest first. */
  async recentRuns(checkIds: readonly string[], perCheck: number): Promise<Map<string, CheckRunRow[]>> {
    const out = new Map<string, CheckRunRow[]>(checkIds.map((id) => [id, []]));
    if (!checkIds.length || perCheck === 0) return out;
    // Each check's newest runs read from its end of the (check_id, started_at) index and no further: a check
    // keeps every run it ever had, and ranking all of them (a window function) made the check list's cost grow
    // with the history rather than the page. SQLite has no LATERAL; a correlated IN does the same there.
    const newest = (columns: string) =>
      sql`SELECT ${raw(columns)} FROM monitor_check_runs x WHERE x.check_id = c.id ORDER BY x.started_at DESC, x.seq DESC LIMIT ${perCheck}`;
    const from =
      this.db.dialect === 'postgres'
        ? sql`monitor_checks c CROSS JOIN LATERAL (${newest('x.*')}) r`
        : sql`monitor_checks c JOIN monitor_check_runs r ON r.seq IN (${newest('x.seq')})`;
    const rows = await this.db.all<CheckRunRow & { seq: number }>(sql`SELECT r.id, r.check_id, r.run_id, r.status, r.attempt, r.started_at, r.duration_ms,
      r.message, r.seq FROM ${from} WHERE c.id ${inList(checkIds)}`);
    const ranked = new Map<string, (CheckRunRow & { seq: number })[]>();
    for (const row of rows) {
      const runs = ranked.get(row.check_id);
      if (runs) runs.push(row);
      else ranked.set(row.check_id, [row]);
    }
    // Neither join promises an order; a check's few rows are sorted here for next to nothing.
    for (const [id, runs] of ranked) {
      runs.sort((a, b) => (a.started_at === b.started_at ? b.seq - a.seq : a.started_at < b.started_at ? 1 : -1));
      out.set(id, runs.map(({ seq: _seq, ...run }) => run));
    }
    return out;
  }

  async insertAlert(row: AlertRow): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO monitor_alerts (id, check_id, project_id, kind, at, muted, run_id, deliveries) VALUES (${row.id}, ${row.check_id},
        ${row.project_id}, ${row.kind}, ${row.at}, ${row.muted ? 1 : 0}, ${row.run_id}, ${JSON.stringify(row.deliveries)})`);
      await tx.run(sql`DELETE FROM monitor_alerts WHERE check_id = ${row.check_id} AND seq <= (SELECT seq FROM monitor_alerts
        WHERE check_id = ${row.check_id} ORDER BY seq DESC LIMIT 1 OFFSET ${KEPT_ALERTS})`);
    });
  }

  async listAlerts(projectId: string | null, checkId: string | undefined, limit: number): Promise<AlertRow[]> {
    const byCheck = checkId === undefined ? raw('') : sql`AND check_id = ${checkId}`;
    const rows = await this.db.all<Omit<AlertRow, 'muted' | 'deliveries'> & { muted: number; deliveries: string }>(sql`SELECT id, check_id, project_id, kind,
      at, muted, run_id, deliveries FROM monitor_alerts WHERE coalesce(project_id, '') = ${projectId ?? ''} ${byCheck} ORDER BY at DESC, seq DESC LIMIT ${limit}`);
    return rows.map((r) => ({ ...r, muted: Boolean(r.muted), deliveries: JSON.parse(r.deliveries) }));
  }
}

async function checksOf(db: Queryable, projectId: string | null, suite?: string): Promise<CheckRow[]> {
  const bySuite = suite === undefined ? raw('') : sql`AND suite = ${suite}`;
  const rows = await db.all<StoredCheck>(sql`SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE coalesce(project_id, '') = ${projectId ?? ''} ${bySuite}
    ORDER BY suite, name`);
  return rows.map(checkOf);
}

function checkOf(row: StoredCheck): CheckRow {
  return { ...row, spec: JSON.parse(row.spec), health: JSON.parse(row.health), paused: Boolean(row.paused) };
}
