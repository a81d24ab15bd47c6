// The live session a record and its browser make (types.ts LiveSession), as the session manager registers it.
import type { BrowserRow } from '../../store/browsers-repo.js';
import { restoreDownloads, type WarmBrowser } from '../browser/index.js';
import type { LiveSession } from './types.js';

/**
 * The session of `row` running `warm`. `current` is the session's browser as last launched: a restart
 * replaces it, and what the session closes at its end is the browser running then.
 */
export function liveSession(row: BrowserRow, warm: WarmBrowser, current: () => WarmBrowser | undefined): LiveSession {
  return {
    id: row.id,
    view: warm.view,
    timeoutMs: row.timeout_seconds * 1000,
    chromium: warm.chromium,
    screen: warm.screen,
    // An adopted browser may have waited a while; its session starts now.
    lastActivity: Date.now(),
    connections: new Set(),
    cleanups: [async () => (await current()?.downloads)?.close(), () => warm.forwarder.close()],
    ready: warm.downloads.then(() => undefined),
    poolId: row.pool_id,
    projectId: row.project_id,
    profile: row.profile_id ? { id: row.profile_id, saveChanges: row.profile_save_changes } : null,
    parked: row.pool_id !== null,
    proxy: warm.forwarder,
    network: warm.network && { netns: warm.network.nsPath, proxyUrl: warm.network.proxyServer },
    browserPath: warm.browserPath,
    restoreDownloads: () => restoreDownloads(current() ?? warm),
  };
}
