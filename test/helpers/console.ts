// The console tests' shared steps: create through the API (and insist it worked), sign in, open a page.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestService } from './service.js';

export async function created(svc: TestService, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await svc.call('POST', path, { body, headers });
  expect(res.status, `POST ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

export async function signIn(svc: TestService, on: Page, key: string): Promise<void> {
  await on.goto(`${svc.baseUrl}/`);
  await on.fill('input[name=key]', key);
  await on.click('button[type=submit]');
}

/** Opens a console page by its hash route (signing in first when the tab is not yet) and waits for its heading. */
export async function open(svc: TestService, page: Page, route: string, heading: string): Promise<void> {
  await page.goto(`${svc.baseUrl}/#/${route}`);
  // The script is deferred and renders at once: after the load event the form is there or it is not.
  if (await page.locator('input[name=key]').count()) {
    await page.fill('input[name=key]', svc.apiKey);
    await page.click('button[type=submit]');
  }
  await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
}

/** Where the docs' console screenshots go, when BCS_CONSOLE_SCREENSHOTS=1 asks for them. */
export const SHOTS = process.env.BCS_CONSOLE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/console/', import.meta.url)) : undefined;

/** With BCS_CONSOLE_SCREENSHOTS=1, saves the page as docs/console/<name>.png (the docs' screenshots); else nothing. */
export async function shot(on: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  await mkdir(SHOTS, { recursive: true });
  await on.screenshot({ path: `${SHOTS}${name}.png` });
}

/**
 * Chromium with a console page whose errors, uncaught exceptions and policy violations go to `problem`. The
 * violation listener is injected by the browser's protocol, so the page's own policy does not apply to it.
 */
export async function watchedPage(svc: TestService, problem: (text: string) => void): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: svc.chromium.path });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(() => {
    addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  const page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && problem(m.text()));
  page.on('pageerror', (e) => problem(`page error: ${e.message}`));
  return { browser, page };
}
