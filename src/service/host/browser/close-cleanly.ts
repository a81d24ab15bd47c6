// Closing the browser of a session that writes its profile back. Chromium keeps cookie changes in memory
// and commits them to disk lazily (about every 30 s); a killed browser loses them, a closed one writes
// everything out. So such a browser is asked to close over CDP (Browser.close) and given a few seconds to
// exit; the caller kills its process group afterwards in any case (helpers, or a browser that would not close).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserRow } from '../../store/browsers-repo.js';
import { CdpConnection } from './cdp-connection.js';
import type { LaunchedChromium } from './chromium.js';

const CLOSE_TIMEOUT_MS = 5_000;

/** Asks a session's Chromium to exit cleanly; resolves once it exited or the time is up (never throws). */
export async function closeCleanly(chromium: LaunchedChromium, timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
  // A browser that is gone already (a crash) refuses the connection at once.
  await askToClose(chromium.wsEndpoint, chromium.exited.then(() => true), timeoutMs);
}

/**
 * The same for a browser a dead service left running (unsandboxed ones outlive it): its DevTools address
 * is in the DevToolsActivePort file Chromium writes into its user-data dir.
 */
export async function closeStaleCleanly(row: BrowserRow, timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
  if (!row.user_data_dir || !row.pid) return;
  let endpoint: string;
  try {
    const [port, path] = (await readFile(join(row.user_data_dir, 'DevToolsActivePort'), 'utf8')).split('\n');
    if (!/^\d+$/.test(port ?? '') || !path?.startsWith('/devtools/browser/')) return;
    endpoint = `ws://127.0.0.1:${port}${path}`;
  } catch {
    return;
  }
  const pid = row.pid;
  const exited = waitForExit(pid, timeoutMs);
  await askToClose(endpoint, exited, timeoutMs);
}

async function askToClose(wsEndpoint: string, exited: Promise<boolean>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  let cdp: CdpConnection | undefined;
  try {
    cdp = await Promise.race([CdpConnection.connect(wsEndpoint, timeoutMs), deadline]).catch(() => undefined) || undefined;
    // The reply may never come: the browser closes the connection as it exits.
    cdp?.send('Browser.close').catch(() => undefined);
    if (cdp) await Promise.race([exited, deadline]);
  } finally {
    clearTimeout(timer);
    cdp?.close();
  }
}

/** Polls a process that is not our child until it is gone (true) or the time is up (false). */
async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
