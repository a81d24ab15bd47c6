// One host uid per session, for a root service without a sandbox: nothing else separates its sessions,
// so each gets its own identity from a high range no account uses, and its view belongs to that uid.
// Sessions then cannot read each other's files or signal each other's processes, and none of them can
// read what only root can (the service's data dir, /etc/shadow, /proc/<service>/environ).
//
// Several services may run on one host (the test suite runs many at once), so a uid is taken by creating
// a lock file named after it in a root-only folder; the file names the owning service's pid, and a lock
// whose service is gone is taken over (after killing whatever still runs as that uid). Allocation walks
// the range from a remembered position, so a uid is not handed out again until the range wraps: files a
// session left in world-writable host folders (/var/tmp, /dev/shm) do not fall to the next session.
import { closeSync, constants, existsSync, openSync, writeSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KERNEL_USER, type Account } from './accounts.js';
import { hostReaper } from './reaper.js';

/** Far above any account, system or user (useradd stops at 60000, subordinate ranges start at 100000). */
export const SESSION_UID_BASE = 1_900_000_000;
export const SESSION_UID_COUNT = 1_000_000;
const KILL_WAIT_MS = 5000;

let host: SessionUsers | undefined;

/** The one allocator of this process (uids are a host-wide resource, like the processes using them). */
export function hostSessionUsers(): SessionUsers {
  return (host ??= SessionUsers.forHost());
}

export class SessionUsers {
  private readonly byDir = new Map<string, Account>();
  private swept: Promise<void> | undefined;

  constructor(private readonly lockDir: string) {}

  /** The host-wide allocator: locks under /run (root's), else under the temp dir, checked to be root's. */
  static forHost(): SessionUsers {
    return new SessionUsers(process.getuid?.() === 0 ? '/run/bcs-session-uids' : join(tmpdir(), `bcs-session-uids-${process.getuid?.()}`));
  }

  /** The identity of the session whose folder is `dir`, if it has one of its own. */
  of(dir: string): Account | undefined {
    return this.byDir.get(dir);
  }

  /** Takes a free uid for the session in `dir` (once; later calls answer the same). */
  async allocate(dir: string): Promise<Account> {
    const known = this.byDir.get(dir);
    if (known) return known;
    await this.ensureLockDir();
    await (this.swept ??= this.sweepStale());
    const cursorFile = join(this.lockDir, 'next');
    const start = Number((await readFile(cursorFile, 'utf8').catch(() => '0')).trim()) || 0;
    for (let i = 0; i < SESSION_UID_COUNT; i++) {
      const offset = (start + i) % SESSION_UID_COUNT;
      const uid = SESSION_UID_BASE + offset;
      if (!(await this.take(uid, dir))) continue;
      // Written aside and renamed, so another service never reads half a number (and starts over at 0).
      const aside = `${cursorFile}.${process.pid}`;
      await writeFile(aside, String((offset + 1) % SESSION_UID_COUNT), { mode: 0o600 })
        .then(() => rename(aside, cursorFile))
        .catch(() => undefined);
      const account = { name: KERNEL_USER, uid, gid: uid };
      this.byDir.set(dir, account);
      // Whatever runs as it dies with the service, even one killed outright (reaper.ts).
      hostReaper().watchUid(uid);
      return account;
    }
    throw new Error(`no free session uid in ${SESSION_UID_BASE}-${SESSION_UID_BASE + SESSION_UID_COUNT - 1}`);
  }

  /** Kills everything still running as the session's uid, then frees the uid. */
  async release(dir: string): Promise<void> {
    const account = this.byDir.get(dir);
    if (!account) return this.releaseStale(dir);
    this.byDir.delete(dir);
    await killUid(account.uid);
    hostReaper().forgetUid(account.uid);
    await unlink(this.lockFile(account.uid)).catch(() => undefined);
  }

  /** A session a dead service left (recovery removes its folder): its uid is freed, and what ran as it killed. */
  private async releaseStale(dir: string): Promise<void> {
    if (process.getuid?.() !== 0) return;
    for (const name of await readdir(this.lockDir).catch(() => [] as string[])) {
      if (!/^\d+$/.test(name)) continue;
      const [owner, ...rest] = (await readFile(join(this.lockDir, name), 'utf8').catch(() => '')).trim().split(' ');
      if (rest.join(' ') !== dir || isAlive(Number(owner))) continue;
      await killUid(Number(name));
      await unlink(join(this.lockDir, name)).catch(() => undefined);
    }
  }

  /**
   * Once per process: uids whose service died (a crash, SIGKILL) are freed, and whatever still ran as
   * them (a daemonized process of a session nobody will end now) is killed.
   */
  private async sweepStale(): Promise<void> {
    for (const name of await readdir(this.lockDir).catch(() => [] as string[])) {
      if (!/^\d+$/.test(name)) continue;
      const owner = Number((await readFile(join(this.lockDir, name), 'utf8').catch(() => '')).split(' ')[0]);
      if (owner && (owner === process.pid || isAlive(owner))) continue;
      await killUid(Number(name));
      await unlink(join(this.lockDir, name)).catch(() => undefined);
    }
  }

  private lockFile(uid: number): string {
    return join(this.lockDir, String(uid));
  }

  private async take(uid: number, dir: string): Promise<boolean> {
    const file = this.lockFile(uid);
    const content = `${process.pid} ${dir}\n`;
    if (createExclusive(file, content)) return true;
    const owner = Number((await readFile(file, 'utf8').catch(() => '')).split(' ')[0]);
    if (owner && (owner === process.pid || isAlive(owner))) return false;
    // Its service died without freeing it: whatever that session left running goes first.
    await killUid(uid);
    await unlink(file).catch(() => undefined);
    return createExclusive(file, content);
  }

  private async ensureLockDir(): Promise<void> {
    await mkdir(this.lockDir, { recursive: true, mode: 0o700 });
    const info = await lstat(this.lockDir);
    // A folder someone else made (the temp dir is world-writable) could hand out uids in use.
    if (!info.isDirectory() || info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0) {
      throw new Error(`${this.lockDir} must be a folder of the service's own user with mode 0700`);
    }
  }
}

function createExclusive(file: string, content: string): boolean {
  try {
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Pids whose real or effective uid is `uid`. */
export async function processesOf(uid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    const ids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
    // A zombie is dead already; its parent (the service) reaps it.
    if (/^State:\s+Z/m.test(status)) continue;
    if (ids && (Number(ids[1]) === uid || Number(ids[2]) === uid)) pids.push(Number(entry));
  }
  return pids;
}

/** SIGKILLs every process of `uid` until none is left (new ones may fork meanwhile), boundedly. */
async function killUid(uid: number): Promise<void> {
  const deadline = Date.now() + KILL_WAIT_MS;
  for (;;) {
    const pids = await processesOf(uid);
    if (pids.length === 0 || Date.now() > deadline) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const SETPRIV = existsSync('/usr/bin/setpriv') ? '/usr/bin/setpriv' : null;

/**
 * The command line that runs `file` as `account` from a root service: setpriv drops every group and sets
 * no_new_privs, so nothing the session runs can gain privileges through a setuid binary (su, mount...).
 * Without setpriv the caller switches with spawn's uid/gid (`spawnAs`), which also drops the groups.
 */
export function asUser(
  account: { uid: number; gid: number },
  file: string,
  args: string[],
  opts: { dieWithParent?: boolean } = {},
): { file: string; args: string[]; spawnAs?: { uid: number; gid: number } } {
  if (!SETPRIV) return { file, args, spawnAs: { uid: account.uid, gid: account.gid } };
  const death = opts.dieWithParent ? ['--pdeathsig=KILL'] : [];
  return { file: SETPRIV, args: [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', '--no-new-privs', ...death, '--', file, ...args] };
}
