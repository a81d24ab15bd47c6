// Turns a process request into what to execute: the identity, a clean environment, the working
// directory and the command line, sandboxed (bwrap) or directly on the host. Bad requests fail here,
// before anything starts, with a 400 that names the field.
import type { ProcessExecParams } from '../../../api/schemas/process.js';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, posix } from 'node:path';
import { DomainError, forbidden, invalidField } from '../errors.js';
import type { Account, Accounts } from './accounts.js';
import { HOME_DIR, TMP_DIR, type HostView } from '../fs/index.js';
import { sandboxCommand, type Sandbox } from './sandbox.js';
import { DEFAULT_PATH } from './sandbox-tools.js';
import { asUser, hostSessionUsers, type SessionUsers } from './session-users.js';

/** What exec and spawn ask to run (their shared fields). */
export type ProcessRequest = ProcessExecParams;

export interface LaunchPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Host working directory of what is executed (for bwrap, the sandbox sets its own). */
  cwd: string;
  /** Set when the service must switch users itself (unsandboxed, running as root). */
  uid?: number;
  gid?: number;
  sandboxed: boolean;
  identity: Account;
}

/** A session's network namespace as its processes join it (host/network/namespace.ts). */
export interface SessionNetworkRef {
  /** What nsenter --net= opens. */
  netns: string;
  /** The egress proxy as seen inside. */
  proxyUrl: string;
}

export const UNSANDBOXED_ROOT =
  'without the sandbox, processes never run as root: root there would be root on the host, with the service\'s database and keys and every other session in reach; install bubblewrap for as_root';

/** Paths a sandboxed process sees as on the host (read-only), besides its view folders. */
const SYSTEM_PREFIXES = ['/usr', '/etc', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

export class Launcher {
  constructor(
    private readonly sandbox: Sandbox | null,
    private readonly accounts: Accounts,
    private readonly users: SessionUsers = hostSessionUsers(),
  ) {}

  /**
   * Who runs a process by default: the identity the session's Chromium runs as. In a root-run sandbox
   * that is `kernel`, as on the hosted VM. Without a sandbox a root service gives every session a uid of
   * its own (session-users.ts), the owner of its view; a service that is not root runs everything as itself.
   */
  defaultIdentity(view: HostView): Account {
    if (this.sandbox) return this.sandbox.kernel;
    if (!this.accounts.serviceIsRoot) return this.accounts.service;
    const own = this.users.of(view.root);
    // Every session gets one when its browser launches; without it nothing may run, least of all as root.
    if (!own) throw forbidden('this session has no user of its own to run processes as');
    return own;
  }

  /**
   * The identity a request asks for. Unsandboxed under a root service, `as_root` and other users are
   * refused: there root would be root on the host (the service's database and key, every session), and
   * another account could reach what that account can on the host. The session's own user is the only one.
   * `input` names where the request came from (`body`), for the fields of 400s; so in plan().
   */
  identity(req: ProcessRequest, view: HostView, input: string): Account {
    const { accounts } = this;
    if (req.as_root && req.as_user) throw invalidField(`${input}.as_user`, 'cannot be combined with as_root');
    const own = this.defaultIdentity(view);
    if (!this.sandbox && accounts.serviceIsRoot) {
      if (req.as_root) throw forbidden(UNSANDBOXED_ROOT);
      const mine = req.as_user === own.name || req.as_user === String(own.uid);
      if (req.as_user && !mine && !accounts.find(req.as_user)) throw invalidField(`${input}.as_user`, `unknown user '${req.as_user}'`);
      if (req.as_user && !mine) {
        throw forbidden(`without the sandbox, processes run only as the session's own user ('${own.name}', uid ${own.uid}), not as '${req.as_user}'`);
      }
      return own;
    }
    let target = own;
    if (req.as_root) target = { name: 'root', uid: 0, gid: 0 };
    else if (req.as_user) {
      const found = accounts.find(req.as_user);
      if (!found) throw invalidField(`${input}.as_user`, `unknown user '${req.as_user}'`);
      target = found;
    }
    if (!accounts.serviceIsRoot && target.uid !== accounts.service.uid) {
      throw forbidden(`the service runs as '${accounts.service.name}', not root, so it cannot run processes as '${target.name}'`);
    }
    return target;
  }

  /** `network`: the session's own network, which a sandboxed process joins (its only way out is the egress proxy). */
  async plan(view: HostView, req: ProcessRequest, tty: boolean, input: string, network?: SessionNetworkRef): Promise<LaunchPlan> {
    const identity = this.identity(req, view, input);
    const cwd = posix.normalize(req.cwd ?? HOME_DIR);
    const sandboxed = this.sandbox !== null;
    const base: Record<string, string> = {
      PATH: DEFAULT_PATH,
      HOME: sandboxed ? HOME_DIR : view.hostPath(HOME_DIR),
      USER: identity.name,
      LOGNAME: identity.name,
      LANG: 'C.UTF-8',
      ...(sandboxed ? {} : { TMPDIR: view.hostPath(TMP_DIR) }),
      ...(tty ? { TERM: 'xterm-256color' } : {}),
      ...(sandboxed && network ? egressEnv(network.proxyUrl) : {}),
    };
    const env = { ...base, ...req.env };
    const hostCwd = sandboxed ? await sandboxHostPath(view, cwd) : await view.resolve(cwd, `${input}.cwd`);
    if (hostCwd !== UNCHECKED && !(hostCwd && (await isDirectory(hostCwd)))) {
      throw invalidField(`${input}.cwd`, `'${cwd}' is not a directory in the browser host's file system`);
    }
    const hostCommand = await this.findCommand(view, req.command, env.PATH ?? '', cwd, sandboxed, input);
    const args = req.args ?? [];
    if (this.sandbox) {
      const cmd = sandboxCommand(this.sandbox, { view, cwd, env, identity, newSession: !tty, command: req.command, args, netns: network?.netns });
      // bwrap itself never sees the request's environment (LD_PRELOAD and friends): only the sandbox does.
      return { ...cmd, env: { PATH: DEFAULT_PATH }, cwd: '/', sandboxed, identity };
    }
    const plan = { env, cwd: hostCwd as string, sandboxed, identity };
    // Resolved here because the command may name a view path (/home/kernel/x.sh) the host does not have.
    if (!this.accounts.serviceIsRoot) return { ...plan, file: hostCommand, args };
    // Never root here (see identity()). setpriv rather than spawn's uid/gid: node-pty keeps root's
    // supplementary groups when it switches; and it sets no_new_privs.
    const cmd = asUser(identity, hostCommand, args);
    return { ...plan, file: cmd.file, args: cmd.args, ...cmd.spawnAs };
  }

  /**
   * Kept for callers that prepare a view before its first process: the view is handed to the session's
   * identity when its browser launches (fs/view-access.ts), before anything of the session runs.
   */
  async prepareView(_view: HostView): Promise<void> {}

  /** Where the command is on the host; a missing one is a 400 rather than a process failing with 127. */
  private async findCommand(view: HostView, command: string, path: string, cwd: string, sandboxed: boolean, input: string): Promise<string> {
    const toHost = async (p: string) => (sandboxed ? sandboxHostPath(view, p) : unsandboxedPath(view, p));
    const candidates = command.includes('/')
      ? [posix.resolve(cwd, command)]
      : path
          .split(delimiter)
          .filter((dir) => dir.startsWith('/'))
          .map((dir) => posix.join(dir, command));
    for (const candidate of candidates) {
      const host = await toHost(candidate);
      if (host === UNCHECKED) return command;
      if (host && (await isExecutableFile(host))) return host;
    }
    throw invalidField(`${input}.command`, `'${command}' was not found${command.includes('/') ? '' : ' on PATH'} or is not executable`);
  }
}

/** Tools that honour the usual proxy variables reach the web through the session's egress proxy. */
function egressEnv(proxy: string): Record<string, string> {
  return { http_proxy: proxy, https_proxy: proxy, HTTP_PROXY: proxy, HTTPS_PROXY: proxy, ALL_PROXY: proxy };
}

/** Unsandboxed, the view's folders stand in for /home/kernel and /tmp; other paths are the host's. */
function unsandboxedPath(view: HostView, path: string): string {
  for (const dir of [HOME_DIR, TMP_DIR]) if (path === dir || path.startsWith(`${dir}/`)) return view.hostPath(path);
  return path;
}

/** A path the service cannot check from outside: the sandbox itself decides (and reports) whether it works. */
const UNCHECKED = Symbol('unchecked');

/**
 * The host path behind a path as a sandboxed process sees it, for pre-flight checks; null when the
 * sandbox does not show that path at all. In the view, a symlink a process planted pointing out of it is
 * not followed on the host (that would tell the caller what exists there): such paths are UNCHECKED.
 */
export async function sandboxHostPath(view: HostView, path: string): Promise<string | null | typeof UNCHECKED> {
  const p = posix.normalize(path);
  if (p === '/' || p === '/home') return p;
  for (const dir of [HOME_DIR, TMP_DIR]) {
    if (p !== dir && !p.startsWith(`${dir}/`)) continue;
    return view.resolve(p).catch((err: unknown) => {
      if (err instanceof DomainError && err.code === 'path_outside_view') return UNCHECKED;
      throw err;
    });
  }
  for (const prefix of SYSTEM_PREFIXES) if (p === prefix || p.startsWith(`${prefix}/`)) return p;
  return null;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

async function isExecutableFile(path: string): Promise<boolean> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return false;
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}
