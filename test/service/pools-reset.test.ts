// Releasing with reuse resets the browser: what one lease leaves behind is gone for the next.
import Kernel from '@onkernel/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { headfulSupport } from '../../src/service/host/browser/xvfb.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const headful = await headfulSupport((await findChromium(process.env.BCS_CHROMIUM)).headlessShell);
if (!headful.available) console.warn(`skipping the headful pool reset test: ${headful.reason}`);

let svc: TestService;
let kernel: Kernel;
let site: Server;
let origin: string;
beforeAll(async () => {
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.setHeader('cache-control', 'max-age=3600');
    res.end(`<title>${req.url}</title><p>hello</p>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  svc = await startTestService({ standby: 0 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await svc.close();
  site.close();
});

/** What a page at the test origin can see of earlier visits. */
const leftovers = () => ({
  cookie: document.cookie,
  local: localStorage.getItem('k'),
  session: sessionStorage.getItem('s'),
  size: [innerWidth, innerHeight],
  history: history.length,
});

describe('pool release with reuse', () => {
  it('closes extra tabs and contexts and clears cookies, storage, permissions, downloads and the viewport', async () => {
    await kernel.browserPools.create({ name: 'reset', size: 1, viewport: { width: 1280, height: 800 } });
    await eventually(async () => ((await kernel.browserPools.retrieve('reset')).available_count === 1 ? true : undefined), 30_000);

    const first = await kernel.browserPools.acquire('reset', {});
    const browser = await chromium.connectOverCDP(first.cdp_ws_url);
    const context = browser.contexts()[0]!;
    const page = context.pages()[0]!;
    await page.goto(`${origin}/one`);
    await page.goto(`${origin}/two`);
    await page.evaluate(async () => {
      document.cookie = 'c=1; max-age=3600';
      localStorage.setItem('k', 'v');
      sessionStorage.setItem('s', 'v');
      await new Promise((resolve, reject) => {
        const open = indexedDB.open('leftover', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('things');
        open.onsuccess = () => resolve(open.result.close());
        open.onerror = () => reject(open.error);
      });
    });
    await context.grantPermissions(['geolocation'], { origin });
    await page.setViewportSize({ width: 500, height: 400 });
    await (await context.newPage()).goto(`${origin}/extra-tab`);
    await (await (await browser.newContext()).newPage()).goto(`${origin}/extra-context`);
    const dirty = await page.evaluate(leftovers);
    expect(dirty).toMatchObject({ cookie: 'c=1', local: 'v', session: 'v', size: [500, 400] });
    await svc.call('PUT', `/browsers/${first.session_id}/fs/write_file?path=/home/kernel/Downloads/report.txt`, { raw: 'secret' });
    expect(await geolocation(page)).toBe('granted');
    await browser.close();

    await kernel.browserPools.release('reset', { session_id: first.session_id, reuse: true });
    // The last holder's URL stops working as soon as the lease ends.
    await expect(chromium.connectOverCDP(first.cdp_ws_url, { timeout: 5_000 })).rejects.toThrow();

    const second = await kernel.browserPools.acquire('reset', {});
    expect(second.session_id).toBe(first.session_id);
    expect(second.cdp_ws_url).not.toBe(first.cdp_ws_url);
    const again = await chromium.connectOverCDP(second.cdp_ws_url);
    expect(again.contexts()).toHaveLength(1);
    const pages = again.contexts()[0]!.pages();
    expect(pages.map((p) => p.url())).toEqual(['about:blank']);
    const fresh = pages[0]!;
    await fresh.goto(`${origin}/one`);
    expect(await fresh.evaluate(leftovers)).toEqual({ cookie: '', local: null, session: null, size: [1280, 800], history: 2 });
    expect(await fresh.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).toEqual([]);
    expect(await geolocation(fresh)).not.toBe('granted');
    const downloads = await svc.call('GET', `/browsers/${second.session_id}/fs/list_files?path=/home/kernel/Downloads`);
    expect(downloads.body).toEqual([]);
    await again.close();
    await kernel.browserPools.release('reset', { session_id: second.session_id });
    await kernel.browserPools.delete('reset');
  });
});

describe.skipIf(!headful.available)('pool release with reuse, headful', () => {
  it('keeps the browser running with one fresh tab at its launch window size', async () => {
    await kernel.browserPools.create({ name: 'reset-headful', size: 1, headless: false, viewport: { width: 1024, height: 768 } });
    await eventually(async () => ((await kernel.browserPools.retrieve('reset-headful')).available_count === 1 ? true : undefined), 30_000);
    const first = await kernel.browserPools.acquire('reset-headful', {});
    const browser = await chromium.connectOverCDP(first.cdp_ws_url);
    const context = browser.contexts()[0]!;
    const page = context.pages()[0]!;
    await page.goto(`${origin}/headful`);
    const launched = await page.evaluate(() => [outerWidth, outerHeight]);
    await page.evaluate(() => localStorage.setItem('k', 'v'));
    await (await context.newPage()).goto(`${origin}/second`);
    const cdp = await context.newCDPSession(page);
    const { windowId } = await cdp.send('Browser.getWindowForTarget');
    await cdp.send('Browser.setWindowBounds', { windowId, bounds: { width: 600, height: 500 } });
    expect(await page.evaluate(() => [outerWidth, outerHeight])).not.toEqual(launched);
    await browser.close();

    await kernel.browserPools.release('reset-headful', { session_id: first.session_id });
    const second = await kernel.browserPools.acquire('reset-headful', {});
    expect(second.session_id).toBe(first.session_id);
    const again = await chromium.connectOverCDP(second.cdp_ws_url);
    const pages = again.contexts()[0]!.pages();
    expect(pages.map((p) => p.url())).toEqual(['about:blank']);
    await pages[0]!.goto(`${origin}/headful`);
    expect(await pages[0]!.evaluate(() => [localStorage.getItem('k'), outerWidth, outerHeight])).toEqual([null, ...launched]);
    await again.close();
    await kernel.browserPools.delete('reset-headful', { force: true });
  });
});

function geolocation(page: import('playwright-core').Page): Promise<string> {
  return page.evaluate(async () => (await navigator.permissions.query({ name: 'geolocation' })).state);
}
