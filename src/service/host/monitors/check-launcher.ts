// The command that runs one check: `bcs run FILE` of the runner package the service was given, against this
// service (its browsers, its /runs), with a short-lived key of the suite's project. The service never imports
// the runner: a check is a process. Sandboxed, it runs as `kernel` in bubblewrap as app workers do: its own
// home and /tmp, the deployed folder read-only, the runner package read-only, nothing else of the host (no
// data dir, no other suite, no session's files). Without a sandbox, a root service refuses to run checks; a
// non-root one runs them as itself with an environment of only what the check needs.
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { newId } from '../../ids.js';
import { unavailable } from '../errors.js';
import { HOME_DIR, HostView, TMP_DIR, handOverView } from '../fs/index.js';
import { DEFAULT_PATH, TOOLS_DIRS, inSandboxSystem, nodeInSandbox, sandboxCommand, type Sandbox } from '../process/index.js';

const CHECK_DIR = '/check';

/** Whether one of two absolute paths is the other or inside it. */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * Where the deployed folder is seen inside: /check, unless a folder bound at its own path (the package, its
 * node_modules) is there or under it; binding the suite over it would hide the runner (a checkout in /check/...).
 */
export function checkDirFor(bound: string[]): string {
  let dir = CHECK_DIR;
  for (let n = 1; bound.some((f) => overlaps(f, dir)); n += 1) dir = `${CHECK_DIR}-${n}`;
  return dir;
}
const HEAP_MB = 1024;

export interface CheckLauncherOptions {
  sandbox: Sandbox | null;
  /** Where each run's own folder goes (<dataDir>/monitor-runs). */
  dir: string;
  serviceIsRoot: boolean;
  /** The runner package's root (dist/runner/cli/cli.js under it); undefined: this service runs no checks. */
  packageDir: string | undefined;
}

export interface CheckInvocation {
  /** The deployed folder (the check's working directory). */
  bundleDir: string;
  /** The scenario file, relative to it. */
  file: string;
  /** `bcs run` flags after the file. */
  flags: string[];
  env: Record<string, string>;
}

export interface CheckCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  cleanup: () => Promise<void>;
}

/** Folders the sandbox has already, whose modes must stay as they are (a view's /tmp is the user's). */
const SANDBOX_DIRS = new Set(['/tmp', '/home', HOME_DIR]);

/**
 * Binds a host folder read-only at its own path. The folders above it are made first, traversable: bwrap would
 * make them root-only, and `kernel` could not reach the bind. Those the sandbox has already are left alone.
 */
function visibleAt(path: string): string[] {
  const args: string[] = [];
  if (!inSandboxSystem(path)) {
    const above: string[] = [];
    for (let dir = dirname(path); dir !== '/'; dir = dirname(dir)) above.unshift(dir);
    for (const d of above) if (!SANDBOX_DIRS.has(d)) args.push('--perms', '0755', '--dir', d);
  }
  return [...args, '--ro-bind', path, path];
}

/**
 * What the runner loads from: the package, its own node_modules (a link in a checkout's worktree), and, for an
 * installed package, the node_modules it sits in (where npm hoisted its dependencies).
 */
function packageFolders(packageDir: string): string[] {
  const folders = [packageDir];
  const own = join(packageDir, 'node_modules');
  if (existsSync(own)) folders.push(realpathSync(own));
  const at = packageDir.lastIndexOf('/node_modules/');
  if (at >= 0) folders.push(packageDir.slice(0, at + '/node_modules'.length));
  // A folder inside another bound one is bound with it.
  return folders.filter((f, i) => !folders.some((g, j) => j !== i && (f === g ? j < i : f.startsWith(`${g}/`))));
}

export class CheckLauncher {
  private readonly node = realpathSync(process.execPath);

  constructor(private readonly opts: CheckLauncherOptions) {}

  /** Why checks cannot run here, or null when they can. */
  get unavailableReason(): string | null {
    if (!this.opts.packageDir) return 'this service was started without the bcs runner, so it runs no checks (start it with `bcs serve`)';
    if (this.opts.sandbox || !this.opts.serviceIsRoot) return null;
    return 'checks never run as root, and this service runs as root without the process sandbox: install bubblewrap, or run the service as another user';
  }

  async prepare(run: CheckInvocation): Promise<CheckCommand> {
    const reason = this.unavailableReason;
    if (reason) throw unavailable('monitors_unavailable', reason);
    const packageDir = realpathSync(this.opts.packageDir!);
    const cli = join(packageDir, 'dist', 'runner', 'cli', 'cli.js');
    const nodeArgs = [`--max-old-space-size=${HEAP_MB}`, '--enable-source-maps'];
    const base = { LANG: 'C.UTF-8', NO_COLOR: '1', ...run.env };
    const sandbox = this.opts.sandbox;
    if (!sandbox) {
      const home = join(this.opts.dir, newId(12));
      await mkdir(join(home, 'tmp'), { recursive: true, mode: 0o700 });
      return {
        file: this.node,
        args: [...nodeArgs, cli, 'run', run.file, ...run.flags, '--output-dir', join(home, 'results')],
        env: { PATH: DEFAULT_PATH, HOME: home, TMPDIR: join(home, 'tmp'), ...base },
        cwd: run.bundleDir,
        cleanup: () => rm(home, { recursive: true, force: true }),
      };
    }
    const root = join(this.opts.dir, newId(12));
    await mkdir(root, { recursive: true, mode: 0o700 });
    const view = new HostView(root);
    await view.createLayout();
    await handOverView(view, { owner: sandbox.kernel, sandboxed: true });
    // The package at its own path, so what it resolves (a node_modules that is a link, its JSON files) resolves
    // the same inside.
    const folders = packageFolders(packageDir);
    const checkDir = checkDirFor(folders);
    const binds = [...folders.flatMap(visibleAt), '--ro-bind', run.bundleDir, checkDir];
    const { path: node, binds: nodeBinds } = nodeInSandbox(this.node);
    binds.push(...TOOLS_DIRS, ...nodeBinds);
    const identity = sandbox.kernel;
    const cmd = sandboxCommand(sandbox, {
        view,
        // After the home and /tmp binds: a package under /tmp (a CI checkout) must not be hidden by the sandbox's own /tmp.
        extraArgs: binds,
        cwd: checkDir,
        env: { PATH: DEFAULT_PATH, HOME: HOME_DIR, TMPDIR: TMP_DIR, USER: identity.name, LOGNAME: identity.name, ...base },
        identity,
        newSession: true,
        command: node,
        args: [...nodeArgs, cli, 'run', run.file, ...run.flags, '--output-dir', `${TMP_DIR}/results`],
    });
    return { ...cmd, env: { PATH: DEFAULT_PATH }, cwd: '/', cleanup: () => rm(root, { recursive: true, force: true }) };
  }
}
