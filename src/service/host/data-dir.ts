// The data dir's layout and modes. Session processes must read nothing of the service's state (the
// database holds every key's hash, secrets.key seals proxy passwords, profiles hold other people's
// cookies), in every mode. Sandboxed they do not see the data dir at all; unsandboxed under a root
// service each session runs as its own uid (process/session-users.ts) and must reach its own view, which lives
// in here: so the data dir and sessions/ are traversable by others but not listable (0711), each view
// is reachable only by its session's uid, and everything else is the service's alone (0700/0600).
// A service that is not root cannot give sessions another identity, so its data dir stays 0700.
import { closeSync, openSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export const SESSIONS_DIR = 'sessions';
export const DATABASE_FILE = 'service.db';
/** Folders the service creates later; made private now, so nothing is ever created in them world-readable. */
const PRIVATE_DIRS = ['sandbox', 'profiles', 'extensions', 'replays'];
/** The database with its WAL, shared memory and journal files, and the key that seals proxy passwords. */
const PRIVATE_FILE = /^(service\.db(-wal|-shm|-journal)?|secrets\.key)$/;

/** Whether sessions of this service may get identities of their own (only root can switch users). */
export function sessionUsersPossible(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Creates the data dir (or tightens an existing one) before anything is written into it. The database
 * file is created here with mode 0600, because SQLite gives its -wal and -shm files the database's mode.
 */
export async function prepareDataDir(dataDir: string): Promise<void> {
  const passable = sessionUsersPossible() ? 0o711 : 0o700;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, passable);
  for (const name of PRIVATE_DIRS) await mkdir(join(dataDir, name), { mode: 0o700 }).catch(existsAlready);
  await mkdir(join(dataDir, SESSIONS_DIR), { mode: 0o700 }).catch(existsAlready);
  closeSync(openSync(join(dataDir, DATABASE_FILE), 'a', 0o600));
  // Only the service's own entries: a data dir may be a folder that holds other things too.
  for (const entry of await readdir(dataDir)) {
    if (entry !== SESSIONS_DIR && !PRIVATE_DIRS.includes(entry) && !PRIVATE_FILE.test(entry)) continue;
    const path = join(dataDir, entry);
    const info = await lstat(path).catch(() => null);
    if (!info || info.isSymbolicLink()) continue;
    if (entry === SESSIONS_DIR) await chmod(path, passable);
    else if (info.isDirectory()) await chmod(path, 0o700);
    else await chmod(path, info.mode & 0o700);
  }
}

function existsAlready(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EEXIST') throw err;
}
