// Runs kept by the service: a runner creates one, adds each scenario's result as it finishes and uploads the
// result's artifacts, then finishes it; a finished run takes nothing more, but a retry of what it took is
// answered as the first time (retried.ts). Everything is addressed within the caller's project. Answers' URLs
// start with the origin the edge passes in (this code speaks no HTTP).
import type { ArtifactUploadParams, Run, RunArtifact, RunCreateParams, RunFinishParams, RunResult, RunResultParams, ScenarioHistory, ScenarioHistoryParams } from '../../../api/types.js';
import { newId } from '../../ids.js';
import type { ArtifactRow, ResultRow, RunListQuery, RunRow, RunsRepo } from '../../store/runs-repo.js';
import { UniqueViolation } from '../../store/unique.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { lookUpByIdInProject } from '../find-in-project.js';
import { ArtifactFiles, contentTypeOf } from './artifact-files.js';
import { detailOf, type StoredDetail } from './result-detail.js';
import { requestHash, sameArtifact, sameEnd, sameRequest } from './retried.js';
import { scenarioHistory, type Failure } from './run-history.js';

export interface RunsDeps {
  repo: RunsRepo;
  files: ArtifactFiles;
  now: () => Date;
}

export class Runs {
  constructor(private readonly deps: RunsDeps) {}

  async create(projectId: string | null, p: RunCreateParams, field: string): Promise<RunRow> {
    if (p.shard && p.shard.index > p.shard.total) throw invalidField(`${field}.shard.index`, `must be at most shard.total (${p.shard.total})`);
    const hash = p.key === undefined ? null : requestHash(p);
    const made = async () => (p.key === undefined ? undefined : this.deps.repo.runByKey(projectId, p.key));
    const earlier = await made();
    if (earlier) return sameRequest(earlier, hash!, 'run', p.key!);
    const at = this.deps.now().toISOString();
    const row: RunRow = {
      id: newId(),
      project_id: projectId,
      suite: p.suite,
      branch: p.branch ?? null,
      commit_sha: p.commit ?? null,
      tags: p.tags ?? [],
      run_trigger: p.trigger,
      shard_index: p.shard?.index ?? null,
      shard_total: p.shard?.total ?? null,
      status: 'running',
      summary: null,
      started_at: instant(p.started_at, `${field}.started_at`),
      finished_at: null,
      created_at: at,
      run_key: p.key ?? null,
      request_hash: hash,
      active_at: at,
    };
    try {
      await this.deps.repo.insertRun(row);
    } catch (err) {
      // The same create, twice at once: the one that lost answers what the other made.
      const other = err instanceof UniqueViolation && (await made());
      if (other) return sameRequest(other, hash!, 'run', p.key!);
      throw err;
    }
    return row;
  }

  find(projectId: string | null, id: string): Promise<RunRow> {
    return lookUpByIdInProject({ get: (runId) => this.deps.repo.getRun(runId) }, projectId, id, 'run');
  }

  list(q: RunListQuery): Promise<{ rows: RunRow[]; hasMore: boolean }> {
    return this.deps.repo.listRuns(q);
  }

  /** A result sent again with its key is answered, even once the run has finished: the run took it before. */
  async addResult(run: RunRow, p: RunResultParams, field: string): Promise<ResultRow<StoredDetail>> {
    const hash = p.key === undefined ? null : requestHash(p);
    const made = async () => (p.key === undefined ? undefined : ((await this.deps.repo.resultByKey(run.id, p.key)) as ResultRow<StoredDetail> | undefined));
    const earlier = await made();
    if (earlier) return sameRequest(earlier, hash!, 'result', p.key!);
    open(run);
    const row: ResultRow<StoredDetail> = {
      id: newId(),
      run_id: run.id,
      project_id: run.project_id,
      suite: run.suite,
      name: p.name,
      file: p.file,
      status: p.status,
      flaky: p.flaky ?? false,
      attempt: p.attempt ?? 1,
      started_at: instant(p.started_at, `${field}.started_at`),
      duration_ms: p.duration_ms,
      detail: detailOf(p),
      result_key: p.key ?? null,
      request_hash: hash,
    };
    try {
      await this.deps.repo.insertResult(row, this.deps.now().toISOString());
    } catch (err) {
      const other = err instanceof UniqueViolation && (await made());
      if (other) return sameRequest(other, hash!, 'result', p.key!);
      throw err;
    }
    return row;
  }

  /**
   * The body is the file; it is written before the row, so a listed artifact always has its bytes. A name is
   * unique within its result: the same file sent again answers the stored one (`stored: false`).
   */
  async addArtifact(
    run: RunRow,
    resultId: string,
    q: ArtifactUploadParams,
    body: NodeJS.ReadableStream,
    field: string,
  ): Promise<{ row: ArtifactRow; stored: boolean }> {
    const result = await this.deps.repo.getResult(resultId);
    if (!result || result.run_id !== run.id) throw notFound('result', resultId);
    const earlier = await this.deps.repo.artifactNamed(resultId, q.name);
    if (!earlier) open(run);
    const id = newId();
    const { size, checksum } = await this.deps.files.write(run.id, id, body, field);
    const row: ArtifactRow = {
      id,
      run_id: run.id,
      result_id: resultId,
      kind: q.kind,
      name: q.name,
      step_index: q.step_index ?? null,
      attempt: q.attempt ?? result.attempt,
      content_type: contentTypeOf(q.name),
      size_bytes: size,
      checksum,
      created_at: this.deps.now().toISOString(),
    };
    if (earlier) {
      // A retry's bytes were written only to be compared.
      await this.deps.files.remove(run.id, id);
      return { row: sameArtifact(earlier, row), stored: false };
    }
    try {
      await this.deps.repo.insertArtifact(row);
    } catch (err) {
      await this.deps.files.remove(run.id, id);
      const other = err instanceof UniqueViolation && (await this.deps.repo.artifactNamed(resultId, q.name));
      if (other) return { row: sameArtifact(other, row), stored: false };
      // The run was deleted while its file came in: the upload finds nothing, as after the delete.
      if (!(await this.deps.repo.getResult(resultId))) {
        await this.deps.files.removeRun(run.id).catch(() => {});
        throw notFound('result', resultId);
      }
      throw err;
    }
    return { row, stored: true };
  }

  /** Once; the same end sent again (a retry) answers the run as it ended, another end is a 409. */
  async finish(run: RunRow, p: RunFinishParams, field: string): Promise<RunRow> {
    const now = this.deps.now().toISOString();
    const given = p.finished_at === undefined ? undefined : instant(p.finished_at, `${field}.finished_at`);
    const end = { status: p.status, summary: p.summary ?? null, finished_at: given ?? now };
    const again = (stored: RunRow) => {
      if (sameEnd(stored, { ...end, finished_at: given })) return stored;
      throw endedOtherwise(stored);
    };
    if (run.status !== 'running') return again(run);
    if (await this.deps.repo.finishRun(run.id, end, now)) return { ...run, ...end, active_at: now };
    // Ended meanwhile: by a retry of this finish, another one, or the service finding it idle.
    const stored = await this.deps.repo.getRun(run.id);
    if (!stored) throw notFound('run', run.id);
    return again(stored);
  }

  /**
   * Files first: a delete cut off between the two leaves rows whose downloads are 404s, which the next delete
   * (or retention) ends; the other order would leave files that nothing names.
   */
  async delete(run: RunRow): Promise<void> {
    await this.deps.files.removeRun(run.id);
    await this.deps.repo.deleteRuns([run.id]);
  }

  async artifact(run: RunRow, artifactId: string): Promise<{ row: ArtifactRow; path: string }> {
    const row = await this.deps.repo.getArtifact(artifactId);
    if (!row || row.run_id !== run.id) throw notFound('artifact', artifactId);
    return { row, path: this.deps.files.path(run.id, row.id) };
  }

  /** The run's results with their artifacts, in the order they were added. */
  async results(run: RunRow, origin: string): Promise<RunResult[]> {
    const [results, artifacts] = await Promise.all([this.deps.repo.resultsOf(run.id), this.deps.repo.artifactsOfRun(run.id)]);
    return results.map((r) => this.presentResult(r as ResultRow<StoredDetail>, artifacts.filter((a) => a.result_id === r.id), origin));
  }

  async history(projectId: string | null, q: ScenarioHistoryParams & { limit: number }, origin: string): Promise<ScenarioHistory> {
    const which = { projectId, suite: q.suite, name: q.name, file: q.file, branch: q.branch };
    const [points, failure] = await Promise.all([this.deps.repo.scenarioPoints(which, q.limit), this.deps.repo.lastFailure(which)]);
    const artifacts = failure ? await this.deps.repo.artifactsOfResult(failure.id) : [];
    return scenarioHistory(q, points, failure && { row: failure as Failure, artifacts, url: (a) => artifactUrl(origin, a) });
  }

  presentRun(row: RunRow): Run {
    return {
      id: row.id,
      suite: row.suite,
      branch: row.branch,
      commit: row.commit_sha,
      tags: row.tags,
      trigger: row.run_trigger as Run['trigger'],
      shard: row.shard_index === null || row.shard_total === null ? null : { index: row.shard_index, total: row.shard_total },
      status: row.status as Run['status'],
      summary: row.summary,
      started_at: row.started_at,
      finished_at: row.finished_at,
      created_at: row.created_at,
      ...(row.run_key === null ? {} : { key: row.run_key }),
    };
  }

  presentResult(row: ResultRow<StoredDetail>, artifacts: ArtifactRow[], origin: string): RunResult {
    return {
      id: row.id,
      run_id: row.run_id,
      name: row.name,
      file: row.file,
      status: row.status as RunResult['status'],
      flaky: row.flaky,
      attempt: row.attempt,
      started_at: row.started_at,
      duration_ms: row.duration_ms,
      ...(row.result_key === null ? {} : { key: row.result_key }),
      ...row.detail,
      tags: row.detail.tags ?? [],
      previous_attempts: row.detail.previous_attempts ?? [],
      artifacts: artifacts.map((a) => this.presentArtifact(a, origin)),
    };
  }

  presentArtifact(row: ArtifactRow, origin: string): RunArtifact {
    return {
      id: row.id,
      result_id: row.result_id,
      kind: row.kind as RunArtifact['kind'],
      name: row.name,
      step_index: row.step_index,
      attempt: row.attempt,
      content_type: row.content_type,
      size_bytes: row.size_bytes,
      url: artifactUrl(origin, row),
    };
  }
}

const artifactUrl = (origin: string, a: ArtifactRow) => `${origin}/runs/${a.run_id}/artifacts/${a.id}`;

/** A finished run is complete: what comes after its end belongs to no run. */
function open(run: RunRow): void {
  if (run.status !== 'running') throw finished(run);
}

const finished = (run: RunRow) => conflict(`run '${run.id}' is finished (${run.status}); it takes no more results or artifacts`);

const endedOtherwise = (run: RunRow) =>
  conflict(
    `run '${run.id}' is finished (${run.status}, summary ${JSON.stringify(run.summary)}, at ${run.finished_at}); ` +
      'finishing it again is answered only with the same status and summary (and finished_at, when given): a retry, not another end',
  );

/** A wire instant as the store keeps it: UTC with milliseconds, so the text orders as the time does. */
function instant(text: string, field: string): string {
  const ms = Date.parse(text);
  // Date.parse rolls 2026-02-30 over to March 2: the day as written must exist.
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (!Number.isFinite(ms) || new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d) throw invalidField(field, 'is not a real date and time');
  return new Date(ms).toISOString();
}
