// Closing the browser of a session that writes its profile back. Chromium keeps cookie changes in memory
// and commits them to disk lazily (about every 30 s); a killed browser loses them, a closed one writes
// everything out. So such a browser is asked to close over CDP (Browser.close) and given a few seconds to
// exit; the caller kills its process group afterwards in any case (helpers, or a browser that would not close).
import { existsSync } from 'node:fs';
import http from 'node:http';
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
 * is in the DevToolsActivePort file Chromium writes into its user-data dir; in a network of its own the
 * port is inside it, reached through `devtoolsSocket` while the network's holder still runs.
 */
export async function closeStaleCleanly(row: BrowserRow, devtoolsSocket?: string, timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
  if (!row.user_data_dir || !row.pid) return;
  const endpoint = devtoolsSocket && existsSync(devtoolsSocket) ? await endpointOverSocket(devtoolsSocket, timeoutMs) : await activePortEndpoint(row.user_data_dir);
  if (!endpoint) return;
  const pid = row.pid;
  const exited = waitForExit(pid, timeoutMs);
  await askToClose(endpoint, exited, timeoutMs);
}

async function activePortEndpoint(userDataDir: string): Promise<string | undefined> {
  try {
    const [port, path] = (await readFile(join(userDataDir, 'DevToolsActivePort'), 'utf8')).split('\n');
    if (!/^\d+$/.test(port ?? '') || !path?.startsWith('/devtools/browser/')) return undefined;
    return `ws://127.0.0.1:${port}${path}`;
  } catch {
    return undefined;
  }
}

/** Chromium writes no DevToolsActivePort for a fixed port: its browser path comes from /json/version. */
function endpointOverSocket(socketPath: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path: '/json/version', timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => {
        try {
          const path = new URL((JSON.parse(body) as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl).pathname;
          resolve(path.startsWith('/devtools/browser/') ? `ws+unix://${socketPath}:${path}` : undefined);
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
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
