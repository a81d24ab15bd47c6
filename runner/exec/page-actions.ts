// Page steps, performed with Playwright on the session's page.
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative } from 'node:path';
import type { Page } from 'playwright-core';
import type { PageAction } from '../../src/scenario/plan.js';
import { locate } from './locate.js';
import { expectOnPage } from './page-expect.js';
import type { WebAction } from './web-actions.js';
import type { Artifact } from '../reporters/results.js';

export interface PageContext {
  page: Page;
  timeoutMs: number;
  /** Where this scenario's artifacts go; artifact paths are reported relative to `outputRoot`. */
  artifactDir: string;
  outputRoot: string;
  signal: AbortSignal;
}

/** Runs one page action; returns the artifacts it produced. */
export async function performPageAction(action: PageAction, ctx: PageContext): Promise<Artifact[]> {
  const { page, timeoutMs: timeout } = ctx;
  switch (action.action) {
    case 'goto':
      await page.goto(action.base_url ? new URL(action.url, action.base_url).href : action.url, { waitUntil: action.wait_until ?? 'load', timeout });
      return [];
    case 'go_back':
      await page.goBack({ waitUntil: action.wait_until ?? 'load', timeout });
      return [];
    case 'go_forward':
      await page.goForward({ waitUntil: action.wait_until ?? 'load', timeout });
      return [];
    case 'reload':
      await page.reload({ waitUntil: action.wait_until ?? 'load', timeout });
      return [];
    case 'click':
      // A double click is Playwright's dblclick, and its failure should say so.
      if (action.click_count === 2) await locate(page, action.target).dblclick({ button: action.button, timeout });
      else await locate(page, action.target).click({ button: action.button, clickCount: action.click_count, timeout });
      return [];
    case 'fill':
      await locate(page, action.target).fill(action.value, { timeout });
      return [];
    case 'press':
      if (action.target) await locate(page, action.target).press(action.key, { timeout });
      else await page.keyboard.press(action.key);
      return [];
    case 'hover':
      await locate(page, action.target).hover({ timeout });
      return [];
    case 'check':
      await locate(page, action.target).check({ timeout });
      return [];
    case 'uncheck':
      await locate(page, action.target).uncheck({ timeout });
      return [];
    case 'focus':
      await locate(page, action.target).focus({ timeout });
      return [];
    case 'scroll_into_view':
      await locate(page, action.target).scrollIntoViewIfNeeded({ timeout });
      return [];
    case 'select':
      // A value or a label: Playwright matches either when given plain strings.
      await locate(page, action.target).selectOption(action.option, { timeout });
      return [];
    case 'type':
      if (action.target) await locate(page, action.target).pressSequentially(action.text, { delay: action.delay_ms, timeout });
      else await page.keyboard.type(action.text, { delay: action.delay_ms });
      return [];
    case 'drag':
      await locate(page, action.target).dragTo(locate(page, action.to), { timeout });
      return [];
    case 'set_input_files':
      // As bytes, not paths: the browser may run in a sandbox or on another host, where our paths mean nothing.
      await locate(page, action.target).setInputFiles(await Promise.all(action.files.map(filePayload)), { timeout });
      return [];
    case 'expect': {
      const { action: _action, ...expectation } = action;
      await expectOnPage(page, expectation, ctx.timeoutMs);
      return [];
    }
    case 'screenshot':
      return [await screenshotPage(page, join(ctx.artifactDir, action.file), ctx.outputRoot, timeout, action.full_page)];
    case 'sleep':
      await sleep(action.ms, ctx.signal);
      return [];
    default:
      // Only the actions other modules perform get here: a page action the compiler gains without a case
      // above (or there) does not type-check.
      action satisfies WebAction | Extract<PageAction, { action: 'expect_screenshot' | 'expect_accessible' }>;
      throw new Error(`'${action.action}' is a page-and-traffic step: runner/exec/page-web.ts performs it`);
  }
}

const MIME_TYPES: Record<string, string> = {
  '.txt': 'text/plain', '.csv': 'text/csv', '.json': 'application/json', '.pdf': 'application/pdf', '.html': 'text/html',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.webp': 'image/webp',
  '.zip': 'application/zip', '.xml': 'application/xml', '.mp4': 'video/mp4',
};

async function filePayload(file: string): Promise<{ name: string; mimeType: string; buffer: Buffer }> {
  return { name: basename(file), mimeType: MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream', buffer: await readFile(file) };
}

/** A PNG of the page at `file`, reported relative to `outputRoot`. */
export async function screenshotPage(page: Page, file: string, outputRoot: string, timeout: number, fullPage = false): Promise<Artifact> {
  await mkdir(dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage, timeout });
  return { type: 'screenshot', path: relative(outputRoot, file) };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
