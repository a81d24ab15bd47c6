// Action workers per deployment. Loading an app (Node, the bundle, playwright-core) takes hundreds of
// milliseconds, so each running deployment keeps one loaded spare: an invocation takes it and a new spare
// starts loading behind it. Each invocation still gets a process of its own. A spare nobody took for
// SPARE_IDLE_MS is stopped (it holds memory); the next invocation then pays the load.
import type { AppKeys } from './keys.js';
import { ActionWorker } from './worker.js';
import type { WorkerLauncher } from './worker-launch.js';

export interface DeploymentRuntime {
  id: string;
  projectId: string | null;
  /** The deployment's folder (bundle.mjs, source/). */
  dir: string;
  env: Record<string, string>;
}

/** A worker and what goes with it: its API key and its folder. */
export interface LeasedWorker {
  worker: ActionWorker;
  /** Kills the worker, revokes its key and removes its folder. */
  release(): Promise<void>;
}

export interface WorkersOptions {
  launcher: WorkerLauncher;
  keys: AppKeys;
  /** The service's own base URL, given to the SDK in the worker (known once the service listens). */
  baseUrl: () => string;
  spareIdleMs?: number;
}

const SPARE_IDLE_MS = 10 * 60_000;

interface Spare {
  leased: Promise<LeasedWorker>;
  timer: NodeJS.Timeout;
}

export class ActionWorkers {
  private readonly spares = new Map<string, Spare>();
  private readonly live = new Set<LeasedWorker>();
  private closed = false;

  constructor(private readonly opts: WorkersOptions) {}

  /** Starts a worker for `dep` (it loads in the background: await `worker.ready`). */
  async start(dep: DeploymentRuntime): Promise<LeasedWorker> {
    const { key, revoke } = this.opts.keys.issue(dep.projectId, `app-worker:${dep.id}`);
    const env = { ...dep.env, KERNEL_BASE_URL: this.opts.baseUrl(), KERNEL_API_KEY: key };
    let prepared;
    try {
      prepared = await this.opts.launcher.prepare(dep.dir, env);
    } catch (err) {
      revoke();
      throw err;
    }
    const worker = new ActionWorker(prepared.cmd, () => {
      revoke();
      void prepared.cleanup();
    });
    const leased: LeasedWorker = {
      worker,
      release: async () => {
        this.live.delete(leased);
        revoke();
        await worker.kill();
      },
    };
    this.live.add(leased);
    if (this.closed) await leased.release();
    return leased;
  }

  /** Keeps `leased` (loaded for `dep`) as the deployment's spare, replacing any other. */
  keep(dep: DeploymentRuntime, leased: LeasedWorker): void {
    this.drop(dep.id);
    if (this.closed) return void leased.release();
    const timer = setTimeout(() => this.drop(dep.id), this.opts.spareIdleMs ?? SPARE_IDLE_MS);
    timer.unref();
    this.spares.set(dep.id, { leased: Promise.resolve(leased), timer });
  }

  /** A worker for one invocation of `dep`: the spare when there is a usable one; a new spare starts behind it. */
  async take(dep: DeploymentRuntime): Promise<LeasedWorker> {
    const spare = this.spares.get(dep.id);
    this.spares.delete(dep.id);
    if (spare) clearTimeout(spare.timer);
    let leased = spare ? await spare.leased.catch(() => undefined) : undefined;
    if (leased && (!leased.worker.alive || leased.worker.used)) {
      await leased.release();
      leased = undefined;
    }
    leased ??= await this.start(dep);
    leased.worker.used = true;
    if (!this.closed) {
      // Started after this turn, so the fork does not stand between the taken worker and its invocation.
      const next = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.start(dep));
      next.catch(() => {});
      const timer = setTimeout(() => this.drop(dep.id), this.opts.spareIdleMs ?? SPARE_IDLE_MS);
      timer.unref();
      this.spares.set(dep.id, { leased: next, timer });
    }
    return leased;
  }

  /** Stops the deployment's spare. */
  drop(deploymentId: string): void {
    const spare = this.spares.get(deploymentId);
    if (!spare) return;
    this.spares.delete(deploymentId);
    clearTimeout(spare.timer);
    void spare.leased.then((l) => l.release()).catch(() => {});
  }

  /** Kills every worker (service shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    for (const id of [...this.spares.keys()]) this.drop(id);
    await Promise.all([...this.live].map((l) => l.release()));
  }
}
