// A headless session's process model: the headless shell (which the service picks for headless sessions
// when the machine has it) is given full Chromium's site isolation, a cross-site iframe in a renderer of
// its own, without the spare renderer that would go with it: a client opening a context per test would
// otherwise have a process started and killed, unused, with each context.
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, findHeadlessShell } from '../../src/service/host/browser/chromium-path.js';
import { startTestService, type TestService } from '../helpers/service.js';

// Full Chromium (on a machine without the shell) keeps its own spare renderer; only the isolation is checked.
const shell = await findHeadlessShell(await findChromium(process.env.BCS_CHROMIUM), process.env.BCS_HEADLESS_SHELL);
if (!shell) console.warn('the spare renderer check is skipped: no headless shell here, sessions run full Chromium');

describe("a headless session's process model", () => {
  let svc: TestService;
  let browser: Browser;

  beforeAll(async () => {
    svc = await startTestService();
    const created = await svc.call('POST', '/browsers', { body: { headless: true } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    browser = await chromium.connectOverCDP((created.body as { cdp_ws_url: string }).cdp_ws_url);
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  /** The renderer processes of the session's browser, as Chromium itself counts them. */
  const renderers = async (): Promise<number> => {
    const cdp = await browser.newBrowserCDPSession();
    try {
      const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: Array<{ type: string }> };
      return processInfo.filter((p) => p.type === 'renderer').length;
    } finally {
      await cdp.detach();
    }
  };

  it('puts a cross-site iframe in a process of its own and keeps no spare renderer per context', async () => {
    const before = await renderers();
    const context = await browser.newContext();
    // Two sites served by the client itself: nothing leaves the browser.
    await context.route('http://site-a.test/**', (route) => route.fulfill({ contentType: 'text/html', body: '<h1>a</h1><iframe src="http://site-b.test/"></iframe>' }));
    await context.route('http://site-b.test/**', (route) => route.fulfill({ contentType: 'text/html', body: '<p>b</p>' }));
    const page = await context.newPage();
    await page.goto('http://site-a.test/');
    await expect.poll(() => page.frames().length).toBe(2);
    await expect(page.frames()[1]!.locator('p').textContent()).resolves.toBe('b');

    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: Array<{ type: string; url: string }> };
    await cdp.detach();
    expect(targetInfos.filter((t) => t.type === 'iframe').map((t) => t.url)).toEqual(['http://site-b.test/']);
    if (shell) {
      // The page's renderer and the iframe's: no third one waiting for the context's next site.
      expect(await renderers()).toBe(before + 2);
      await context.close();
      await expect.poll(renderers, { timeout: 10_000 }).toBe(before);
    } else await context.close();
  });
});
