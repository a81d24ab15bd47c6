// Who a process runs as. The hosted VM runs processes as the user `kernel` unless asked for root, so
// a sandbox started by a root service does the same: `kernel` is the host account of that name if there
// is one, otherwise uid/gid 65534 (`nobody`, which by convention owns nothing on the host), which the
// sandbox's own passwd file names `kernel`. Without a sandbox a root service gives each session a uid of
// its own instead (session-users.ts). (Which identity is the default is decided in launch.ts.)
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';

export const KERNEL_USER = 'kernel';
const NOBODY_ID = 65534;

export interface Account {
  name: string;
  uid: number;
  gid: number;
}

/** Parses passwd(5) text; lines that are not well-formed are skipped. */
export function parsePasswd(text: string): Account[] {
  const accounts: Account[] = [];
  for (const line of text.split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (!name || !/^\d+$/.test(uid ?? '') || !/^\d+$/.test(gid ?? '')) continue;
    accounts.push({ name, uid: Number(uid), gid: Number(gid) });
  }
  return accounts;
}

export class Accounts {
  /** The identity processes get when they ask for neither `as_root` nor `as_user`. */
  readonly kernel: Account;
  /** The service's own identity; when it is not root it cannot switch to another. */
  readonly service: Account;

  constructor(
    readonly list: Account[],
    serviceUid: number,
    serviceGid: number,
    serviceName: string,
  ) {
    this.service = { name: serviceName, uid: serviceUid, gid: serviceGid };
    this.kernel =
      serviceUid !== 0
        ? this.service
        : (list.find((a) => a.name === KERNEL_USER) ?? { name: KERNEL_USER, uid: NOBODY_ID, gid: NOBODY_ID });
  }

  static fromHost(passwdPath = '/etc/passwd'): Accounts {
    let text = '';
    try {
      text = readFileSync(passwdPath, 'utf8');
    } catch {
      // No passwd file: only root, the service and `kernel` resolve.
    }
    const info = userInfo();
    return new Accounts(parsePasswd(text), info.uid, info.gid, info.username);
  }

  get serviceIsRoot(): boolean {
    return this.service.uid === 0;
  }

  /** A user name or a numeric uid; `kernel` always names the default identity. */
  find(spec: string): Account | undefined {
    if (spec === KERNEL_USER) return this.kernel;
    if (/^\d+$/.test(spec)) {
      const uid = Number(spec);
      if (uid === this.kernel.uid) return this.kernel;
      return this.list.find((a) => a.uid === uid) ?? (uid === 0 ? { name: 'root', uid: 0, gid: 0 } : undefined);
    }
    return this.list.find((a) => a.name === spec) ?? (spec === 'root' ? { name: 'root', uid: 0, gid: 0 } : undefined);
  }

  /**
   * The sandbox's /etc/passwd (or /etc/group): the host's, with a `kernel` line first when the host has
   * no such account, so `whoami`, `id` and `ls -l` name the default identity `kernel` inside.
   */
  withKernelEntry(hostText: string, kind: 'passwd' | 'group'): string {
    const has = hostText.split('\n').some((line) => line.startsWith(`${KERNEL_USER}:`));
    if (has) return hostText;
    const line =
      kind === 'passwd'
        ? `${KERNEL_USER}:x:${this.kernel.uid}:${this.kernel.gid}:kernel:/home/kernel:/bin/bash`
        : `${KERNEL_USER}:x:${this.kernel.gid}:`;
    return `${line}\n${hostText}`;
  }
}
