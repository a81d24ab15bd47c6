import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

describe('CDP proxy', () => {
  it('lets Playwright drive the session over cdp_ws_url, and the session outlives the connection', async () => {
    const b = (await svc.call('POST', '/browsers', { body: { viewport: { width: 1024, height: 700 } } })).body;
    const browser = await chromium.connectOverCDP(b.cdp_ws_url);
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto('data:text/html,<title>t</title><button onclick="this.textContent=`done`">go</button>');
    await page.click('button');
    expect(await page.textContent('button')).toBe('done');
    expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([1024, 700]);
    await browser.close();

    // Still active after the client went away, and a second client sees the same page.
    expect((await svc.call('GET', `/browsers/${b.session_id}`)).status).toBe(200);
    const again = await chromium.connectOverCDP(b.cdp_ws_url);
    expect(await again.contexts()[0]!.pages()[0]!.textContent('button')).toBe('done');
    await again.close();
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('never exposes Chromium’s own port', async () => {
    const b = (await svc.call('POST', '/browsers')).body;
    const port = new URL(svc.sessions.get(b.session_id)!.chromium.wsEndpoint).port;
    const text = JSON.stringify((await svc.call('GET', `/browsers/${b.session_id}`)).body);
    expect(text).not.toContain(`:${port}/`);
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('refuses a wrong token, another session’s token, and a deleted session', async () => {
    const a = (await svc.call('POST', '/browsers')).body;
    const b = (await svc.call('POST', '/browsers')).body;
    const wrong = a.cdp_ws_url.replace(/jwt=.*/, 'jwt=AAAA');
    await expect(chromium.connectOverCDP(wrong, { timeout: 5000 })).rejects.toThrow(/401/);
    const crossed = a.cdp_ws_url.replace(/jwt=.*/, b.cdp_ws_url.match(/jwt=.*/)[0]);
    await expect(chromium.connectOverCDP(crossed, { timeout: 5000 })).rejects.toThrow(/401/);
    await svc.call('DELETE', `/browsers/${a.session_id}`);
    await expect(chromium.connectOverCDP(a.cdp_ws_url, { timeout: 5000 })).rejects.toThrow(/404/);
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('disconnects connected clients when the session is deleted', async () => {
    const b = (await svc.call('POST', '/browsers')).body;
    const browser = await chromium.connectOverCDP(b.cdp_ws_url);
    const disconnected = new Promise<void>((resolve) => browser.on('disconnected', () => resolve()));
    expect((await svc.call('DELETE', `/browsers/${b.session_id}`)).status).toBe(204);
    await disconnected;
    expect(browser.isConnected()).toBe(false);
  });
});
