// Deployments: an uploaded zip becomes a built bundle whose apps and actions are live for invocations.
// queued → in_progress (unpack, install, bundle, load in a worker to read the app registry) → running,
// or failed with the reason; stopped after DELETE or when a forced deployment took its versions over.
// Every step is a `log` event and every state change a `deployment_state` event on the deployment's stream.
import type { Multipart } from '@fastify/multipart';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { REGION, type AppVersion, type Deployment, type DeploymentCreateParams } from '../../../api/schemas/apps.js';
import { newId } from '../../ids.js';
import type { SecretsBox } from '../../secrets-box.js';
import type { AppVersionRow, DeploymentRow, DeploymentsRepo, DeploymentListQuery, AppListQuery } from '../../store/deployments-repo.js';
import { UniqueViolation } from '../../store/unique.js';
import { DomainError, invalidField } from '../errors.js';
import { BuildError, buildDeployment } from './build.js';
import { checkParams, readDeployParts } from './deploy-request.js';
import type { EventLog } from '../event-log.js';
import { lookUpByIdInProject } from '../find-in-project.js';
import type { DiscoveredApp } from './worker.js';
import type { ActionWorkers, DeploymentRuntime } from './workers.js';

export interface DeploymentsOptions {
  repo: DeploymentsRepo;
  events: EventLog;
  workers: ActionWorkers;
  secrets: SecretsBox;
  /** <dataDir>/deployments */
  dir: string;
  now: () => Date;
  log: { warn: (obj: object, msg: string) => void };
  /** Stops what runs of a deployment that stopped (its invocations). */
  onStopped?: (deploymentId: string, reason: string) => void;
}

const DEFAULT_VERSION = 'latest';
/** How long an app may take to load in its worker before the deployment fails. */
const LOAD_TIMEOUT_MS = 60_000;

export class Deployments {
  private readonly building = new Map<string, Promise<void>>();

  constructor(private readonly opts: DeploymentsOptions) {}

  /** Marks builds the last run left unfinished as failed; running deployments need nothing (bundles are on disk). */
  async recover(): Promise<void> {
    await mkdir(this.opts.dir, { recursive: true, mode: 0o700 });
    for (const status of ['queued', 'in_progress'] as const) {
      for (const row of await this.opts.repo.withStatus(status)) await this.fail(row.id, 'the service restarted while the deployment was being built; deploy again');
    }
  }

  /** `POST /deployments` with a multipart body; `input` names the request part (`body`). */
  async createFromParts(projectId: string | null, parts: AsyncIterable<Multipart>, input: string): Promise<DeploymentRow> {
    const id = newId();
    const dir = join(this.opts.dir, id);
    await mkdir(dir, { recursive: true, mode: 0o755 });
    try {
      const req = await readDeployParts(parts, dir, input);
      if (req.params.source) throw githubUnavailable(input);
      if (!req.zip) throw invalidField(`${input}.file`, 'is required: a zip of the app folder (or a `source`)');
      const row = await this.insert(id, projectId, req.params, req.zip.checksum);
      this.startBuild(row, req.params, join(dir, 'upload.zip'));
      return row;
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** `POST /deployments` with a JSON body: only a GitHub source could come that way, and this host cannot fetch it. */
  createFromJson(body: unknown, input: string): never {
    const params = checkParams(body ?? {}, input);
    if (params.source) throw githubUnavailable(input);
    throw invalidField(`${input}.file`, 'is required: send the zip as multipart/form-data');
  }

  get(projectId: string | null, id: string): Promise<DeploymentRow> {
    return lookUpByIdInProject(this.opts.repo, projectId, id, 'deployment');
  }

  list(q: DeploymentListQuery): Promise<{ rows: DeploymentRow[]; hasMore: boolean }> {
    return this.opts.repo.list(q);
  }

  listApps(q: AppListQuery): Promise<{ rows: AppVersionRow[]; hasMore: boolean }> {
    return this.opts.repo.listApps(q);
  }

  /** `DELETE /deployments/{id}`: stops it (terminal ones stay as they are). */
  async stop(row: DeploymentRow): Promise<void> {
    if (row.status === 'stopped' || row.status === 'failed') return;
    // A build that failed or a stop that came first meanwhile has already done the rest.
    if (!(await this.opts.repo.stop(row.id, 'stopped', 'stopped by request', this.opts.now()))) return;
    await this.stopped(row.id, 'the deployment was stopped');
  }

  /** The live version of an app in the project, with the deployment that runs it. */
  async liveVersion(projectId: string | null, appName: string, version: string): Promise<{ version: AppVersionRow; runtime: DeploymentRuntime } | undefined> {
    const v = await this.opts.repo.liveVersion(projectId, appName, version);
    const dep = v && (await this.opts.repo.get(v.deployment_id));
    if (!v || !dep) return undefined;
    return { version: v, runtime: this.runtime(dep) };
  }

  present(row: DeploymentRow): Deployment {
    const d: Deployment = {
      id: row.id,
      created_at: row.created_at,
      updated_at: row.updated_at,
      region: REGION,
      status: row.status,
      entrypoint_rel_path: row.entrypoint_rel_path ?? undefined,
      env_vars: redacted(this.env(row)),
      source_type: 'file',
      source_checksum: row.source_checksum,
      version: row.version,
    };
    if (row.status_reason) d.status_reason = row.status_reason;
    if (row.app_name) d.app_name = row.app_name;
    return d;
  }

  async presentApp(v: AppVersionRow): Promise<AppVersion> {
    const dep = await this.opts.repo.get(v.deployment_id);
    return {
      id: v.id,
      app_name: v.app_name,
      version: v.version,
      region: REGION,
      deployment: v.deployment_id,
      actions: JSON.parse(v.actions) as { name: string }[],
      env_vars: dep ? redacted(this.env(dep)) : {},
    };
  }

  /** Waits for builds in progress (service shutdown). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.building.values()]);
  }

  private async insert(id: string, projectId: string | null, params: DeploymentCreateParams, checksum: string): Promise<DeploymentRow> {
    const row: DeploymentRow = {
      id,
      project_id: projectId,
      status: 'queued',
      status_reason: null,
      entrypoint_rel_path: params.entrypoint_rel_path ?? null,
      env_vars: this.opts.secrets.seal(JSON.stringify(params.env_vars ?? {}), `deployment:${id}:env`),
      version: params.version ?? DEFAULT_VERSION,
      app_name: null,
      source_checksum: checksum,
      created_at: this.opts.now().toISOString(),
      updated_at: null,
    };
    await this.opts.repo.insert(row);
    await this.publishState(id);
    return row;
  }

  private startBuild(row: DeploymentRow, params: DeploymentCreateParams, zipPath: string): void {
    const done = this.build(row, params, zipPath)
      .catch((err: unknown) => {
        const reason = err instanceof BuildError || err instanceof DomainError ? err.message : `the build failed: ${(err as Error).message}`;
        if (!(err instanceof BuildError || err instanceof DomainError)) this.opts.log.warn({ err, deployment: row.id }, 'deployment build failed');
        return this.fail(row.id, reason);
      })
      .catch((err: unknown) => this.opts.log.warn({ err, deployment: row.id }, 'could not record a failed deployment build'))
      .finally(() => {
        this.building.delete(row.id);
        void rm(zipPath, { force: true });
      });
    this.building.set(row.id, done);
  }

  private async build(row: DeploymentRow, params: DeploymentCreateParams, zipPath: string): Promise<void> {
    const { events, repo } = this.opts;
    const log = (line: string) => events.log(row.id, line);
    // Yields first, so the create answers `queued` before the work starts.
    await new Promise((resolve) => setImmediate(resolve));
    if (!(await this.setStatus(row.id, 'in_progress'))) return;
    const dir = join(this.opts.dir, row.id);
    const entrypoint = await buildDeployment({ zipPath, dir, entrypoint: params.entrypoint_rel_path, log });
    if (!params.entrypoint_rel_path) await repo.setEntrypoint(row.id, entrypoint);
    log('loading the app to read its actions');
    const runtime = this.runtime((await repo.get(row.id))!);
    const leased = await this.opts.workers.start(runtime);
    leased.worker.listen((line) => log(line));
    let apps: DiscoveredApp[];
    try {
      apps = await withTimeout(leased.worker.ready, LOAD_TIMEOUT_MS, `the app did not finish loading within ${LOAD_TIMEOUT_MS / 1000} s`);
      checkApps(apps);
    } catch (err) {
      await leased.release();
      throw new BuildError((err as Error).message);
    }
    let live: boolean;
    try {
      live = await this.goLive(row, apps, params.force ?? false);
    } catch (err) {
      await leased.release();
      throw err;
    }
    if (!live) return void (await leased.release());
    this.opts.workers.keep(runtime, leased);
  }

  /**
   * Makes the apps live (false when the deployment stopped or failed meanwhile). Who holds a version is
   * decided in the store's transaction, so two builds of one version cannot both go live.
   */
  private async goLive(row: DeploymentRow, apps: DiscoveredApp[], force: boolean): Promise<boolean> {
    const { repo, events, now } = this.opts;
    const versions: AppVersionRow[] = apps.map((app) => ({
      id: newId(),
      project_id: row.project_id,
      deployment_id: row.id,
      app_name: app.name,
      version: row.version,
      actions: JSON.stringify(app.actions.map((a) => ({ name: a.name }))),
      live: 1,
    }));
    let result;
    try {
      result = await repo.goLive(row.id, versions, { force, reason: `replaced by deployment ${row.id}`, at: now() });
    } catch (err) {
      if (!(err instanceof UniqueViolation)) throw err;
      // The store serializes goLive, so this is another writer's doing; still the build's failure, said plainly.
      const names = apps.map((a) => `'${a.name}'`).join(', ');
      throw new BuildError(`version '${row.version}' of app ${names} went live in another deployment while this one was being built; deploy again${force ? '' : ' with force to replace it'}, or give another version`, { cause: err });
    }
    if (result.kind === 'not_building') return false;
    if (result.kind === 'held') {
      const { app_name: app, deployment_id: holder } = result.held;
      throw new BuildError(`version '${row.version}' of app '${app}' is already deployed (deployment ${holder}); deploy with force to replace it, or give another version`);
    }
    for (const old of result.replaced) await this.stopped(old, `the deployment was replaced by ${row.id}`);
    for (const v of versions) {
      const { env_vars: _omitted, deployment: _d, ...summary } = await this.presentApp(v);
      events.publish(row.id, { event: 'app_version_summary', ...summary });
    }
    await this.publishState(row.id);
    return true;
  }

  /** queued → `status`; false when it is queued no more (stopped before its build began). */
  private async setStatus(id: string, status: 'in_progress'): Promise<boolean> {
    if (!(await this.opts.repo.transition(id, 'queued', status, null, this.opts.now()))) return false;
    await this.publishState(id);
    return true;
  }

  private async fail(id: string, reason: string): Promise<void> {
    // Nothing when it had already ended: the first end wins, in the store.
    if (!(await this.opts.repo.stop(id, 'failed', reason, this.opts.now()))) return;
    this.opts.events.publish(id, { event: 'error', error: { code: 'deployment_failed', message: reason } });
    await this.publishState(id);
    void this.removeFiles(id);
  }

  /** A deployment stopped (by request, or replaced): its spare goes, its runs fail, its files are removed. */
  private async stopped(id: string, reason: string): Promise<void> {
    this.opts.workers.drop(id);
    await this.publishState(id);
    this.opts.onStopped?.(id, reason);
    void this.removeFiles(id);
  }

  /** Only the record stays of a deployment that no longer runs. */
  private async removeFiles(id: string): Promise<void> {
    // A build still writing there finishes first (it checks the status before going live).
    await this.building.get(id)?.catch(() => {});
    await rm(join(this.opts.dir, id), { recursive: true, force: true }).catch((err: unknown) => this.opts.log.warn({ err, deployment: id }, 'could not remove a deployment folder'));
  }

  private async publishState(id: string): Promise<void> {
    const row = await this.opts.repo.get(id);
    if (row) this.opts.events.publish(id, { event: 'deployment_state', deployment: this.present(row) });
  }

  private runtime(row: DeploymentRow): DeploymentRuntime {
    return { id: row.id, projectId: row.project_id, dir: join(this.opts.dir, row.id), env: this.env(row) };
  }

  private env(row: DeploymentRow): Record<string, string> {
    return JSON.parse(this.opts.secrets.open(row.env_vars, `deployment:${row.id}:env`)) as Record<string, string>;
  }
}

/** Whether a deployment status ends its event stream. */
export function deploymentSettled(status: string): boolean {
  return status === 'running' || status === 'failed' || status === 'stopped';
}

function checkApps(apps: DiscoveredApp[]): void {
  if (apps.length === 0) throw new Error('the entrypoint defines no app: create one with kernel.app(name) (or new KernelApp(name)) from @onkernel/sdk');
  const twice = apps.find((a, i) => apps.findIndex((b) => b.name === a.name) !== i);
  if (twice) throw new Error(`the entrypoint defines app '${twice.name}' twice: give each app a name of its own`);
  const empty = apps.find((a) => a.actions.length === 0);
  if (empty) throw new Error(`app '${empty.name}' defines no action: add one with app.action(name, handler)`);
}

/** Env var values are never shown, as on the hosted service for API-key callers. */
function redacted(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(env).map((k) => [k, '']));
}

function githubUnavailable(input: string): DomainError {
  return invalidField(`${input}.source`, 'this service cannot fetch sources from GitHub (it has no route to it); upload a zip of the app folder as `file` instead');
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
