// Downloads a scenario's pages start. The service sends them to the session's Downloads folder on the
// browser host (Playwright's own temp folder is on this machine, which the browser may not share), so
// `wait_for_download` waits out the download through Playwright's events, then reads the file back
// through the fs API and keeps it as an artifact of the step.
import type { Download } from 'playwright-core';
import type { CloudClient } from '../../src/api/index.js';
import type { PageAction } from '../../src/scenario/plan.js';
import { decode, type Decoded } from './decode.js';
import { assertionFailed, StepFailure } from './failures.js';
import { describeMatch, matches, matchesUrl } from './matching.js';
import { sleep } from './page-actions.js';

const POLL_MS = 50;

export interface SeenDownload {
  download: Download;
  at: number;
  taken: boolean;
}

/** The browser host's files, through the session's fs API. */
export interface HostFiles {
  list(folder: string): Promise<{ name: string; path: string; mod_time: string; is_dir: boolean }[]>;
  read(path: string): Promise<Uint8Array>;
}

/** `HostFiles` through the API for the session at `sessionPath`; each call's request id is kept for the step. */
export function hostFiles(client: CloudClient, sessionPath: string, signal: AbortSignal, requestIds: string[]): HostFiles {
  const get = async <T>(route: string, path: string, bytes: boolean): Promise<T> => {
    const res = await client.request<T>('GET', `${sessionPath}/fs/${route}`, { query: { path }, signal, ...(bytes ? { responseType: 'bytes' as const } : {}) });
    if (res.requestId) requestIds.push(res.requestId);
    return res.data;
  };
  return { list: (folder) => get('list_files', folder, false), read: (path) => get('read_file', path, true) };
}

export interface DownloadContext {
  downloads: SeenDownload[];
  host: HostFiles;
  /** Writes the file among the step's artifacts; returns its path relative to the output folder. */
  keep(name: string, bytes: Uint8Array): Promise<string>;
  since: number;
  timeoutMs: number;
  signal: AbortSignal;
}

type WaitForDownload = Extract<PageAction, { action: 'wait_for_download' }>;

/** The finished download, decoded as a file read from the host, with where it came from and went. */
export async function waitForDownload(action: WaitForDownload, ctx: DownloadContext): Promise<Decoded> {
  const seen = await downloadStarted(action, ctx);
  const failure = await Promise.race([seen.download.failure(), aborted(ctx.signal)]);
  const name = seen.download.suggestedFilename();
  if (failure) throw assertionFailed(`the download of ${JSON.stringify(name)} failed: ${failure}`);
  const path = await landedAt(name, action.folder, ctx);
  const bytes = await ctx.host.read(path);
  const file = await ctx.keep(name, bytes);
  const decoded = decode('file', bytes);
  return { ...decoded, fields: { ...decoded.fields, name, path, url: seen.download.url(), file } };
}

/** The first download since the step before began that fits, waiting for one up to the timeout. */
async function downloadStarted(action: WaitForDownload, ctx: DownloadContext): Promise<SeenDownload> {
  const fits = (d: SeenDownload) =>
    !d.taken && d.at >= ctx.since && (!action.name || matches(d.download.suggestedFilename(), action.name)) && (!action.url || matchesUrl(d.download.url(), action.url));
  const deadline = Date.now() + ctx.timeoutMs;
  for (;;) {
    const found = ctx.downloads.find(fits);
    if (found) {
      found.taken = true;
      return found;
    }
    if (Date.now() >= deadline) {
      const others = ctx.downloads.filter((d) => d.at >= ctx.since).map((d) => `${JSON.stringify(d.download.suggestedFilename())} from ${d.download.url()}`);
      throw assertionFailed(`no download${describeWanted(action)} began within ${ctx.timeoutMs} ms${others.length ? `; the downloads since the step before: ${others.join(', ')}` : ''}`);
    }
    await sleep(POLL_MS, ctx.signal);
  }
}

/**
 * Where Chromium wrote the file: under its suggested name (a download allowed over CDP replaces an
 * earlier file of that name), or uniquified (`a (1).csv`) where a browser keeps both; the newest.
 */
async function landedAt(name: string, folder: string, ctx: DownloadContext): Promise<string> {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const uniquified = new RegExp(`^${escape(stem)} \\(\\d+\\)${escape(ext)}$`);
  const entries = await ctx.host.list(folder);
  const candidates = entries
    .filter((e) => !e.is_dir && (e.name === name || uniquified.test(e.name)))
    .sort((a, b) => Date.parse(b.mod_time) - Date.parse(a.mod_time));
  if (!candidates.length) {
    const there = entries.map((e) => e.name).slice(0, 20).join(', ') || 'nothing';
    throw new StepFailure('infrastructure', `the download of ${JSON.stringify(name)} finished, but ${folder} on the browser host holds no such file (it holds ${there})`);
  }
  return candidates[0]!.path;
}

function describeWanted(action: WaitForDownload): string {
  const parts = [action.name && `named ${describeMatch(action.name)}`, action.url && `from ${typeof action.url === 'string' ? action.url : `/${action.url.matches}/`}`];
  const text = parts.filter(Boolean).join(' ');
  return text ? ` ${text}` : '';
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
