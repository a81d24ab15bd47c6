// Headful sessions: Chromium on its own Xvfb display, driven by xdotool, xclip and ffmpeg.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { headfulSupport } from '../../src/service/host/browser/xvfb.js';
import { eventually, isAlive, startTestService, type TestService } from '../helpers/service.js';

const support = await headfulSupport((await findChromium(process.env.BCS_CHROMIUM)).headlessShell);
if (!support.available) console.warn(`skipping X11 tests: ${support.reason}`);

const HTML = `<!doctype html><body style="margin:0;height:3000px">
<textarea id="t" style="position:absolute;left:20px;top:20px;width:400px;height:120px"></textarea></body>`;

describe.skipIf(!support.available)('computer controls on a headful session (X11)', () => {
  let svc: TestService;
  let site: Server;
  let session: { session_id: string; cdp_ws_url: string; headless: boolean };
  let browser: Browser;
  let page: Page;
  /** Screen coordinates of a point in the page: the browser's toolbar sits above the page. */
  let toolbar = 0;
  const post = (path: string, body?: unknown) => svc.call('POST', `/browsers/${session.session_id}/computer/${path}`, body === undefined ? {} : { body });

  beforeAll(async () => {
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(HTML));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    svc = await startTestService();
    const res = await svc.call('POST', '/browsers', { body: { headless: false, viewport: { width: 1024, height: 768 } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    session = res.body;
    browser = await chromium.connectOverCDP(session.cdp_ws_url);
    page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
    // Chromium drops input that arrives before a page's first frame, and lays its toolbar out late on a busy
    // machine: wait for two frames, then for the window's frame to stop changing, before aiming at the page.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    let last = -1;
    toolbar = await eventually(async () => {
      const seen = last;
      last = await page.evaluate(() => outerHeight - innerHeight);
      return last > 0 && last === seen ? last : undefined;
    }, 30_000);
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
    site?.close();
  });

  it('runs on its own display at the asked size', async () => {
    expect(session.headless).toBe(false);
    const live = svc.sessions.get(session.session_id)!;
    expect(live.screen?.display).toMatch(/^:\d+$/);
    expect(await page.evaluate(() => [screen.width, screen.height])).toEqual([1024, 768]);
  });

  it('clicks, types and presses keys through the X server', async () => {
    await post('click_mouse', { x: 100, y: toolbar + 60 });
    // Apart from the typing, so that a lost click and lost keys fail differently.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('t');
    await post('type', { text: 'hello from X11' });
    await expect.poll(() => page.inputValue('#t')).toBe('hello from X11');
    await post('press_key', { keys: ['ctrl+a', 'BackSpace'] });
    await expect.poll(() => page.inputValue('#t')).toBe('');
    await post('batch', { actions: [{ type: 'type_text', type_text: { text: 'ab' } }, { type: 'press_key', press_key: { keys: ['Left', 'shift+c'] } }] });
    await expect.poll(() => page.inputValue('#t')).toBe('aCb');
    expect((await post('get_mouse_position')).body).toEqual({ x: 100, y: toolbar + 60 });
  });

  it('scrolls with wheel buttons', async () => {
    await post('scroll', { x: 500, y: 500, delta_y: 3 });
    await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(0);
  });

  it('captures the whole screen, browser chrome included', async () => {
    const res = await fetch(`${svc.baseUrl}/browsers/${session.session_id}/computer/screenshot`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}` },
    });
    const png = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('content-type')).toBe('image/png');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1024, 768]);
  });

  it('shares the X clipboard with the browser', async () => {
    await post('clipboard/write', { text: 'via xclip' });
    expect((await post('clipboard/read')).body).toEqual({ text: 'via xclip' });
    await page.fill('#t', '');
    await post('click_mouse', { x: 100, y: toolbar + 60 });
    await post('press_key', { keys: ['ctrl+v'] });
    await expect.poll(() => page.inputValue('#t')).toBe('via xclip');
  });

  it('stops the display with the session', async () => {
    const other = (await svc.call('POST', '/browsers', { body: { headless: false, viewport: { width: 800, height: 600 } } })).body;
    const xvfb = svc.sessions.get(other.session_id)!.screen!.pid;
    expect(isAlive(xvfb)).toBe(true);
    expect((await svc.call('DELETE', `/browsers/${other.session_id}`)).status).toBe(204);
    expect(isAlive(xvfb)).toBe(false);
  });
});
