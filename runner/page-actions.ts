// Page steps, performed with Playwright on the session's page.
import { mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { Match, PageAction, Target } from '../src/scenario/plan.js';
import { assertionFailed } from './failures.js';
import type { Artifact } from './results.js';

export interface PageContext {
  page: Page;
  timeoutMs: number;
  /** Where this scenario's artifacts go; artifact paths are reported relative to `outputRoot`. */
  artifactDir: string;
  outputRoot: string;
  signal: AbortSignal;
}

type Roles = Parameters<Page['getByRole']>[0];

export function locate(page: Page, target: Target): Locator {
  if ('selector' in target) return page.locator(target.selector);
  if ('role' in target) return page.getByRole(target.role as Roles, { name: target.name, exact: target.exact });
  if ('text' in target) return page.getByText(target.text, { exact: target.exact });
  if ('label' in target) return page.getByLabel(target.label, { exact: target.exact });
  if ('placeholder' in target) return page.getByPlaceholder(target.placeholder, { exact: target.exact });
  return page.getByTestId(target.test_id);
}

export function describeTarget(target: Target): string {
  if ('selector' in target) return target.selector;
  if ('role' in target) return `role=${target.role}${target.name ? `[name="${target.name}"]` : ''}`;
  if ('text' in target) return `text="${target.text}"`;
  if ('label' in target) return `label="${target.label}"`;
  if ('placeholder' in target) return `placeholder="${target.placeholder}"`;
  return `test_id="${target.test_id}"`;
}

/** Runs one page action; returns the artifacts it produced. */
export async function performPageAction(action: PageAction, ctx: PageContext): Promise<Artifact[]> {
  const { page, timeoutMs: timeout } = ctx;
  switch (action.action) {
    case 'goto':
      await page.goto(action.base_url ? new URL(action.url, action.base_url).href : action.url, { waitUntil: action.wait_until ?? 'load', timeout });
      return [];
    case 'click':
      await locate(page, action.target).click({ button: action.button, clickCount: action.click_count, timeout });
      return [];
    case 'fill':
      await locate(page, action.target).fill(action.value, { timeout });
      return [];
    case 'press':
      if (action.target) await locate(page, action.target).press(action.key, { timeout });
      else await page.keyboard.press(action.key);
      return [];
    case 'expect':
      await expectOnPage(action, ctx);
      return [];
    case 'screenshot':
      return [await screenshotPage(page, join(ctx.artifactDir, action.file), ctx.outputRoot, timeout, action.full_page)];
    case 'sleep':
      await sleep(action.ms, ctx.signal);
      return [];
  }
}

/** A PNG of the page at `file`, reported relative to `outputRoot`. */
export async function screenshotPage(page: Page, file: string, outputRoot: string, timeout: number, fullPage = false): Promise<Artifact> {
  await mkdir(dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage, timeout });
  return { type: 'screenshot', path: relative(outputRoot, file) };
}

type ExpectAction = Extract<PageAction, { action: 'expect' }>;

/** Polls every condition until all hold at once, or reports each one still failing at the deadline. */
async function expectOnPage(action: ExpectAction, ctx: PageContext): Promise<void> {
  const { page } = ctx;
  const deadline = Date.now() + ctx.timeoutMs;
  for (;;) {
    const failures: string[] = [];
    if (action.text !== undefined && !(await page.getByText(action.text).first().isVisible().catch(() => false))) {
      failures.push(`expected text "${action.text}" to be visible`);
    }
    if (action.visible && !(await locate(page, action.visible).first().isVisible().catch(() => false))) {
      failures.push(`expected ${describeTarget(action.visible)} to be visible`);
    }
    if (action.url) {
      const url = page.url();
      if (!matches(url, action.url)) failures.push(`expected url ${describeMatch(action.url)}, got "${url}"`);
    }
    if (action.title) {
      const title = await page.title().catch(() => '');
      if (!matches(title, action.title)) failures.push(`expected title ${describeMatch(action.title)}, got "${title}"`);
    }
    if (failures.length === 0) return;
    if (Date.now() >= deadline) throw assertionFailed(`${failures.join('; ')} (waited ${ctx.timeoutMs} ms)`);
    await sleep(Math.min(100, Math.max(0, deadline - Date.now())), ctx.signal);
  }
}

export function matches(value: string, m: Match): boolean {
  if ('equals' in m) return value === m.equals;
  if ('contains' in m) return value.includes(m.contains);
  return new RegExp(m.matches).test(value);
}

function describeMatch(m: Match): string {
  if ('equals' in m) return `to be "${m.equals}"`;
  if ('contains' in m) return `to contain "${m.contains}"`;
  return `to match /${m.matches}/`;
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
