// The live view over its WebSocket, with the `ws` client: frames of the session's screen, input forwarded
// into the page (checked with Playwright on the same session), view-only links, tokens, the end of a session.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { headfulSupport } from '../../src/service/host/browser/xvfb.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const headful = await headfulSupport((await findChromium(process.env.BCS_CHROMIUM)).headlessShell);
if (!headful.available) console.warn(`skipping the headful live view test: ${headful.reason}`);

const PAGE = `<!doctype html><body style="margin:0">
<button id="b" style="position:absolute;left:40px;top:40px;width:200px;height:80px" onclick="this.textContent='clicked '+event.detail">press</button>
<input id="t" style="position:absolute;left:40px;top:200px;width:300px">
<div style="height:4000px"></div></body>`;

interface Session { session_id: string; cdp_ws_url: string; browser_live_view_url: string }

/** A live view connection that keeps what it received. */
class Viewer {
  readonly frames: Buffer[] = [];
  readonly messages: Record<string, unknown>[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) this.frames.push(data as Buffer);
      else this.messages.push(JSON.parse(String(data)));
    });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<Viewer> {
    const ws = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Viewer(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  send(msg: object): void {
    this.ws.send(JSON.stringify(msg));
  }

  message(type: string): Promise<Record<string, unknown>> {
    return eventually(() => this.messages.find((m) => m.type === type), 30_000);
  }
}

/** `/live/{id}?token=T` as the WebSocket address of that view. */
const socketUrl = (liveUrl: string) => {
  const url = new URL(liveUrl);
  return `ws://${url.host}/browsers/${url.pathname.split('/')[2]}/live?token=${url.searchParams.get('token')}`;
};

describe('live view', () => {
  let svc: TestService;
  let session: Session;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    svc = await startTestService();
    const res = await svc.call('POST', '/browsers', { body: { viewport: { width: 800, height: 600 } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    session = res.body;
    browser = await chromium.connectOverCDP(session.cdp_ws_url);
    page = browser.contexts()[0]!.pages()[0]!;
    await page.setContent(PAGE);
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('streams the page and sends clicks, keys and text into it', async () => {
    expect(session.browser_live_view_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/live/${session.session_id}\\?token=i\\.`));
    const viewer = await Viewer.open(socketUrl(session.browser_live_view_url));
    expect(await viewer.message('hello')).toEqual({ type: 'hello', mode: 'interactive', headless: true, width: 800, height: 600 });
    const first = await eventually(() => viewer.frames[0], 30_000);
    expect(first.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(first.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));

    viewer.send({ type: 'mouse', action: 'move', x: 100, y: 70 });
    viewer.send({ type: 'mouse', action: 'down', x: 100, y: 70, button: 'left' });
    viewer.send({ type: 'mouse', action: 'up', x: 100, y: 70, button: 'left' });
    await expect.poll(() => page.textContent('#b')).toBe('clicked 1');
    // Two presses sent at once are a double click, as a person's would be (the count is by arrival).
    // Frames are counted from before the page changes: the repaint's frame may go out before the poll sees the text.
    const before = viewer.frames.length;
    await page.evaluate(() => (document.querySelector('#b')!.textContent = 'press'));
    for (const action of ['down', 'up', 'down', 'up']) viewer.send({ type: 'mouse', action, x: 200, y: 70, button: 'left' });
    await expect.poll(() => page.textContent('#b')).toBe('clicked 2');
    // The page repainted: a new frame went out.
    await eventually(() => (viewer.frames.length > before ? true : undefined), 30_000);

    await page.focus('#t');
    for (const key of ['h', 'I', 'Dead', 'Backspace']) {
      viewer.send({ type: 'key', action: 'down', key });
      viewer.send({ type: 'key', action: 'up', key });
    }
    viewer.send({ type: 'text', text: ' héllo' });
    await expect.poll(() => page.inputValue('#t')).toBe('h héllo');
    viewer.send({ type: 'wheel', x: 400, y: 300, delta_x: 0, delta_y: 60 });
    viewer.send({ type: 'wheel', x: 400, y: 300, delta_x: 0, delta_y: 60 });
    await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(0);

    viewer.send({ type: 'ping', t: 42 });
    expect(await viewer.message('pong')).toEqual({ type: 'pong', t: 42 });
    viewer.send({ type: 'mouse', action: 'jump', x: 1, y: 1 });
    viewer.send({ type: 'launch' } as object);
    await eventually(() => (viewer.messages.filter((m) => m.code === 'invalid_message').length === 2 ? true : undefined), 30_000);
    expect(viewer.messages.filter((m) => m.code === 'invalid_message').map((m) => m.message)).toEqual([
      "a 'mouse' message has missing or out-of-range fields",
      "a message's type must be one of mouse, wheel, key, text, ping",
    ]);
    viewer.ws.close();
    await viewer.closed;
  });

  it('a view-only link watches and sends nothing; an API key opens it too; a wrong token is refused', async () => {
    const link = await svc.call('GET', `/browsers/${session.session_id}/live_view?mode=view`);
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({ mode: 'view', url: expect.stringMatching(/\?token=v\./) });
    const watcher = await Viewer.open(socketUrl(link.body.url));
    expect(await watcher.message('hello')).toMatchObject({ mode: 'view' });
    await eventually(() => watcher.frames[0], 30_000);
    await page.evaluate(() => (document.querySelector('#b')!.textContent = 'untouched'));
    watcher.send({ type: 'mouse', action: 'down', x: 100, y: 70, button: 'left' });
    watcher.send({ type: 'mouse', action: 'up', x: 100, y: 70, button: 'left' });
    expect(await watcher.message('error')).toMatchObject({ code: 'view_only' });
    expect(await page.textContent('#b')).toBe('untouched');

    // The view-only token does not become interactive by changing its mode letter.
    const forged = socketUrl(link.body.url).replace('token=v.', 'token=i.');
    await expect(Viewer.open(forged)).rejects.toThrow('status 401');
    await expect(Viewer.open(socketUrl(session.browser_live_view_url).replace(/token=.*/, 'token=i.nope'))).rejects.toThrow('status 401');
    await expect(Viewer.open(`ws://${new URL(svc.baseUrl).host}/browsers/${session.session_id}/live`)).rejects.toThrow('status 401');
    const byKey = await Viewer.open(`ws://${new URL(svc.baseUrl).host}/browsers/${session.session_id}/live`, { authorization: `Bearer ${svc.apiKey}` });
    expect(await byKey.message('hello')).toMatchObject({ mode: 'interactive' });
    // Another session's link does not open this one.
    const other = (await svc.call('POST', '/browsers', { body: {} })).body as Session;
    const crossed = socketUrl(other.browser_live_view_url).replace(other.session_id, session.session_id);
    await expect(Viewer.open(crossed)).rejects.toThrow('status 401');
    await svc.call('DELETE', `/browsers/${other.session_id}`);
    watcher.ws.close();
    byKey.ws.close();
    await Promise.all([watcher.closed, byKey.closed]);
  });

  it('shows and drives the tab in front: a page opened in another context, then the one left when it closes', async () => {
    const viewer = await Viewer.open(socketUrl(session.browser_live_view_url));
    await viewer.message('hello');
    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    const front = await context.newPage();
    await front.setContent(PAGE.replace('press', 'front'));
    viewer.send({ type: 'mouse', action: 'down', x: 100, y: 70, button: 'left' });
    viewer.send({ type: 'mouse', action: 'up', x: 100, y: 70, button: 'left' });
    await expect.poll(() => front.textContent('#b')).toBe('clicked 1');
    // The computer API drives the same tab as the live view.
    await front.evaluate(() => (document.querySelector('#b')!.textContent = 'front'));
    expect((await svc.call('POST', `/browsers/${session.session_id}/computer/click_mouse`, { body: { x: 100, y: 70 } })).status).toBe(200);
    await expect.poll(() => front.textContent('#b')).toMatch(/^clicked \d$/);
    const before = viewer.frames.length;
    await context.close();
    await page.evaluate(() => {
      scrollTo(0, 0); // the first test scrolled it
      document.querySelector('#b')!.textContent = 'back';
    });
    await eventually(() => (viewer.frames.length > before ? true : undefined), 30_000);
    viewer.send({ type: 'mouse', action: 'down', x: 100, y: 70, button: 'left' });
    viewer.send({ type: 'mouse', action: 'up', x: 100, y: 70, button: 'left' });
    await expect.poll(() => page.textContent('#b')).toMatch(/^clicked \d$/);
    viewer.ws.close();
    await viewer.closed;
  });

  it('tells viewers the session ended, records the connections in telemetry, and refuses the link after', async () => {
    const created = (await svc.call('POST', '/browsers', { body: { telemetry: { enabled: true } } })).body as Session;
    const viewer = await Viewer.open(socketUrl(created.browser_live_view_url));
    await viewer.message('hello');
    expect((await svc.call('DELETE', `/browsers/${created.session_id}`)).status).toBe(204);
    expect(await viewer.message('ended')).toEqual({ type: 'ended', reason: 'ended' });
    expect((await viewer.closed).code).toBe(1000);
    await expect(Viewer.open(socketUrl(created.browser_live_view_url))).rejects.toThrow('status 404');
    const events = await svc.call('GET', `/browsers/${created.session_id}/telemetry/events?limit=1000`);
    const types = (events.body as { event: { type: string } }[]).map((e) => e.event.type);
    expect(types).toEqual(expect.arrayContaining(['live_view_connect', 'live_view_disconnect']));
  });
});

describe.skipIf(!headful.available)('live view of a headful session', () => {
  it('streams the whole X display and clicks through the X server', async () => {
    const svc = await startTestService();
    try {
      const session = (await svc.call('POST', '/browsers', { body: { headless: false, viewport: { width: 1024, height: 768 } } })).body as Session;
      const browser = await chromium.connectOverCDP(session.cdp_ws_url);
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.setContent(PAGE);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const toolbar = await page.evaluate(() => outerHeight - innerHeight);
      const viewer = await Viewer.open(socketUrl(session.browser_live_view_url));
      expect(await viewer.message('hello')).toEqual({ type: 'hello', mode: 'interactive', headless: false, width: 1024, height: 768 });
      const frame = await eventually(() => viewer.frames[0], 30_000);
      expect(frame.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      viewer.send({ type: 'mouse', action: 'down', x: 100, y: toolbar + 70, button: 'left' });
      viewer.send({ type: 'mouse', action: 'up', x: 100, y: toolbar + 70, button: 'left' });
      await expect.poll(() => page.textContent('#b')).toBe('clicked 1');
      viewer.ws.close();
      await browser.close();
    } finally {
      await svc.close();
    }
  });
});
