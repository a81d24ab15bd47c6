// The browser context as the scenario's steps see it across pages: which page they act on (popups and
// tabs), how dialogs are answered, which requests are routed, which responses arrived, and HTTP requests
// made with the context's cookies. Watched from the moment Playwright connects.
import type { EventEmitter } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BrowserContext, Dialog, Page, Request, Response, Route } from 'playwright-core';
import type { Assertion, HttpRequest, Match, UrlPattern } from '../../src/scenario/plan.js';
import { savedValue } from '../../src/scenario/template.js';
import { clipped } from './api-ops.js';
import { failedChecks, failureMessage } from './checks.js';
import type { Decoded } from './decode.js';
import { StepFailure, assertionFailed } from './failures.js';
import { describeMatch, matches, matchesUrl } from './matching.js';
import { sleep } from './page-actions.js';
import { waitForDownload, type HostFiles, type SeenDownload } from './page-downloads.js';
import { awaitOpenedPages, watchOpenedPages } from './opened-pages.js';
import { isWebAction, type WebAction } from './web-actions.js';

/** How many responses are kept for `wait_for_response` to look back at. */
const RESPONSES_KEPT = 1_000;
const PAGE_POLL_MS = 50;

export interface WebState {
  context: BrowserContext;
  /** The answer for the next dialog; none: dismissed. */
  nextDialog?: { accept: boolean; prompt_text?: string; message?: Match };
  /** A dialog that did not say what was expected: the step that opened it fails. */
  dialogFailure?: string;
  responses: { response: Response; at: number; taken: boolean }[];
  routes: { url: UrlPattern; handler: (route: Route, request: Request) => Promise<void> }[];
  downloads: SeenDownload[];
  /** When each page the context reported opened. */
  openedAt: WeakMap<Page, number>;
}

export function watchContext(context: BrowserContext): WebState {
  const web: WebState = { context, responses: [], routes: [], downloads: [], openedAt: watchOpenedPages(context) };
  const watchDownloads = (page: Page) => page.on('download', (download) => void web.downloads.push({ download, at: Date.now(), taken: false }));
  context.pages().forEach(watchDownloads);
  context.on('page', watchDownloads);
  // With a listener, Playwright leaves every dialog to us: answered as declared, else dismissed, never left open.
  context.on('dialog', (dialog) => void answer(web, dialog));
  context.on('response', (response) => {
    web.responses.push({ response, at: Date.now(), taken: false });
    if (web.responses.length > RESPONSES_KEPT) web.responses.shift();
  });
  return web;
}

async function answer(web: WebState, dialog: Dialog): Promise<void> {
  const wanted = web.nextDialog;
  // A handler a script set (`page.once('dialog', ...)`) answers it when no dialog step did: as in Playwright.
  if (!wanted && (dialogListeners(dialog.page()) > 0 || dialogListeners(web.context) > 1)) return;
  web.nextDialog = undefined;
  if (wanted?.message && !matches(dialog.message(), wanted.message)) {
    web.dialogFailure = `expected a ${dialog.type()} dialog saying ${describeMatch(wanted.message)}, got ${JSON.stringify(dialog.message())} (dismissed it)`;
    await dialog.dismiss().catch(() => {});
    return;
  }
  await (wanted?.accept ? dialog.accept(wanted.prompt_text) : dialog.dismiss()).catch(() => {});
}

/** Playwright's pages and contexts are Node event emitters, though their types do not say so. */
function dialogListeners(emitter: Page | BrowserContext | null): number {
  return emitter ? (emitter as unknown as EventEmitter).listenerCount('dialog') : 0;
}

export interface WebContext {
  web: WebState;
  page: Page;
  /** Makes `page` the one later steps act on. */
  setPage(page: Page): void;
  scope: Record<string, unknown>;
  timeoutMs: number;
  signal: AbortSignal;
  /** When the step before this one started: `wait_for_response` looks at what arrived since. */
  since: number;
  /** What the step got back, for its result. */
  output(value: unknown): void;
  soft(message: string): void;
  /** The browser host's files, for downloads. */
  host(sessionPath: string): HostFiles;
  /** Keeps a file among the step's artifacts; its path relative to the output folder. */
  keep(name: string, bytes: Uint8Array): Promise<string>;
}

export { isWebAction };

export async function performWebAction(action: WebAction, ctx: WebContext): Promise<void> {
  const { web } = ctx;
  switch (action.action) {
    case 'switch_page':
      return ctx.setPage(await findPage(action, ctx));
    case 'close_page': {
      await ctx.page.close();
      const rest = web.context.pages();
      if (!rest.length) throw new StepFailure('step', 'that was the last page: nothing is left to act on');
      return ctx.setPage(rest.at(-1)!);
    }
    case 'dialog':
      web.nextDialog = { accept: action.accept, prompt_text: action.prompt_text, message: action.message };
      return;
    case 'route': {
      const handler = routeHandler(action);
      await web.context.route(pattern(action.url), handler, action.times ? { times: action.times } : undefined);
      web.routes.push({ url: action.url, handler });
      return;
    }
    case 'unroute': {
      const removed = web.routes.filter((r) => action.url === undefined || sameUrl(r.url, action.url));
      if (action.url !== undefined && !removed.length) throw new StepFailure('step', `no route for ${JSON.stringify(action.url)} to remove`);
      for (const r of removed) await web.context.unroute(pattern(r.url), r.handler);
      web.routes = web.routes.filter((r) => !removed.includes(r));
      return;
    }
    case 'request':
      return request(action, ctx);
    case 'wait_for_response':
      return waitForResponse(action, ctx);
    case 'wait_for_download': {
      const { timeoutMs, since, signal, keep } = ctx;
      const decoded = await waitForDownload(action, { downloads: web.downloads, host: ctx.host(action.session_path), keep, since, timeoutMs, signal });
      check(action.expect, action.expect_soft, decoded, ctx);
      if (action.save) ctx.scope[action.save] = savedValue(decoded.text, decoded.fields);
      const { name, path, file, size_bytes } = decoded.fields;
      return ctx.output({ name, path, file, size_bytes });
    }
    case 'save_storage_state':
      await mkdir(dirname(action.file), { recursive: true });
      await web.context.storageState({ path: action.file });
      return;
    default:
      // A web action without a case here does not type-check.
      action satisfies never;
  }
}

async function findPage(want: Extract<WebAction, { action: 'switch_page' }>, ctx: WebContext): Promise<Page> {
  const deadline = Date.now() + ctx.timeoutMs;
  // The pages the previous step opened count, however late Playwright gets to report them (`index: -1`
  // would otherwise be the opener whenever the popup's server is slower than the next step).
  await awaitOpenedPages(ctx.web.context, deadline, ctx.signal);
  let seen: string[] = [];
  for (;;) {
    const pages = ctx.web.context.pages();
    if (want.index !== undefined) {
      const page = pages.at(want.index);
      if (page) return loaded(page, ctx, deadline);
    } else {
      seen = [];
      for (const page of pages) {
        const url = page.url();
        const title = await page.title().catch(() => '');
        seen.push(`${JSON.stringify(title)} ${url}`);
        if ((!want.url || matches(url, want.url)) && (!want.title || matches(title, want.title))) return loaded(page, ctx, deadline);
      }
    }
    if (Date.now() >= deadline) {
      const wanted = [want.url && `url ${describeMatch(want.url)}`, want.title && `title ${describeMatch(want.title)}`, want.index !== undefined && `index ${want.index}`].filter(Boolean).join(', ');
      throw assertionFailed(`no page with ${wanted} within ${ctx.timeoutMs} ms; the pages: ${seen.length ? seen.join('; ') : `${pages.length} open`}`);
    }
    await sleep(PAGE_POLL_MS, ctx.signal);
  }
}

/**
 * A page the previous step opened, once its document is parsed, as Playwright Test users wait for a popup
 * (`await popup.waitForLoadState()`); a page that was already there is taken as it is.
 */
async function loaded(page: Page, ctx: WebContext, deadline: number): Promise<Page> {
  const openedAt = ctx.web.openedAt.get(page);
  if (openedAt !== undefined && openedAt >= ctx.since) {
    // Not loaded in time is for the steps that follow to find out, with their own waiting and messages.
    await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, deadline - Date.now()) }).catch(() => {});
  }
  return page;
}

function routeHandler(action: Extract<WebAction, { action: 'route' }>): (route: Route, request: Request) => Promise<void> {
  return async (route, req) => {
    if (action.fulfill) {
      const f = action.fulfill;
      await route.fulfill({ status: f.status ?? 200, headers: f.headers, contentType: f.content_type, json: f.json, body: f.body, path: f.file });
    } else if (action.abort) {
      await route.abort(action.abort);
    } else {
      await route.continue({ headers: { ...req.headers(), ...action.headers } });
    }
  };
}

async function request(action: HttpRequest, ctx: WebContext): Promise<void> {
  const url = action.base_url ? new URL(action.url, action.base_url).href : action.url;
  const response = await ctx.web.context.request.fetch(url, {
    method: action.method,
    headers: action.headers,
    ...(action.json !== undefined ? { data: action.json } : action.data !== undefined ? { data: action.data } : {}),
    ...(action.form ? { form: action.form } : {}),
    timeout: ctx.timeoutMs,
    failOnStatusCode: false,
    maxRedirects: 20,
  });
  const decoded = decodeResponse(response.status(), response.headers(), await response.text(), response.url());
  check(action.expect, action.expect_soft, decoded, ctx);
  if (action.save) ctx.scope[action.save] = savedValue(decoded.text, decoded.fields);
  ctx.output(summary(decoded));
}

async function waitForResponse(action: Extract<WebAction, { action: 'wait_for_response' }>, ctx: WebContext): Promise<void> {
  const want = (r: Response) => matchesUrl(r.url(), action.url) && (!action.method || r.request().method() === action.method) && (!action.status || r.status() === action.status);
  const earlier = ctx.web.responses.find((r) => !r.taken && r.at >= ctx.since && want(r.response));
  let response: Response;
  if (earlier) {
    earlier.taken = true;
    response = earlier.response;
  } else {
    response = await ctx.web.context.waitForEvent('response', { predicate: want, timeout: ctx.timeoutMs }).catch((err: Error) => {
      if (err.name !== 'TimeoutError') throw err;
      const urls = ctx.web.responses.filter((r) => r.at >= ctx.since).map((r) => `${r.response.status()} ${r.response.url()}`).slice(-5);
      throw assertionFailed(`no response from ${JSON.stringify(action.url)} within ${ctx.timeoutMs} ms${urls.length ? `; the latest: ${urls.join(', ')}` : '; none arrived'}`);
    });
    const logged = ctx.web.responses.find((r) => r.response === response);
    if (logged) logged.taken = true;
  }
  const body = await response.text().catch(() => '');
  const decoded = decodeResponse(response.status(), response.headers(), body, response.url());
  check(action.expect, action.expect_soft, decoded, ctx);
  if (action.save) ctx.scope[action.save] = savedValue(decoded.text, decoded.fields);
  ctx.output(summary(decoded));
}

function decodeResponse(status: number, headers: Record<string, string>, text: string, url: string): Decoded {
  const fields: Record<string, unknown> = { status, headers, text, url };
  // Each header also as its own field, so `expect: { headers: { content-type: ... } }` checks it by name.
  for (const [name, value] of Object.entries(headers)) fields[`headers.${name.toLowerCase()}`] = value;
  const decoded: Decoded = { fields, text };
  try {
    fields.json = JSON.parse(text);
  } catch {
    decoded.absent = { json: 'the response body is not JSON' };
  }
  return decoded;
}

function check(expect: Assertion[] | undefined, soft: Assertion[] | undefined, decoded: Decoded, ctx: WebContext): void {
  const failed = failedChecks(expect ?? [], decoded);
  if (failed.length) throw assertionFailed(failureMessage(failed, decoded));
  const softFailed = failedChecks(soft ?? [], decoded);
  if (softFailed.length) ctx.soft(failureMessage(softFailed, decoded));
}

function summary(decoded: Decoded): Record<string, unknown> {
  const { status, url, text } = decoded.fields as { status: number; url: string; text: string };
  return { status, url, text: clipped(text) };
}

function pattern(url: UrlPattern): string | RegExp {
  return typeof url === 'string' ? url : new RegExp(url.matches);
}

function sameUrl(a: UrlPattern, b: UrlPattern): boolean {
  return typeof a === 'string' ? a === b : typeof b !== 'string' && a.matches === b.matches;
}
