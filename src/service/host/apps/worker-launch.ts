// The command line of an action worker. Sandboxed, it runs as `kernel` in bubblewrap like a session's
// processes: its own home and /tmp (a view of its own, removed with it), the deployment's folder at /app
// read-only, the service's playwright-core read-only under /opt/bcs, and nothing else of the host (no data
// dir, no other deployment, no session). Without a sandbox, a root service refuses to run app code at all
// (it would run as root or as a uid that cannot read the deployment); a non-root service runs it as itself.
import { realpathSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { newId } from '../../ids.js';
import { unavailable } from '../errors.js';
import { HOME_DIR, HostView, TMP_DIR, handOverView } from '../fs/index.js';
import { DEFAULT_PATH, SANDBOX_TOOLS, TOOLS_DIRS, nodeInSandbox, sandboxCommand, type Sandbox } from '../process/index.js';
import { BUNDLE_FILE, servicePlaywrightDir } from './bundle.js';
import type { WorkerCommand } from './worker.js';

/** Where a deployment's folder appears in the sandbox. */
const APP_DIR = '/app';
/** Where the service's runtime packages appear in the sandbox. */
const RUNTIME_DIR = SANDBOX_TOOLS;
/** A worker's V8 heap limit: runaway code fails fast instead of pressing on the host's memory. */
const HEAP_MB = 1024;

export interface WorkerLaunchOptions {
  sandbox: Sandbox | null;
  /** Where the workers' own folders go (<dataDir>/app-workers). */
  dir: string;
  serviceIsRoot: boolean;
}

export interface PreparedWorker {
  cmd: WorkerCommand;
  /** Removes the worker's folder (after it exited). */
  cleanup: () => Promise<void>;
}

export class WorkerLauncher {
  private readonly node = realpathSync(process.execPath);
  private readonly playwrightDir = servicePlaywrightDir();

  constructor(private readonly opts: WorkerLaunchOptions) {}

  /** Why app code cannot run here, or null when it can. */
  get unavailableReason(): string | null {
    if (this.opts.sandbox || !this.opts.serviceIsRoot) return null;
    return 'app code never runs as root, and this service runs as root without the process sandbox: install bubblewrap, or run the service as another user';
  }

  /** Prepares a worker for the deployment in `deploymentDir`; `env` is the deployment's plus the SDK's. */
  async prepare(deploymentDir: string, env: Record<string, string>): Promise<PreparedWorker> {
    const reason = this.unavailableReason;
    if (reason) throw unavailable('apps_unavailable', reason);
    const nodeArgs = [`--max-old-space-size=${HEAP_MB}`, '--enable-source-maps'];
    const sandbox = this.opts.sandbox;
    if (!sandbox) {
      const cmd = {
        file: this.node,
        args: [...nodeArgs, join(deploymentDir, BUNDLE_FILE)],
        env: { PATH: DEFAULT_PATH, LANG: 'C.UTF-8', HOME: process.env.HOME ?? '/', ...env, BCS_RUNTIME_DIR: dirname(this.playwrightDir) },
        cwd: join(deploymentDir, 'source'),
      };
      return { cmd, cleanup: async () => {} };
    }
    const root = join(this.opts.dir, newId(12));
    await mkdir(root, { recursive: true, mode: 0o700 });
    const view = new HostView(root);
    await view.createLayout();
    await handOverView(view, { owner: sandbox.kernel, sandboxed: true });
    const { path: node, binds: nodeBinds } = nodeInSandbox(this.node);
    const binds = [...TOOLS_DIRS, '--ro-bind', this.playwrightDir, `${RUNTIME_DIR}/playwright-core`, '--ro-bind', deploymentDir, APP_DIR, ...nodeBinds];
    const identity = sandbox.kernel;
    const inner = {
      PATH: DEFAULT_PATH,
      HOME: HOME_DIR,
      TMPDIR: TMP_DIR,
      USER: identity.name,
      LOGNAME: identity.name,
      LANG: 'C.UTF-8',
      ...env,
      BCS_RUNTIME_DIR: RUNTIME_DIR,
      // bwrap clears the environment, so the IPC channel's fd (3, the fourth stdio entry) is named again.
      NODE_CHANNEL_FD: '3',
      NODE_CHANNEL_SERIALIZATION_MODE: 'json',
    };
    const withBinds = { ...sandbox, systemArgs: [...sandbox.systemArgs, ...binds] };
    const cmd = sandboxCommand(withBinds, {
      view,
      cwd: `${APP_DIR}/source`,
      env: inner,
      identity,
      newSession: true,
      command: node,
      args: [...nodeArgs, `${APP_DIR}/${BUNDLE_FILE}`],
    });
    return { cmd: { ...cmd, env: { PATH: DEFAULT_PATH }, cwd: '/' }, cleanup: () => rm(root, { recursive: true, force: true }) };
  }
}
