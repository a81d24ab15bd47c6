// Downloads stay in the session. A CDP client may point Chromium's downloads anywhere with
// `Browser.setDownloadBehavior` / `Page.setDownloadBehavior`; the proxy rewrites that folder to where the
// same path lies in the session's view, so a file lands where the fs API reads it (Kernel's recipe,
// `/tmp/downloads`, included) and never on the host. Only the view's writable folders, /home/kernel and
// /tmp, are accepted. `allowAndName` (Playwright's: GUID-named files in a temp folder on the client's
// own machine) becomes `allow` into /home/kernel/Downloads, so a page's download lands there under its
// own name whoever is connected, as without a client; download events still reach the client.
import { posix } from 'node:path';
import { DOWNLOADS_DIR, HOME_DIR, TMP_DIR } from '../fs/index.js';

const METHODS = new Set(['Browser.setDownloadBehavior', 'Page.setDownloadBehavior']);
const WRITABLE = [HOME_DIR, TMP_DIR];

export interface CdpCommand {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  sessionId?: unknown;
}

export type DownloadRewrite = { forward: CdpCommand } | { refuse: string };

/**
 * What to do with a client's command: undefined passes it on untouched. `browserPath` maps a view path
 * to the path Chromium sees (itself in the sandbox, the view's host folder without one).
 */
export function rewriteDownloadCommand(command: CdpCommand, browserPath: (viewPath: string) => string): DownloadRewrite | undefined {
  if (typeof command.method !== 'string' || !METHODS.has(command.method)) return undefined;
  const params = (command.params && typeof command.params === 'object' ? command.params : {}) as Record<string, unknown>;
  if (params.behavior === 'allowAndName') {
    return { forward: { ...command, params: { ...params, behavior: 'allow', downloadPath: browserPath(DOWNLOADS_DIR) } } };
  }
  if (params.downloadPath === undefined) return undefined;
  const path = params.downloadPath;
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) {
    return { refuse: 'downloadPath must be an absolute path on the browser host' };
  }
  const clean = posix.normalize(path).replace(/(.)\/+$/, '$1');
  if (!WRITABLE.some((dir) => clean === dir || clean.startsWith(`${dir}/`))) {
    return { refuse: `downloadPath '${path}' is outside the browser host's writable folders: use a folder under ${HOME_DIR} or ${TMP_DIR}` };
  }
  return { forward: { ...command, params: { ...params, downloadPath: browserPath(clean) } } };
}

/** A CDP error answer to a refused command, as Chromium words invalid parameters. */
export function refusal(command: CdpCommand, message: string): object {
  return {
    id: command.id,
    error: { code: -32602, message },
    ...(command.sessionId !== undefined ? { sessionId: command.sessionId } : {}),
  };
}
