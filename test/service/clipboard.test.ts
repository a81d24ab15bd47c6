// A headless session's clipboard works whatever page is open, on Debian's Chromium and on the packaged
// headless shell: write and read on a data: page, a plain-http page on another host name and about:blank;
// what the API writes is what Ctrl+V pastes into the page, and what the page copies with Ctrl+C is what
// the API reads.
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const HTML = '<input id="t"><p id="p">copy me</p>';
/** A plain-http page on a real host name (not loopback, so not a secure context), answered by Playwright. */
const INSECURE = 'http://shop.example.test/';

const builds: Array<[string, () => Promise<string | undefined>]> = [
  ['the default Chromium', async () => undefined],
  ['the packaged headless shell', async () => (await import('@sparticuz/chromium')).default.executablePath()],
];

for (const [label, executable] of builds) {
  describe(`the clipboard of a headless session (${label})`, () => {
    let svc: TestService;
    let id: string;
    let browser: Browser;
    const post = (path: string, body?: unknown) => svc.call('POST', `/browsers/${id}/computer/${path}`, { body: body ?? {} });

    beforeAll(async () => {
      const path = await executable();
      svc = await startTestService(path ? { chromium: path } : {});
      id = (await svc.call('POST', '/browsers', { body: { viewport: { width: 800, height: 600 } } })).body.session_id;
      browser = await chromium.connectOverCDP((await svc.call('GET', `/browsers/${id}`)).body.cdp_ws_url);
      await browser.contexts()[0]!.route(`${INSECURE}**`, (route) => route.fulfill({ contentType: 'text/html', body: HTML }));
    });
    afterAll(async () => {
      await browser?.close();
      await svc?.close();
    });

    const pages = [`data:text/html,${HTML}`, INSECURE, 'about:blank'];

    it('writes and reads on pages that are not secure contexts', async () => {
      const page = browser.contexts()[0]!.pages()[0]!;
      for (const url of pages) {
        await page.goto(url);
        expect(await page.evaluate(() => isSecureContext)).toBe(false);
        const text = `on ${url.slice(0, 20)} ✓`;
        const written = await post('clipboard/write', { text });
        expect(written.status, JSON.stringify(written.body)).toBe(200);
        expect((await post('clipboard/read')).body).toEqual({ text });
      }
      // The helper tab used for that is gone again (Playwright hears of its close a moment later).
      await expect.poll(() => browser.contexts()[0]!.pages().length).toBe(1);
    });

    it("shares the page's own copy and paste", async () => {
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.goto(INSECURE);
      expect((await post('clipboard/write', { text: 'pasted by ctrl+v' })).status).toBe(200);
      await page.click('#t');
      expect((await post('press_key', { keys: ['ctrl+v'] })).status).toBe(200);
      await expect.poll(() => page.inputValue('#t')).toBe('pasted by ctrl+v');

      await page.evaluate(() => {
        const range = document.createRange();
        range.selectNodeContents(document.getElementById('p')!);
        getSelection()!.removeAllRanges();
        getSelection()!.addRange(range);
      });
      expect((await post('press_key', { keys: ['ctrl+c'] })).status).toBe(200);
      await expect.poll(async () => (await post('clipboard/read')).body.text).toBe('copy me');
    });
  });
}
