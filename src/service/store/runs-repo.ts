// Runs a runner reported (`bcs run --report-to`), their scenario results and the metadata of their artifacts
// (the bytes are files in the blob dir). Times are ISO text in UTC as the service writes them, so ordering by
// the text orders by time on both databases.
import type { Database } from './database.js';
import { inList, join, raw, sql, type Sql } from './sql.js';

export interface RunSummaryRow {
  total: number;
  passed: number;
  failed: number;
  errored: number;
  flaky: number;
  timed_out?: number;
  skipped?: number;
}

export interface RunRow {
  id: string;
  project_id: string | null;
  suite: string;
  branch: string | null;
  commit_sha: string | null;
  tags: string[];
  run_trigger: string;
  shard_index: number | null;
  shard_total: number | null;
  /** `running` until finished, then how it ended. */
  status: string;
  summary: RunSummaryRow | null;
  started_at: string;
  finished_at: string | null;
  created_at: string;
  /** The client's key for its create, so a retried create finds the run it made (unique per project). */
  run_key: string | null;
  /** A hash of the create the key came with: the same key with another body is refused. */
  request_hash: string | null;
  /** The service's time of the last create, result, artifact or finish: what staleness and retention count from. */
  active_at: string;
}

export interface ResultRow<D = unknown> {
  id: string;
  run_id: string;
  project_id: string | null;
  suite: string;
  name: string;
  file: string;
  status: string;
  flaky: boolean;
  attempt: number;
  started_at: string;
  duration_ms: number;
  /** Steps, tags, earlier attempts, replay: what only a reader of this one result needs, kept as JSON. */
  detail: D;
  /** The client's key for it, unique within the run: a retried add finds the result it made. */
  result_key: string | null;
  request_hash: string | null;
}

export interface ArtifactRow {
  id: string;
  run_id: string;
  result_id: string;
  kind: string;
  name: string;
  step_index: number | null;
  attempt: number;
  content_type: string;
  size_bytes: number;
  checksum: string;
  created_at: string;
}

export interface RunEnd {
  status: string;
  summary: RunSummaryRow | null;
  finished_at: string;
}

export interface RunListQuery {
  projectId: string | null;
  suite?: string;
  branch?: string;
  tag?: string;
  status?: string;
  trigger?: string;
  offset: number;
  limit: number;
}

export interface ScenarioQuery {
  projectId: string | null;
  suite: string;
  name: string;
  file?: string;
  branch?: string;
}

/** A result as a history counts it: no detail. */
export type ResultPoint = Omit<ResultRow, 'detail' | 'project_id' | 'suite' | 'result_key' | 'request_hash'>;

/** A run's results counted by how they ended: what a run ended by the service is summarised with. */
export interface ResultCount {
  run_id: string;
  status: string;
  flaky: boolean;
  n: number;
}

const RUN_COLUMNS = raw(`id, project_id, suite, branch, commit_sha, tags, run_trigger, shard_index, shard_total, status, summary,
  started_at, finished_at, created_at, run_key, request_hash, active_at`);
const POINT_COLUMNS = raw('r.id, r.run_id, r.name, r.file, r.status, r.flaky, r.attempt, r.started_at, r.duration_ms');
const RESULT_COLUMNS = raw('id, run_id, project_id, suite, name, file, status, flaky, attempt, started_at, duration_ms, detail, result_key, request_hash');
const ARTIFACT_COLUMNS = raw('id, run_id, result_id, kind, name, step_index, attempt, content_type, size_bytes, checksum, created_at');

type Stored<T, K extends keyof T> = Omit<T, K> & { [P in K]: string | null };
/** A result row as the databases give it: flags as 0/1, the detail as JSON text. */
type StoredResult = Omit<ResultRow, 'detail' | 'flaky'> & { detail: string; flaky: number };

export class RunsRepo {
  constructor(private readonly db: Database) {}

  /** The run and its tags together: a list filtered by tag never misses a run it shows unfiltered. */
  async insertRun(row: RunRow): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO runs (${RUN_COLUMNS}) VALUES (${row.id}, ${row.project_id}, ${row.suite}, ${row.branch}, ${row.commit_sha},
        ${JSON.stringify(row.tags)}, ${row.run_trigger}, ${row.shard_index}, ${row.shard_total}, ${row.status},
        ${row.summary === null ? null : JSON.stringify(row.summary)}, ${row.started_at}, ${row.finished_at}, ${row.created_at},
        ${row.run_key}, ${row.request_hash}, ${row.active_at})`);
      const tags = [...new Set(row.tags)];
      if (tags.length) await tx.run(sql`INSERT INTO run_tags (run_id, tag) VALUES ${join(tags.map((t) => sql`(${row.id}, ${t})`), ', ')}`);
    });
  }

  async getRun(id: string): Promise<RunRow | undefined> {
    const row = await this.db.get<Stored<RunRow, 'tags' | 'summary'>>(sql`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ${id}`);
    return row && runOf(row);
  }

  async runByKey(projectId: string | null, key: string): Promise<RunRow | undefined> {
    const row = await this.db.get<Stored<RunRow, 'tags' | 'summary'>>(
      sql`SELECT ${RUN_COLUMNS} FROM runs WHERE coalesce(project_id, '') = ${projectId ?? ''} AND run_key = ${key}`,
    );
    return row && runOf(row);
  }

  /** Newest first (by when they started). */
  async listRuns(q: RunListQuery): Promise<{ rows: RunRow[]; hasMore: boolean }> {
    const where: Sql[] = [sql`coalesce(project_id, '') = ${q.projectId ?? ''}`];
    if (q.suite !== undefined) where.push(sql`suite = ${q.suite}`);
    if (q.branch !== undefined) where.push(sql`branch = ${q.branch}`);
    if (q.status !== undefined) where.push(sql`status = ${q.status}`);
    if (q.trigger !== undefined) where.push(sql`run_trigger = ${q.trigger}`);
    if (q.tag !== undefined) where.push(sql`id IN (SELECT run_id FROM run_tags WHERE tag = ${q.tag})`);
    const rows = await this.db.all<Stored<RunRow, 'tags' | 'summary'>>(
      sql`SELECT ${RUN_COLUMNS} FROM runs WHERE ${join(where, ' AND ')} ORDER BY started_at DESC, seq DESC LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit).map(runOf), hasMore: rows.length > q.limit };
  }

  /** Records the end once, at `at`; false when the run had already finished. */
  async finishRun(id: string, end: RunEnd, at: string): Promise<boolean> {
    const { changes } = await this.db.run(sql`UPDATE runs SET status = ${end.status}, summary = ${end.summary === null ? null : JSON.stringify(end.summary)},
      finished_at = ${end.finished_at}, active_at = ${at} WHERE id = ${id} AND status = 'running'`);
    return changes > 0;
  }

  /** The result and the run's activity together: a run with a result just added is never seen as idle. */
  async insertResult(row: ResultRow, at: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO run_results (${RESULT_COLUMNS}) VALUES (${row.id}, ${row.run_id}, ${row.project_id}, ${row.suite}, ${row.name},
        ${row.file}, ${row.status}, ${row.flaky}, ${row.attempt}, ${row.started_at}, ${row.duration_ms}, ${JSON.stringify(row.detail)},
        ${row.result_key}, ${row.request_hash})`);
      await tx.run(sql`UPDATE runs SET active_at = ${at} WHERE id = ${row.run_id}`);
    });
  }

  async resultByKey(runId: string, key: string): Promise<ResultRow | undefined> {
    const row = await this.db.get<StoredResult>(sql`SELECT ${RESULT_COLUMNS} FROM run_results WHERE run_id = ${runId} AND result_key = ${key}`);
    return row && resultOf(row);
  }

  async getResult(id: string): Promise<ResultRow | undefined> {
    const row = await this.db.get<StoredResult>(sql`SELECT ${RESULT_COLUMNS} FROM run_results WHERE id = ${id}`);
    return row && resultOf(row);
  }

  /** A run's results in the order they were added. */
  async resultsOf(runId: string): Promise<ResultRow[]> {
    const rows = await this.db.all<StoredResult>(
      sql`SELECT ${RESULT_COLUMNS} FROM run_results WHERE run_id = ${runId} ORDER BY seq`,
    );
    return rows.map(resultOf);
  }

  /** The artifact and the run's activity (at the artifact's creation) together. */
  async insertArtifact(row: ArtifactRow): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO run_artifacts (${ARTIFACT_COLUMNS}) VALUES (${row.id}, ${row.run_id}, ${row.result_id}, ${row.kind}, ${row.name},
        ${row.step_index}, ${row.attempt}, ${row.content_type}, ${row.size_bytes}, ${row.checksum}, ${row.created_at})`);
      await tx.run(sql`UPDATE runs SET active_at = ${row.created_at} WHERE id = ${row.run_id}`);
    });
  }

  /** The result's artifact of this name (names are unique within a result). */
  artifactNamed(resultId: string, name: string): Promise<ArtifactRow | undefined> {
    return this.db.get<ArtifactRow>(sql`SELECT ${ARTIFACT_COLUMNS} FROM run_artifacts WHERE result_id = ${resultId} AND name = ${name}`);
  }

  getArtifact(id: string): Promise<ArtifactRow | undefined> {
    return this.db.get<ArtifactRow>(sql`SELECT ${ARTIFACT_COLUMNS} FROM run_artifacts WHERE id = ${id}`);
  }

  /** A run's artifacts in upload order. */
  artifactsOfRun(runId: string): Promise<ArtifactRow[]> {
    return this.db.all<ArtifactRow>(sql`SELECT ${ARTIFACT_COLUMNS} FROM run_artifacts WHERE run_id = ${runId} ORDER BY seq`);
  }

  artifactsOfResult(resultId: string): Promise<ArtifactRow[]> {
    return this.db.all<ArtifactRow>(sql`SELECT ${ARTIFACT_COLUMNS} FROM run_artifacts WHERE result_id = ${resultId} ORDER BY seq`);
  }

  /** A scenario's newest `limit` results across runs, newest first. */
  async scenarioPoints(q: ScenarioQuery, limit: number): Promise<ResultPoint[]> {
    const rows = await this.db.all<Omit<ResultPoint, 'flaky'> & { flaky: number }>(
      sql`SELECT ${POINT_COLUMNS} FROM run_results r ${scenarioWhere(q)} ORDER BY r.started_at DESC, r.seq DESC LIMIT ${limit}`,
    );
    return rows.map((r) => ({ ...r, flaky: Boolean(r.flaky) }));
  }

  /** The scenario's newest result that did not pass, with its run's branch and commit. */
  async lastFailure(q: ScenarioQuery): Promise<(ResultRow & { branch: string | null; commit_sha: string | null }) | undefined> {
    const row = await this.db.get<StoredResult & { branch: string | null; commit_sha: string | null }>(
      sql`SELECT r.id, r.run_id, r.project_id, r.suite, r.name, r.file, r.status, r.flaky, r.attempt, r.started_at, r.duration_ms, r.detail,
        r.result_key, r.request_hash, runs.branch, runs.commit_sha FROM run_results r JOIN runs ON runs.id = r.run_id
        ${scenarioWhere(q)} AND r.status <> 'passed' ORDER BY r.started_at DESC, r.seq DESC LIMIT 1`,
    );
    return row && { ...resultOf(row), branch: row.branch, commit_sha: row.commit_sha };
  }

  /** Up to `limit` running runs idle since before `cutoff`, the longest idle first. */
  async idleRuns(cutoff: string, limit: number): Promise<{ id: string; active_at: string }[]> {
    return this.db.all(sql`SELECT id, active_at FROM runs WHERE status = 'running' AND active_at < ${cutoff} ORDER BY active_at LIMIT ${limit}`);
  }

  async resultCounts(runIds: readonly string[]): Promise<ResultCount[]> {
    const rows = await this.db.all<Omit<ResultCount, 'flaky'> & { flaky: number; n: number | string }>(
      sql`SELECT run_id, status, flaky, count(*) AS n FROM run_results WHERE run_id ${inList(runIds)} GROUP BY run_id, status, flaky`,
    );
    // PostgreSQL's count is a bigint, which its driver gives as text.
    return rows.map((r) => ({ ...r, flaky: Boolean(r.flaky), n: Number(r.n) }));
  }

  /**
   * Ends a run the service found idle: only while it is still running and still idle since before `cutoff`,
   * so a result that arrived meanwhile keeps it going. False when it did not end here.
   */
  async endIdle(id: string, cutoff: string, end: RunEnd): Promise<boolean> {
    const { changes } = await this.db.run(sql`UPDATE runs SET status = ${end.status}, summary = ${end.summary === null ? null : JSON.stringify(end.summary)},
      finished_at = ${end.finished_at} WHERE id = ${id} AND status = 'running' AND active_at < ${cutoff}`);
    return changes > 0;
  }

  /** Up to `limit` runs of any status whose last activity is before `cutoff`, the oldest first. */
  async expiredRuns(cutoff: string, limit: number): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>(sql`SELECT id FROM runs WHERE active_at < ${cutoff} ORDER BY active_at LIMIT ${limit}`);
    return rows.map((r) => r.id);
  }

  /** Deletes runs with their tags, results and artifact rows (the foreign keys cascade); how many went. */
  async deleteRuns(ids: readonly string[]): Promise<number> {
    if (!ids.length) return 0;
    return (await this.db.run(sql`DELETE FROM runs WHERE id ${inList(ids)}`)).changes;
  }
}

function scenarioWhere(q: ScenarioQuery): Sql {
  const where: Sql[] = [sql`coalesce(r.project_id, '') = ${q.projectId ?? ''}`, sql`r.suite = ${q.suite}`, sql`r.name = ${q.name}`];
  if (q.file !== undefined) where.push(sql`r.file = ${q.file}`);
  if (q.branch !== undefined) where.push(sql`r.run_id IN (SELECT id FROM runs WHERE branch = ${q.branch})`);
  return sql`WHERE ${join(where, ' AND ')}`;
}

function runOf(row: Stored<RunRow, 'tags' | 'summary'>): RunRow {
  return { ...row, tags: JSON.parse(row.tags ?? '[]') as string[], summary: row.summary === null ? null : (JSON.parse(row.summary) as RunSummaryRow) };
}

function resultOf(row: StoredResult): ResultRow {
  return { ...row, flaky: Boolean(row.flaky), detail: JSON.parse(row.detail) as unknown };
}
