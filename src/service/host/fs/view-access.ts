// Who may reach a session's view on the host. The service creates the view as itself; before Chromium or
// any process of the session starts, the view's home (with what launch preparers copied in: a profile's
// user data, extensions) and /tmp are handed to the identity the session runs as, so Chromium and the
// session's processes can write there and nobody else can.
import { chmod, lchown, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HOME_DIR, TMP_DIR, type HostView } from './host-view.js';

/** The uid and gid a view is handed to (an Account of process/accounts.ts). */
export interface ViewOwner {
  readonly uid: number;
  readonly gid: number;
}

export interface ViewAccess {
  /** Who owns the view's home and /tmp: the session's Chromium and default process identity. */
  owner: ViewOwner;
  /**
   * Sandboxed, the host path of the view is reached only through the sandbox's bind mounts, so the view
   * stays the service's own (0700) and inside it is laid out as on the hosted VM (home 0755, /tmp 1777).
   * Unsandboxed, the session's own uid must walk to its folders by their host paths: the view is passable
   * (0711) and its home and /tmp are that uid's alone (0700).
   */
  sandboxed: boolean;
}

export async function handOverView(view: HostView, access: ViewAccess): Promise<void> {
  const { owner, sandboxed } = access;
  await chmod(view.root, sandboxed ? 0o700 : 0o711);
  await chmod(view.hostPath('/home'), sandboxed ? 0o755 : 0o711);
  const home = view.hostPath(HOME_DIR);
  const tmp = view.hostPath(TMP_DIR);
  if (owner.uid !== process.getuid?.()) {
    await handOverTree(home, owner);
    await handOverTree(tmp, owner);
  }
  await chmod(home, sandboxed ? 0o755 : 0o700);
  await chmod(tmp, sandboxed ? 0o1777 : 0o700);
}

/**
 * lchown of a folder and everything under it; links are changed themselves, never followed. Only for a
 * folder no session process can reach while it runs (a view before its session starts, a staging folder):
 * one that could swap a folder for a link mid-walk would lead it out.
 */
export async function handOverTree(path: string, owner: ViewOwner): Promise<void> {
  if (owner.uid === process.getuid?.()) return;
  await lchown(path, owner.uid, owner.gid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await handOverTree(child, owner);
    else await lchown(child, owner.uid, owner.gid);
  }
}
