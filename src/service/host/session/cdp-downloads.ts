// Downloads stay in the session. A CDP client may point Chromium's downloads anywhere with
// `Browser.setDownloadBehavior` / `Page.setDownloadBehavior`; the proxy rewrites that folder to where the
// same path lies in the session's view, so a file lands where the fs API reads it (Kernel's recipe,
// `/tmp/downloads`, included) and never on the host. Only the view's writable folders, /home/kernel and
// /tmp, are accepted. `allowAndName` keeps its meaning: Chromium writes each download as a file named by
// its GUID into the folder asked for (as CDP specifies; puppeteer reads it there), and the service links
// it, under the name the download suggested, into /home/kernel/Downloads too, where a session's downloads
// are whoever is connected. Its folder is often the client's own temp folder (Playwright's), which may
// lie outside the view's writable ones (macOS's /var/folders): refusing it would fail the client's
// connect, so such a folder becomes GUID_FALLBACK_DIR instead.
import { linkSync, lstatSync, renameSync, rmSync } from 'node:fs';
import { posix } from 'node:path';
import { ConfinedWalk, DOWNLOADS_DIR, HOME_DIR, TMP_DIR } from '../fs/index.js';

const METHODS = new Set(['Browser.setDownloadBehavior', 'Page.setDownloadBehavior']);
const WRITABLE = [HOME_DIR, TMP_DIR];

export interface CdpCommand {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  sessionId?: unknown;
}

/**
 * `named`: the command asks for GUID-named files (allowAndName) in this view folder; the proxy tells the
 * session's DownloadNamer, and hides the download events it turned on when the client did not ask for them.
 */
export type DownloadRewrite = { forward: CdpCommand; named?: { folder: string; clientWantsEvents: boolean } } | { refuse: string };

/** Where allowAndName's GUID files go when the folder asked for is not one the view can hold. */
export const GUID_FALLBACK_DIR = `${TMP_DIR}/downloads-by-guid`;

/**
 * What to do with a client's command: undefined passes it on untouched. `browserPath` maps a view path
 * to the path Chromium sees (itself in the sandbox, the view's host folder without one).
 */
export function rewriteDownloadCommand(command: CdpCommand, browserPath: (viewPath: string) => string): DownloadRewrite | undefined {
  if (typeof command.method !== 'string' || !METHODS.has(command.method)) return undefined;
  const params = (command.params && typeof command.params === 'object' ? command.params : {}) as Record<string, unknown>;
  if (params.behavior === 'allowAndName') {
    const folder = viewFolder(params.downloadPath) ?? GUID_FALLBACK_DIR;
    // The events say which GUID is which name and when it is complete: always on, hidden if unasked.
    const forward = { ...command, params: { ...params, downloadPath: browserPath(folder), eventsEnabled: true } };
    return { forward, named: { folder, clientWantsEvents: params.eventsEnabled === true } };
  }
  if (params.downloadPath === undefined) return undefined;
  const path = params.downloadPath;
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) {
    return { refuse: 'downloadPath must be an absolute path on the browser host' };
  }
  const clean = viewFolder(path);
  if (!clean) {
    return { refuse: `downloadPath '${path}' is outside the browser host's writable folders: use a folder under ${HOME_DIR} or ${TMP_DIR}` };
  }
  return { forward: { ...command, params: { ...params, downloadPath: browserPath(clean) } } };
}

/** The view folder a client's downloadPath names, if it is one of the view's writable ones. */
function viewFolder(path: unknown): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) return undefined;
  const clean = posix.normalize(path).replace(/(.)\/+$/, '$1');
  return WRITABLE.some((dir) => clean === dir || clean.startsWith(`${dir}/`)) ? clean : undefined;
}

/** Chromium names allowAndName files by the download's GUID; anything else is not a name to look up. */
const GUID = /^[0-9A-Za-z-]{1,64}$/;
const MAX_FOLDERS = 16;
const MAX_PENDING = 1024;

/**
 * Per session: the folders allowAndName was pointed at and the suggested name of each download under way,
 * so that a completed GUID file is linked into Downloads under its name. Shared by every client connection
 * of the session (Chromium's download behaviour is the browser's, and each connection that enabled events
 * hears of every download), so a download is linked once whoever hears of it first.
 */
export class DownloadNamer {
  private readonly folders: string[] = [];
  private readonly names = new Map<string, string>();

  constructor(private readonly viewRoot: string) {}

  /** Whether any allowAndName was seen: until then browser frames need no look. */
  get active(): boolean {
    return this.folders.length > 0;
  }

  addFolder(folder: string): void {
    const at = this.folders.indexOf(folder);
    if (at !== -1) this.folders.splice(at, 1);
    this.folders.push(folder);
    if (this.folders.length > MAX_FOLDERS) this.folders.shift();
  }

  /**
   * A Browser.download* event from Chromium. Called before the event reaches the client, so a client that
   * saw `completed` finds the named file in Downloads already.
   */
  onEvent(method: string, params: Record<string, unknown>): void {
    const guid = params.guid;
    if (typeof guid !== 'string' || !GUID.test(guid)) return;
    if (method === 'Browser.downloadWillBegin' && typeof params.suggestedFilename === 'string') {
      if (this.names.size >= MAX_PENDING) this.names.delete(this.names.keys().next().value!);
      this.names.set(guid, params.suggestedFilename);
    } else if (method === 'Browser.downloadProgress' && (params.state === 'completed' || params.state === 'canceled')) {
      const name = this.names.get(guid);
      this.names.delete(guid);
      if (name !== undefined && params.state === 'completed') this.link(guid, name);
    }
  }

  /**
   * Links the GUID file into Downloads under `name`, replacing a file of that name as Chromium's own `allow`
   * does: the same download lands the same way whoever is connected. Every path is walked inside the view (ConfinedWalk): the session's processes may
   * have swapped a folder for a link to anywhere. A file that is not there (another behaviour took over
   * since) is left alone.
   */
  private link(guid: string, suggested: string): void {
    const name = posix.basename(suggested.replace(/\\/g, '/'));
    if (!name || name === '.' || name === '..') return;
    let walk: ConfinedWalk | undefined;
    try {
      walk = ConfinedWalk.open(this.viewRoot);
      const source = [...this.folders].reverse().map((folder) => {
        try {
          const entry = walk!.entry(`${folder}/${guid}`);
          return lstatSync(entry.path, { throwIfNoEntry: false })?.isFile() ? entry.path : undefined;
        } catch {
          return undefined;
        }
      }).find((path) => path !== undefined);
      if (!source) return;
      const downloads = walk.existing(DOWNLOADS_DIR);
      if (!downloads.stats.isDirectory()) return;
      // Linked beside, then renamed over: a file of the same name is replaced whole, never half-written.
      const temp = `${downloads.path}/.${guid}.download`;
      linkSync(source, temp);
      try {
        renameSync(temp, `${downloads.path}/${name}`);
      } catch (err) {
        rmSync(temp, { force: true });
        throw err;
      }
    } catch {
      // Best effort: the GUID file the client asked for is there whatever happens here.
    } finally {
      walk?.close();
    }
  }
}

const namers = new WeakMap<object, DownloadNamer>();

/** The session's namer (`session` is the key it is kept under, dropped with it). */
export function downloadNamer(session: { view: { root: string } }): DownloadNamer {
  let namer = namers.get(session);
  if (!namer) namers.set(session, (namer = new DownloadNamer(session.view.root)));
  return namer;
}

/** A CDP error answer to a refused command, as Chromium words invalid parameters. */
export function refusal(command: CdpCommand, message: string): object {
  return {
    id: command.id,
    error: { code: -32602, message },
    ...(command.sessionId !== undefined ? { sessionId: command.sessionId } : {}),
  };
}
