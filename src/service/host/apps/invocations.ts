// Invocations: one run of a deployed action, in a worker process of its own. queued → running →
// succeeded | failed. A run ends with its action's return value or thrown error, its timeout, its worker
// dying, a cancel (PATCH failed), or its deployment stopping; whichever comes first wins, the worker is
// killed and the browsers created for the invocation are ended. Concurrent invocations are capped per
// project (`max_concurrent_invocations`), counted in memory so the check is exact under races: a create
// takes its place in the count in the same synchronous step as the check, before its first write.
import type { Invocation, InvocationCreateParams, InvocationUpdateParams } from '../../../api/schemas/apps.js';
import { newId } from '../../ids.js';
import type { InvocationListQuery, InvocationRow, InvocationsRepo } from '../../store/invocations-repo.js';
import { DomainError, conflict, invalidField } from '../errors.js';
import type { Deployments } from './deployments.js';
import type { EventLog } from '../event-log.js';
import { lookUpByIdInProject } from '../find-in-project.js';
import type { WorkerOutcome } from './worker.js';
import type { ActionWorkers, LeasedWorker } from './workers.js';

export interface InvocationsOptions {
  repo: InvocationsRepo;
  deployments: Deployments;
  workers: ActionWorkers;
  events: EventLog;
  now: () => Date;
  /** The project's `max_concurrent_invocations` (null: no cap). */
  maxConcurrent: (projectId: string | null) => number | null | Promise<number | null>;
  /** The browsers of an invocation: their ids, and how one is ended. */
  browsers: { of: (invocationId: string) => Promise<string[]>; end: (browserId: string, detail: string) => Promise<void> };
  log: { warn: (obj: object, msg: string) => void };
}

/** The async timeout when none is given; synchronous runs get the same. */
const DEFAULT_TIMEOUT_S = 900;

type Ending = { status: 'succeeded' | 'failed'; reason: string | null; output: string | null };

interface Running {
  projectId: string | null;
  deploymentId: string;
  leased?: LeasedWorker;
  /** Ends the run from outside (cancel, deployment stopped, shutdown). */
  interrupt: (ending: Ending) => void;
  done: Promise<void>;
}

export class Invocations {
  private readonly running = new Map<string, Running>();
  private closed = false;

  constructor(private readonly opts: InvocationsOptions) {}

  /** Fails what the last run of the service left unfinished: its workers died with it. */
  async recover(): Promise<void> {
    for (const row of await this.opts.repo.unfinished()) {
      await this.finish(row.id, { status: 'failed', reason: 'the service restarted while the invocation ran', output: null });
    }
  }

  /**
   * Starts an invocation; `done` settles when it ended (a synchronous create waits for it). `input` names
   * the request part (`body`).
   */
  async create(projectId: string | null, params: InvocationCreateParams, input: string): Promise<{ row: InvocationRow; done: Promise<void> }> {
    if (this.closed) throw shuttingDown();
    if (params.payload !== undefined) {
      try {
        JSON.parse(params.payload);
      } catch (err) {
        throw invalidField(`${input}.payload`, `must be JSON text (${(err as Error).message})`);
      }
    }
    if (params.async_timeout_seconds !== undefined && params.async !== true) {
      throw invalidField(`${input}.async_timeout_seconds`, 'applies only with async: true');
    }
    const live = await this.opts.deployments.liveVersion(projectId, params.app_name, params.version);
    if (!live) throw new DomainError('not_found', 'not_found', `app '${params.app_name}' version '${params.version}' is not deployed`);
    const actions = JSON.parse(live.version.actions) as { name: string }[];
    if (!actions.some((a) => a.name === params.action_name)) {
      throw new DomainError('not_found', 'not_found', `app '${params.app_name}' version '${params.version}' has no action '${params.action_name}' (it has ${actions.map((a) => a.name).join(', ')})`);
    }
    const max = await this.opts.maxConcurrent(projectId);
    // From the check to running.set nothing awaits: a concurrent create sees this one counted.
    if (this.closed) throw shuttingDown();
    this.admit(projectId, max);
    const now = this.opts.now();
    const row: InvocationRow = {
      id: newId(),
      project_id: projectId,
      deployment_id: live.version.deployment_id,
      app_name: params.app_name,
      version: params.version,
      action_name: params.action_name,
      status: 'queued',
      status_reason: null,
      payload: params.payload ?? null,
      output: null,
      started_at: now.toISOString(),
      started_ms: now.getTime(),
      finished_at: null,
    };
    let interrupt!: (ending: Ending) => void;
    const interrupted = new Promise<Ending>((resolve) => (interrupt = resolve));
    // `done` covers the whole run from here, so close() waits for a create still writing too.
    let settle!: () => void;
    const state: Running = { projectId, deploymentId: row.deployment_id, interrupt, done: new Promise<void>((resolve) => (settle = resolve)) };
    this.running.set(row.id, state);
    try {
      await this.opts.repo.insert(row);
      await this.publishState(row.id);
    } catch (err) {
      this.running.delete(row.id);
      settle();
      throw err;
    }
    const timeoutS = params.async_timeout_seconds ?? DEFAULT_TIMEOUT_S;
    void this.run(row, live.runtime, state, interrupted, timeoutS)
      .catch((err: unknown): Ending => {
        if (!(err instanceof DomainError)) this.opts.log.warn({ err, invocation: row.id }, 'invocation failed to run');
        return { status: 'failed', reason: err instanceof DomainError ? err.message : `the action could not be run: ${(err as Error).message}`, output: null };
      })
      .then((ending) => this.end(row.id, state, ending))
      .catch((err: unknown) => this.opts.log.warn({ err, invocation: row.id }, 'could not record the end of an invocation'))
      .finally(settle);
    return { row, done: state.done };
  }

  get(projectId: string | null, id: string): Promise<InvocationRow> {
    return lookUpByIdInProject(this.opts.repo, projectId, id, 'invocation');
  }

  list(q: InvocationListQuery): Promise<{ rows: InvocationRow[]; hasMore: boolean }> {
    return this.opts.repo.list(q);
  }

  /** `PATCH /invocations/{id}`: `failed` cancels a run (its worker is killed); `succeeded` ends it with `output`. */
  async update(projectId: string | null, id: string, params: InvocationUpdateParams, input: string): Promise<InvocationRow> {
    const row = await this.get(projectId, id);
    if (params.output !== undefined) {
      try {
        JSON.parse(params.output);
      } catch {
        throw invalidField(`${input}.output`, 'must be JSON text');
      }
    }
    const state = this.running.get(id);
    if (!state) throw conflict(`invocation '${id}' has already ${row.status}`);
    const reason = params.status === 'failed' ? 'cancelled by request' : null;
    state.interrupt({ status: params.status, reason, output: params.output ?? null });
    await state.done;
    return (await this.opts.repo.get(id))!;
  }

  /** For `invocation_id` on browser creates: the invocation must be this project's and still running. */
  async checkRunning(projectId: string | null, id: string, field: string): Promise<void> {
    const row = await this.opts.repo.get(id);
    if (!row || row.project_id !== projectId) throw invalidField(field, `invocation '${id}' not found`);
    if (!this.running.has(id)) throw invalidField(field, `invocation '${id}' has already ${row.status}`);
  }

  async browsers(projectId: string | null, id: string): Promise<string[]> {
    await this.get(projectId, id);
    return this.opts.browsers.of(id);
  }

  async deleteBrowsers(projectId: string | null, id: string): Promise<void> {
    await this.get(projectId, id);
    await this.endBrowsers(id, 'deleted with its invocation (DELETE /invocations/{id}/browsers)');
  }

  /** A deployment stopped: what runs of it fails. */
  deploymentStopped(deploymentId: string, reason: string): void {
    for (const state of this.running.values()) {
      if (state.deploymentId === deploymentId) state.interrupt({ status: 'failed', reason, output: null });
    }
  }

  present(row: InvocationRow): Invocation {
    const inv: Invocation = {
      id: row.id,
      app_name: row.app_name,
      action_name: row.action_name,
      version: row.version,
      status: row.status,
      started_at: row.started_at,
      finished_at: row.finished_at,
      deployment_id: row.deployment_id,
    };
    if (row.status_reason !== null) inv.status_reason = row.status_reason;
    if (row.payload !== null) inv.payload = row.payload;
    if (row.output !== null) inv.output = row.output;
    return inv;
  }

  /** Fails every run (service shutdown) and waits for them to end. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.running.values()];
    for (const state of all) state.interrupt({ status: 'failed', reason: 'the service stopped while the invocation ran', output: null });
    await Promise.allSettled(all.map((s) => s.done));
  }

  private admit(projectId: string | null, max: number | null): void {
    if (max === null || max <= 0) return;
    let count = 0;
    for (const state of this.running.values()) if (state.projectId === projectId) count++;
    if (count >= max) {
      const message = `this project runs ${count} invocations, its max_concurrent_invocations limit; wait for one to end or raise the limit (PATCH /org/projects/{id}/limits)`;
      throw new DomainError('limit', 'concurrency_limit_exceeded', message, [{ code: 'max_concurrent_invocations', message }]);
    }
  }

  private async run(row: InvocationRow, runtime: Parameters<ActionWorkers['take']>[0], state: Running, interrupted: Promise<Ending>, timeoutS: number): Promise<Ending> {
    const { events } = this.opts;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<Ending>((resolve) => {
      timer = setTimeout(() => resolve({ status: 'failed', reason: `the action did not finish within ${timeoutS} s (async_timeout_seconds) and was stopped`, output: null }), timeoutS * 1000);
    });
    try {
      const taking = this.opts.workers.take(runtime);
      const leased = await Promise.race([taking, interrupted.then(() => undefined)]);
      if (!leased) {
        void taking.then((l) => l.release(), () => {});
        return await interrupted;
      }
      state.leased = leased;
      leased.worker.listen((line) => events.log(row.id, line));
      const ready = leased.worker.ready.then(
        () => undefined,
        (err: Error): Ending => ({ status: 'failed', reason: `the app failed to load: ${err.message}`, output: null }),
      );
      const loadFailure = await Promise.race([ready, interrupted, timedOut]);
      if (loadFailure) return loadFailure;
      if (!(await this.opts.repo.markRunning(row.id))) return await interrupted;
      await this.publishState(row.id);
      const outcome = leased.worker.run({ invocation_id: row.id, app_name: row.app_name, action_name: row.action_name, payload: row.payload ?? undefined });
      return await Promise.race([outcome.then(endingOf), interrupted, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async end(id: string, state: Running, ending: Ending): Promise<void> {
    this.running.delete(id);
    await this.finish(id, ending);
    // The worker's teardown is not the caller's wait (a sync invoke answers once the run has ended); its
    // key is revoked at once. The invocation's browsers are ended before it answers.
    const released = state.leased?.release();
    released?.catch(() => {});
    await this.endBrowsers(id, `its invocation ${ending.status}`);
    if (this.closed) await released;
  }

  private async finish(id: string, ending: Ending): Promise<void> {
    if (!(await this.opts.repo.finish(id, ending.status, ending.reason, ending.output, this.opts.now()))) return;
    if (ending.status === 'failed') {
      this.opts.events.publish(id, { event: 'error', error: { code: 'invocation_failed', message: ending.reason ?? 'the invocation failed' } });
    }
    await this.publishState(id);
  }

  private async endBrowsers(id: string, detail: string): Promise<void> {
    const { browsers, log } = this.opts;
    const ids = await browsers.of(id).catch((err: unknown) => {
      log.warn({ err, invocation: id }, 'could not read the browsers of an invocation');
      return [] as string[];
    });
    await Promise.all(
      ids.map((browserId) => browsers.end(browserId, detail).catch((err: unknown) => log.warn({ err, browser: browserId }, 'could not end an invocation browser'))),
    );
  }

  private async publishState(id: string): Promise<void> {
    const row = await this.opts.repo.get(id);
    if (!row) return;
    const { deployment_id: _d, ...invocation } = this.present(row);
    this.opts.events.publish(id, { event: 'invocation_state', invocation });
  }
}

/** Whether an invocation status ends its event stream. */
export function invocationSettled(status: string): boolean {
  return status === 'succeeded' || status === 'failed';
}

function shuttingDown(): DomainError {
  return new DomainError('unavailable', 'shutting_down', 'the service is shutting down');
}

function endingOf(outcome: WorkerOutcome): Ending {
  if (outcome.kind === 'exited') return { status: 'failed', reason: `the action's process ended before the action returned (${outcome.detail})`, output: null };
  return outcome.ok ? { status: 'succeeded', reason: null, output: outcome.output } : { status: 'failed', reason: outcome.error, output: null };
}
