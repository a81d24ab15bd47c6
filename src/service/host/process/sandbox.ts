// The bubblewrap sandbox processes run in. A sandboxed process sees the session's home and /tmp
// (writable, they are the session's view folders), the system (/usr, the lib/bin links, /etc) read-only
// and nothing else of the host: no /root, /work, other sessions or the service's data dir. It gets its
// own pid namespace (its /proc lists only its own processes; when its first process exits, everything
// it started dies with it), its own IPC namespace, a minimal /dev and --die-with-parent.
//
// /etc is bound read-only, but every entry in it that is not world-readable (shadow, gshadow,
// ssl/private, ...) is covered by an empty file or folder: root inside the sandbox must not read what
// only root outside may. /proc/sys and the host-wide knobs Docker also hides are read-only or empty,
// because root in the sandbox is real uid 0 and the kernel grants some of those to uid 0 without caps.
//
// Identities (when the service runs as root): bwrap starts as root keeping only the capabilities the
// next step needs, and setpriv inside switches to the requested user (dropping every capability and the
// bounding set) or, for `as_root`, stays uid 0 with the small ROOT_CAPS set and no_new_privs. Chromium
// and the Playwright worker run as `kernel` too; only a process that asks for `as_root` is uid 0. When the
// service is not root, bwrap runs unprivileged in a user namespace and every process is the service's
// own user.
import { spawn } from 'node:child_process';
import { constants, existsSync } from 'node:fs';
import { access, lstat, mkdir, readFile, readdir, readlink, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { Accounts, type Account } from './accounts.js';
import { HOME_DIR, HostView, TMP_DIR } from '../fs/index.js';

/** What root may still do inside the sandbox: own and manage its files and processes, nothing host-wide. */
const ROOT_CAPS = ['chown', 'dac_override', 'fowner', 'fsetid', 'kill', 'setuid', 'setgid', 'net_bind_service'];
/** Host-wide /proc entries that are hidden (empty) inside, as Docker's default profile does. */
const PROC_MASKED_FILES = ['kcore', 'keys', 'latency_stats', 'timer_list', 'timer_stats', 'sched_debug', 'sysrq-trigger'];
const PROC_MASKED_DIRS = ['acpi', 'scsi', 'asound'];
/** bwrap already makes /proc/bus and /proc/irq read-only. */
const PROC_READONLY = ['sys', 'fs'];
const ROOT_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
const SHM_BYTES = 256 * 1024 * 1024;

export interface Sandbox {
  readonly kind: 'bwrap';
  readonly bwrapPath: string;
  /** bwrap runs as root: capabilities are dropped and setpriv switches identities. */
  readonly privileged: boolean;
  readonly setprivPath: string | null;
  /**
   * Who Chromium, the Playwright worker and processes that ask for no identity run as: `kernel` when
   * bwrap runs as root, otherwise the service's own user (mapped into bwrap's user namespace).
   */
  readonly kernel: Account;
  /** The mounts every sandbox gets, computed once at start. */
  readonly systemArgs: readonly string[];
  /**
   * What gives each session a network namespace of its own (host/network/namespace.ts): socat bridges it
   * to the service, nsenter puts a session's processes into it. Null, with `networkReason`, where that
   * cannot work (bwrap not run as root, socat missing, network namespaces refused).
   */
  readonly network: { socat: string; nsenter: string } | null;
  readonly networkReason: string;
}

export interface SandboxDetection {
  sandbox: Sandbox | null;
  /** Why there is no sandbox, or how it was found. */
  reason: string;
}

export interface SandboxLaunch {
  view: HostView;
  /** Working directory inside the sandbox. */
  cwd: string;
  env: Record<string, string>;
  identity: Account;
  /**
   * A new session keeps a sandboxed process from reaching the terminal of whoever started the service;
   * PTY processes skip it because the PTY is their own controlling terminal (job control needs it).
   */
  newSession: boolean;
  command: string;
  args: string[];
  /** The session's network namespace (a path nsenter opens); without it the host's network is shared. */
  netns?: string;
  /** bwrap options of this launch alone (the namespace holder's own network and binds). */
  extraArgs?: string[];
}

/** The command line that runs `launch` inside the sandbox. */
export function sandboxCommand(sandbox: Sandbox, launch: SandboxLaunch): { file: string; args: string[] } {
  const args = [
    ...sandbox.systemArgs,
    '--bind', launch.view.hostPath(HOME_DIR), HOME_DIR,
    '--bind', launch.view.hostPath(TMP_DIR), TMP_DIR,
    // Before the root turns read-only: they may make folders in it.
    ...(launch.extraArgs ?? []),
    // The sandbox's root and /dev are bwrap's tmpfs: read-only, so even root cannot fill memory there.
    '--remount-ro', '/dev',
    '--remount-ro', '/',
    '--chdir', launch.cwd,
    '--clearenv',
  ];
  for (const [name, value] of Object.entries(launch.env)) args.push('--setenv', name, value);
  if (launch.newSession) args.push('--new-session');
  const inner: string[] = [];
  if (sandbox.privileged) {
    const root = launch.identity.uid === 0;
    const keep = root ? [...ROOT_CAPS, 'setpcap'] : ['setuid', 'setgid', 'setpcap'];
    args.push('--cap-drop', 'ALL');
    for (const cap of keep) args.push('--cap-add', `CAP_${cap.toUpperCase()}`);
    inner.push(sandbox.setprivPath!);
    if (root) {
      // For uid 0 the bounding set is what exec grants, so it alone decides root's capabilities.
      inner.push(`--bounding-set=-all,${ROOT_CAPS.map((c) => `+${c}`).join(',')}`);
    } else {
      inner.push(`--reuid=${launch.identity.uid}`, `--regid=${launch.identity.gid}`, '--init-groups', '--bounding-set=-all');
    }
    inner.push('--inh-caps=-all', '--no-new-privs', '--');
  }
  args.push('--', ...inner, launch.command, ...launch.args);
  // nsenter execs bwrap in place (a network namespace needs no fork), so the pid spawned is bwrap's.
  if (launch.netns && sandbox.network) return { file: sandbox.network.nsenter, args: [`--net=${launch.netns}`, '--', sandbox.bwrapPath, ...args] };
  return { file: sandbox.bwrapPath, args };
}

export interface DetectOptions {
  /** Holds the files the sandbox binds (passwd, group, empty placeholders) and the probe's view. */
  dataDir: string;
  /** A bwrap executable to use instead of the one on PATH. */
  bwrap?: string;
  accounts?: Accounts;
  /** false: sessions share the host's network even where namespaces would work. */
  network?: boolean;
}

/** Finds bwrap and proves it works here by running a trivial command in a full sandbox, once. */
export async function detectSandbox(opts: DetectOptions): Promise<SandboxDetection> {
  const bwrapPath = opts.bwrap ?? (await findExecutable('bwrap'));
  if (!bwrapPath) return { sandbox: null, reason: 'bwrap (bubblewrap) is not installed' };
  const accounts = opts.accounts ?? Accounts.fromHost();
  const privileged = accounts.serviceIsRoot;
  const setprivPath = privileged ? await findExecutable('setpriv', '/usr/bin:/usr/sbin:/bin:/sbin') : null;
  if (privileged && (!setprivPath || !setprivPath.startsWith('/usr/'))) {
    return { sandbox: null, reason: 'setpriv (util-linux) is not installed under /usr, so sandboxed processes could not drop root' };
  }
  const dir = join(opts.dataDir, 'sandbox');
  let sandbox: Sandbox;
  try {
    const base = { kind: 'bwrap', bwrapPath, privileged, setprivPath, kernel: accounts.kernel, systemArgs: await systemArgs(dir, accounts, privileged) } as const;
    sandbox = { ...base, network: null, networkReason: 'not probed' };
  } catch (err) {
    return { sandbox: null, reason: `could not prepare the sandbox: ${(err as Error).message}` };
  }
  // One probe where a namespace is wanted: a sandbox that makes one works. The plain one runs only if not.
  const tools = await networkTools(sandbox, opts);
  let networkReason = 'reason' in tools ? tools.reason : '';
  if (!('reason' in tools)) {
    const probe = await probeSandbox(sandbox, dir, accounts, ['--unshare-net']);
    if (probe.ok) return { sandbox: { ...sandbox, network: tools, networkReason: `a network namespace per session, bridged by ${tools.socat}` }, reason: `bwrap at ${bwrapPath}` };
    networkReason = `bwrap cannot create a network namespace: ${probe.detail}`;
  }
  const probe = await probeSandbox(sandbox, dir, accounts);
  if (!probe.ok) return { sandbox: null, reason: `bwrap does not work here: ${probe.detail}` };
  return { sandbox: { ...sandbox, network: null, networkReason }, reason: `bwrap at ${bwrapPath}` };
}

/** What sessions need for network namespaces of their own, or why they cannot have them here. */
async function networkTools(sandbox: Sandbox, opts: DetectOptions): Promise<NonNullable<Sandbox['network']> | { reason: string }> {
  if (opts.network === false) return { reason: 'turned off' };
  // Unprivileged, each bwrap has a user namespace of its own, and a second process could not join the first's network.
  if (!sandbox.privileged) return { reason: 'the service does not run as root' };
  const socat = await findExecutable('socat', '/usr/bin:/bin');
  if (!socat) return { reason: 'socat is not installed' };
  const nsenter = await findExecutable('nsenter', '/usr/bin:/usr/sbin:/bin:/sbin');
  if (!nsenter) return { reason: 'nsenter (util-linux) is not installed' };
  return { socat, nsenter };
}

async function systemArgs(dir: string, accounts: Accounts, privileged: boolean): Promise<string[]> {
  await mkdir(join(dir, 'empty-dir'), { recursive: true, mode: 0o755 });
  const emptyFile = join(dir, 'empty');
  const emptyDir = join(dir, 'empty-dir');
  await writeFile(emptyFile, '', { mode: 0o444 });
  const args = ['--unshare-pid', '--unshare-ipc', '--unshare-cgroup-try', '--die-with-parent'];
  args.push('--ro-bind', '/usr', '/usr');
  for (const name of ROOT_LINKS) {
    const path = `/${name}`;
    const info = await lstat(path).catch(() => null);
    if (info?.isSymbolicLink()) args.push('--symlink', await readlink(path), path);
    else if (info?.isDirectory()) args.push('--ro-bind', path, path);
  }
  args.push('--ro-bind', '/etc', '/etc');
  // The system's font cache: without it every sandbox (each with a fresh home) rebuilds its own, which
  // costs Chromium ~250 ms per launch.
  // Its parents are made world-traversable, so processes running as `kernel` can use it too.
  args.push('--perms', '0755', '--dir', '/var', '--perms', '0755', '--dir', '/var/cache');
  args.push('--ro-bind-try', '/var/cache/fontconfig', '/var/cache/fontconfig');
  for (const { path, dir: isDir } of await unreadableEntries('/etc')) args.push('--ro-bind', isDir ? emptyDir : emptyFile, path);
  if (privileged) {
    for (const kind of ['passwd', 'group'] as const) {
      const host = await readFile(`/etc/${kind}`, 'utf8').catch(() => '');
      const file = join(dir, kind);
      await writeFile(file, accounts.withKernelEntry(host, kind), { mode: 0o644 });
      args.push('--ro-bind', file, `/etc/${kind}`);
    }
  }
  args.push(...(await resolvConfArgs()));
  args.push('--proc', '/proc');
  for (const name of PROC_READONLY) if (existsSync(`/proc/${name}`)) args.push('--ro-bind', `/proc/${name}`, `/proc/${name}`);
  for (const name of PROC_MASKED_FILES) if (existsSync(`/proc/${name}`)) args.push('--ro-bind', emptyFile, `/proc/${name}`);
  for (const name of PROC_MASKED_DIRS) if (existsSync(`/proc/${name}`)) args.push('--ro-bind', emptyDir, `/proc/${name}`);
  args.push('--dev', '/dev', '--perms', '1777', '--size', String(SHM_BYTES), '--tmpfs', '/dev/shm');
  args.push('--perms', '0755', '--dir', '/home');
  return args;
}

/** Entries under `root` that others may not read (or, for folders, enter); their contents stay hidden. */
async function unreadableEntries(root: string): Promise<Array<{ path: string; dir: boolean }>> {
  const hidden: Array<{ path: string; dir: boolean }> = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) continue; // its target is either masked itself or outside the sandbox
      const info = await stat(path).catch(() => null);
      if (!info) continue;
      if (info.isDirectory()) {
        if ((info.mode & 0o005) !== 0o005) hidden.push({ path, dir: true });
        else await walk(path);
      } else if (info.isFile() && (info.mode & 0o004) === 0) {
        hidden.push({ path, dir: false });
      }
    }
  };
  await walk(root);
  return hidden;
}

/** A resolv.conf that links outside /etc (systemd-resolved's in /run) is bound at its target, or DNS breaks. */
async function resolvConfArgs(): Promise<string[]> {
  const info = await lstat('/etc/resolv.conf').catch(() => null);
  if (!info?.isSymbolicLink()) return [];
  const target = await realpath('/etc/resolv.conf').catch(() => null);
  if (!target || target.startsWith('/etc/') || target.startsWith('/usr/')) return [];
  const targetInfo = await stat(target).catch(() => null);
  if (!targetInfo?.isFile() || (targetInfo.mode & 0o004) === 0) return [];
  return ['--ro-bind', target, target];
}

async function probeSandbox(sandbox: Sandbox, dir: string, accounts: Accounts, extraArgs: string[] = []): Promise<{ ok: boolean; detail: string }> {
  const root = join(dir, `probe-${process.pid}`);
  const view = new HostView(root);
  try {
    await view.createLayout();
    const { file, args } = sandboxCommand(sandbox, {
      view,
      cwd: HOME_DIR,
      env: { PATH: '/usr/bin:/bin' },
      identity: accounts.kernel,
      newSession: true,
      command: 'true',
      args: [],
      extraArgs,
    });
    return await run(file, args, 10_000);
  } finally {
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
  }
}

function run(file: string, args: string[], timeoutMs: number): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ ok: false, detail: err.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? { ok: true, detail: '' } : { ok: false, detail: stderr.trim() || `exited with ${signal ?? code}` });
    });
  });
}

export async function findExecutable(name: string, path = process.env.PATH ?? '/usr/bin:/bin'): Promise<string | null> {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
