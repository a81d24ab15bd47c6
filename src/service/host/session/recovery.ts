// After a hard stop (a crash, SIGKILL) the last run's browsers may still be running. At startup, before
// anything new is launched, they are killed and their sessions recorded as ended by the restart.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserRow, BrowsersRepo } from '../../store/browsers-repo.js';
import { PID_FILE, removeDir, killProcessGroup } from '../browser/index.js';

export interface RecoveryDeps {
  repo: BrowsersRepo;
  /** A cluster host recovers only its own sessions; a single process, every active one. */
  hostId?: string;
  sessionsDir: string;
  now: () => Date;
  isLive(id: string): boolean;
  /** Before a stale session's still-running browser is killed: a chance to close it cleanly (profile save). */
  closeCleanly?(row: BrowserRow): Promise<void>;
  /** Once the stale session's browser is gone, before its folder is removed (the profile save-back). */
  stopped?(row: BrowserRow): Promise<void>;
}

/**
 * Sessions still marked active belong to a service that died without closing them: kill their browsers if
 * they still run, and record the end. Browsers launched ahead of time (the standby) have no record; their
 * folders hold a pid file instead. Returns how many sessions were ended.
 */
export async function recoverStale(deps: RecoveryDeps, track: (work: Promise<unknown>) => void): Promise<number> {
  const stale = await deps.repo.listActive(deps.hostId);
  for (const row of stale) {
    // Recorded before the browser is killed: a process that only looked dead (cut off, or a test playing a
    // hard stop) would otherwise see its browser exit and record that as the reason first.
    await deps.repo.end(row.id, 'service_restart', 'the service restarted while this session was active', deps.now());
    if (row.pid && (await isOurChromium(row.pid, join(deps.sessionsDir, row.id)))) {
      await deps.closeCleanly?.(row);
      killProcessGroup(row.pid);
    }
    await deps.stopped?.(row);
    track(removeDir(join(deps.sessionsDir, row.id)));
  }
  const staleIds = new Set(stale.map((row) => row.id));
  const entries = await readdir(deps.sessionsDir).catch(() => [] as string[]);
  for (const id of entries) {
    if (staleIds.has(id) || deps.isLive(id) || (await deps.repo.get(id))?.deleted_at === null) continue;
    const dir = join(deps.sessionsDir, id);
    const pid = Number(await readFile(join(dir, PID_FILE), 'utf8').catch(() => ''));
    if (!pid) continue;
    if (await isOurChromium(pid, dir)) killProcessGroup(pid);
    track(removeDir(dir));
  }
  return stale.length;
}

/** A recorded pid may have been reused by now; only kill it if its command line names the session's folder. */
async function isOurChromium(pid: number, sessionDir: string): Promise<boolean> {
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(sessionDir);
  } catch {
    return false;
  }
}
