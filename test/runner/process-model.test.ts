// A headless session's process model: the headless shell (which the service picks for headless sessions
// when the machine has it) is given full Chromium's site isolation, a cross-site iframe in a renderer of its
// own. A service started with spareRenderers: false, as `bcs run` starts its embedded one, keeps no spare
// renderer beside it: a client opening a context per test would otherwise have a process started and
// killed, unused, with each context. By default the spare is kept, for a next page in the same context.
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTarget } from '../../runner/suite/target.js';
import { CloudClient } from '../../src/api/client.js';
import { startTestService } from '../helpers/service.js';

/** A service to create the session on, as a client of it, and its close. */
async function testService(spareRenderers: boolean): Promise<{ client: CloudClient; close(): Promise<void> }> {
  const svc = await startTestService({ spareRenderers });
  return { client: new CloudClient({ baseUrl: svc.baseUrl, apiKey: svc.apiKey }), close: svc.close };
}

const cases = [
  { name: 'a service by default', spareRenderers: true, open: () => testService(true) },
  { name: 'a service with spareRenderers: false', spareRenderers: false, open: () => testService(false) },
  // The product's own setting: the embedded service `bcs run` and the Vitest fixtures start.
  { name: "bcs run's embedded service", spareRenderers: false, open: () => openTarget({ standby: 0 }) },
];

for (const { name, spareRenderers, open } of cases) {
  describe(`a headless session's process model: ${name}`, () => {
    let service: Awaited<ReturnType<typeof open>>;
    let browser: Browser;

    beforeAll(async () => {
      service = await open();
      const { data } = await service.client.request<{ cdp_ws_url: string }>('POST', '/browsers', { body: { headless: true } });
      browser = await chromium.connectOverCDP(data.cdp_ws_url);
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
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

    it(`puts a cross-site iframe in a process of its own${spareRenderers ? '' : ' and keeps no spare renderer'}`, async () => {
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
      if (!spareRenderers) {
        // The page's renderer and the iframe's, and no third one waiting for the context's next site; all
        // gone with the context. (A kept spare comes and goes with the contexts: its count is Chromium's.)
        expect(await renderers()).toBe(before + 2);
        await context.close();
        await expect.poll(renderers, { timeout: 10_000 }).toBe(before);
      } else await context.close();
    });
  });
}
