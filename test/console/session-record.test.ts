// Recording a scenario from the console's session page, in real Chromium against the real service and under
// the console's content security policy: Record starts the recorder on the session's browser, the page is
// used through the live view beside it (a click on its canvas) and by Playwright's fill, the steps show as
// they are recorded, Stop ends it, and Download YAML saves the file the service answers.
// BCS_CONSOLE_SCREENSHOTS=1 also writes docs/console/session-record.png.
import { readFile } from 'node:fs/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as steps from '../helpers/console.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { ORDER_FORM, servePages, type PageSite } from '../helpers/recording-site.js';

let svc: TestService;
let site: PageSite;
let siteUrl: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  svc = await startTestService();
  site = await servePages(() => ORDER_FORM);
  siteUrl = site.url('/form.html');
  ({ browser, page } = await steps.watchedPage(svc, (p) => problems.push(p)));
});

afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await site?.close();
});

describe("the session page's recorder", () => {
  it('records what is done in the live view, shows the steps, stops, and downloads the YAML', { timeout: 180_000 }, async () => {
    const s = await steps.created(svc, '/browsers', { name: 'recorded-here', headless: true, viewport: { width: 1024, height: 700 } });
    const cdp = await chromium.connectOverCDP(s.cdp_ws_url);
    problems.length = 0;
    try {
      await steps.open(svc, page, `sessions/${s.session_id}`, 'Session recorded-here');
      await page.getByText('interactive', { exact: true }).waitFor();
      const recorder = page.getByRole('region', { name: 'Record a scenario' });
      await recorder.getByLabel('Start at').fill(siteUrl);
      await recorder.getByLabel('Name').fill('order');
      await recorder.getByRole('button', { name: 'Record' }).click();
      const status = recorder.locator('.record-status');
      await expect.poll(() => status.textContent(), { timeout: 60_000 }).toMatch(/^Recording: 1 step/);
      const yaml = recorder.getByLabel('Recorded scenario');

      // The session's page, seen by the test: the recorder's overlay is in it once its script runs there.
      const target = cdp.contexts()[0]!.pages()[0]!;
      await expect.poll(() => target.url(), { timeout: 30_000 }).toBe(siteUrl);
      await target.waitForSelector('x-pw-glass', { state: 'attached' });
      // The recorder listens a moment after its script is in the page; filling again only updates the one fill.
      await expect
        .poll(async () => (await target.getByLabel('Your name').fill('Ada'), await yaml.textContent()), { timeout: 60_000, interval: 500 })
        .toContain('- fill: { role: textbox, name: Your name, value: Ada }');

      // Greet clicked on the live view's canvas, at the button's middle in the frame's pixels.
      const box = (await target.getByTestId('greet').boundingBox())!;
      const canvas = page.locator('.live-view canvas');
      const { left, top, scale } = await canvas.evaluate((c: HTMLCanvasElement) => {
        const r = c.getBoundingClientRect();
        return { left: r.left + c.clientLeft, top: r.top + c.clientTop, scale: c.clientWidth / c.width };
      });
      await page.mouse.click(left + (box.x + box.width / 2) * scale, top + (box.y + box.height / 2) * scale);
      await expect.poll(() => target.textContent('#out')).toBe('Hello, Ada!');
      await expect.poll(() => yaml.textContent(), { timeout: 30_000 }).toContain('- click: { test_id: greet }');
      await steps.shot(page, 'session-record');

      await recorder.getByRole('button', { name: 'Stop' }).click();
      await expect.poll(() => status.textContent()).toBe('Stopped: 3 steps');
      const [download] = await Promise.all([page.waitForEvent('download'), recorder.getByRole('button', { name: 'Download YAML' }).click()]);
      expect(download.suggestedFilename()).toBe('order.yaml');
      const saved = await readFile((await download.path())!, 'utf8');
      const answered = (await svc.call('GET', `/browsers/${s.session_id}/recording/codegen`)).body;
      expect(saved).toBe(answered.yaml);
      expect(saved).toContain(`- goto: ${siteUrl}`);
      // Stopped, the form is back for the next recording.
      await recorder.getByRole('button', { name: 'Record' }).waitFor();
      // One 404 is expected, and Chromium logs it: the page's first look found no recording on the session.
      const notFound = 'Failed to load resource: the server responded with a status of 404 (Not Found)';
      expect(problems).toEqual([notFound]);
    } finally {
      await cdp.close();
      await svc.call('DELETE', `/browsers/${s.session_id}`);
    }
  });
});
