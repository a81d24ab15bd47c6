// A service behind something else's address (`publicUrl`): every URL an answer carries starts with that
// origin, whatever Host the request came with, and the URLs work through it. The "proxy" is a real TCP
// forwarder on another port, so a URL that named the service's own address would be seen to.
import { createServer, connect, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.js';
import { replaySkipReason } from '../helpers/replays.js';

let svc: TestService;
let forwarder: Server;
let publicOrigin: string;

beforeAll(async () => {
  // The forwarder's port is known before the service starts, as a load balancer's address is.
  forwarder = createServer();
  await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
  publicOrigin = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
  svc = await startTestService({ publicUrl: `${publicOrigin}/` });
  const target = new URL(svc.baseUrl);
  forwarder.on('connection', (client) => {
    const upstream = connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
});
afterAll(async () => {
  await svc?.close();
  await new Promise((r) => forwarder?.close(r));
});

describe('publicUrl', () => {
  it("starts every URL of an answer with the public origin, not the request's Host", async () => {
    const created = await svc.call('POST', '/browsers');
    expect(created.status).toBe(200);
    const { session_id: id } = created.body;
    const ws = publicOrigin.replace(/^http/, 'ws');
    expect(created.body.cdp_ws_url).toMatch(new RegExp(`^${ws}/browsers/${id}/cdp\\?jwt=`));
    expect(created.body.webdriver_ws_url).toMatch(new RegExp(`^${ws}/browsers/${id}/bidi\\?jwt=`));
    expect(created.body.base_url).toBe(`${publicOrigin}/browsers/${id}`);
    expect(created.body.browser_live_view_url.startsWith(`${publicOrigin}/`)).toBe(true);
    // Listed, through a pool's answer and CDP discovery alike.
    const [listed] = (await svc.call('GET', '/browsers')).body;
    expect(listed.cdp_ws_url).toBe(created.body.cdp_ws_url);
    const version = await fetch(`${svc.baseUrl}/browsers/${id}/cdp/json/version?jwt=${new URL(created.body.cdp_ws_url).searchParams.get('jwt')}`);
    expect(((await version.json()) as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl.startsWith(`${ws}/browsers/${id}/cdp`)).toBe(true);
    // Replays need ffmpeg (replaySkipReason says why not, where it is missing).
    if (!replaySkipReason) {
      const replay = await svc.call('POST', `/browsers/${id}/replays`, { body: { framerate: 5 } });
      expect(replay.status).toBe(200);
      expect(replay.body.replay_view_url).toBe(`${publicOrigin}/browsers/${id}/replays/${replay.body.replay_id}`);
      await svc.call('POST', `/browsers/${id}/replays/${replay.body.replay_id}/stop`);
    }
    await svc.call('DELETE', `/browsers/${id}`);
  });

  it('gives URLs that work through the public address: Playwright over cdp_ws_url', async () => {
    const created = await svc.call('POST', '/browsers');
    const browser = await chromium.connectOverCDP(created.body.cdp_ws_url);
    try {
      const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      expect(await page.evaluate(() => 6 * 7)).toBe(42);
    } finally {
      await browser.close();
    }
    await svc.call('DELETE', `/browsers/${created.body.session_id}`);
  });

  it('turns an https public URL into wss:// socket URLs', async () => {
    const tls = await startTestService({ publicUrl: 'https://browsers.example.com' });
    try {
      const created = await tls.call('POST', '/browsers');
      expect(created.body.cdp_ws_url).toMatch(/^wss:\/\/browsers\.example\.com\/browsers\//);
      expect(created.body.base_url).toMatch(/^https:\/\/browsers\.example\.com\/browsers\//);
    } finally {
      await tls.close();
    }
  });

  it('refuses to start on a public URL that is not an origin', async () => {
    await expect(startTestService({ publicUrl: 'https://browsers.example.com/bcs' })).rejects.toThrow('must be an origin only');
  });
});
