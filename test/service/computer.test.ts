import Kernel from '@onkernel/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const HTML = `<!doctype html>
<body style="margin:0;height:3000px;width:3000px">
<textarea id="t" style="position:absolute;left:10px;top:10px;width:300px;height:100px"></textarea>
<div id="box" style="position:absolute;left:400px;top:50px;width:50px;height:50px;background:red"></div>
<script>
  window.events = [];
  for (const type of ['mousedown', 'mouseup', 'click', 'dblclick', 'contextmenu']) {
    addEventListener(type, (e) => events.push({ type, x: e.clientX, y: e.clientY, button: e.button, detail: e.detail, ctrl: e.ctrlKey, shift: e.shiftKey }));
  }
  const box = document.getElementById('box');
  let drag = null;
  box.addEventListener('mousedown', (e) => { drag = { dx: e.clientX - box.offsetLeft, dy: e.clientY - box.offsetTop }; });
  addEventListener('mousemove', (e) => { if (drag) { box.style.left = (e.clientX - drag.dx) + 'px'; box.style.top = (e.clientY - drag.dy) + 'px'; } });
  addEventListener('mouseup', () => { drag = null; });
</script>`;

let svc: TestService;
let site: Server;
let session: { session_id: string; cdp_ws_url: string };
let browser: Browser;
let page: Page;
const post = (path: string, body?: unknown) => svc.call('POST', `/browsers/${session.session_id}/computer/${path}`, body === undefined ? {} : { body });

beforeAll(async () => {
  // Served over loopback http, a secure context, as real pages under test are (the clipboard needs one).
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(HTML));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  svc = await startTestService();
  session = (await svc.call('POST', '/browsers', { body: { viewport: { width: 800, height: 600 } } })).body;
  browser = await chromium.connectOverCDP(session.cdp_ws_url);
  page = browser.contexts()[0]!.pages()[0]!;
  await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
});
afterAll(async () => {
  await browser?.close();
  await svc.close();
  site.close();
});

const events = () => page.evaluate(() => (window as unknown as { events: { type: string }[] }).events.splice(0));

describe('computer controls (CDP backend)', () => {
  it('clicks with buttons, counts and modifiers, and tracks the mouse position exactly', async () => {
    expect((await post('click_mouse', { x: 500, y: 300 })).status).toBe(200);
    expect((await events()).map((e) => e.type)).toEqual(['mousedown', 'mouseup', 'click']);
    await post('click_mouse', { x: 501, y: 301, num_clicks: 2 });
    const dbl = await events();
    expect(dbl.map((e) => e.type)).toContain('dblclick');
    await post('click_mouse', { x: 502, y: 302, button: 'right', hold_keys: ['ctrl'] });
    const right = (await events()).find((e) => e.type === 'mousedown') as unknown as { button: number; ctrl: boolean };
    expect(right).toMatchObject({ button: 2, ctrl: true });
    await post('click_mouse', { x: 503, y: 303, click_type: 'down' });
    await post('click_mouse', { x: 503, y: 303, click_type: 'up' });
    expect((await events()).map((e) => e.type)).toEqual(['mousedown', 'mouseup', 'click']);
    expect((await post('get_mouse_position')).body).toEqual({ x: 503, y: 303 });
  });

  it('types text, presses keysym combos, and holds keys', async () => {
    await post('click_mouse', { x: 50, y: 50 });
    await post('type', { text: 'Hello, wörld!' });
    expect(await page.inputValue('#t')).toBe('Hello, wörld!');
    await post('press_key', { keys: ['ctrl+a', 'BackSpace'] });
    expect(await page.inputValue('#t')).toBe('');
    await post('press_key', { keys: ['a', 'Return', 'B', 'shift+c', 'KP_1', 'exclam'] });
    expect(await page.inputValue('#t')).toBe('a\nBC1!');
    await post('press_key', { keys: ['Home', 'Delete'], hold_keys: [] });
    expect(await page.inputValue('#t')).toBe('a\nC1!');
  });

  it('does not interleave concurrent input on one session', async () => {
    await page.fill('#t', '');
    await post('click_mouse', { x: 50, y: 50 });
    await Promise.all([post('type', { text: 'aaaaaaaa' }), post('type', { text: 'bbbbbbbb' })]);
    expect(['aaaaaaaabbbbbbbb', 'bbbbbbbbaaaaaaaa']).toContain(await page.inputValue('#t'));
  });

  it('stops slow typing when its caller goes away, and frees the input for the next', async () => {
    await page.fill('#t', '');
    await post('click_mouse', { x: 50, y: 50 });
    const gone = new AbortController();
    const slow = fetch(`${svc.baseUrl}/browsers/${session.session_id}/computer/type`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'abcdef', delay: 5000 }),
      signal: gone.signal,
    }).catch(() => undefined);
    await expect.poll(() => page.inputValue('#t')).toBe('a');
    gone.abort();
    await slow;
    // Had the typing gone on, this would wait behind it and land after 'f'.
    expect((await post('type', { text: 'Z' })).status).toBe(200);
    expect(await page.inputValue('#t')).toBe('aZ');
  });

  it('scrolls by wheel ticks, vertical then horizontal', async () => {
    await page.evaluate(() => scrollTo(0, 0));
    await post('scroll', { x: 400, y: 300, delta_y: 3, delta_x: 2 });
    await expect.poll(() => page.evaluate(() => [scrollX, scrollY])).toEqual([200, 300]);
    await page.evaluate(() => scrollTo(0, 0));
  });

  it('drags along a path', async () => {
    await post('drag_mouse', { path: [[425, 75], [525, 175], [625, 275]], steps_per_segment: 5 });
    expect(await page.evaluate(() => [document.getElementById('box')!.offsetLeft, document.getElementById('box')!.offsetTop])).toEqual([600, 250]);
    expect((await post('get_mouse_position')).body).toEqual({ x: 625, y: 275 });
  });

  it('moves smoothly to the exact point', async () => {
    expect((await post('move_mouse', { x: 700, y: 500, duration_ms: 100 })).status).toBe(200);
    expect((await post('get_mouse_position')).body).toEqual({ x: 700, y: 500 });
  });

  it('takes PNG screenshots of the screen and of a region', async () => {
    const res = await fetch(`${svc.baseUrl}/browsers/${session.session_id}/computer/screenshot`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}` },
    });
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([800, 600]);
    const part = await fetch(`${svc.baseUrl}/browsers/${session.session_id}/computer/screenshot`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ region: { x: 400, y: 50, width: 50, height: 40 } }),
    });
    const small = Buffer.from(await part.arrayBuffer());
    expect([small.readUInt32BE(16), small.readUInt32BE(20)]).toEqual([50, 40]);
  });

  it('writes and reads the clipboard, and pastes it with ctrl+v', async () => {
    expect((await post('clipboard/write', { text: 'from the clipboard' })).status).toBe(200);
    expect((await post('clipboard/read')).body).toEqual({ text: 'from the clipboard' });
    await page.fill('#t', '');
    await post('click_mouse', { x: 50, y: 50 });
    await post('press_key', { keys: ['ctrl+v'] });
    expect(await page.inputValue('#t')).toBe('from the clipboard');
  });

  it('runs a batch in order and stops at the first failure, naming its index', async () => {
    await page.fill('#t', '');
    const ok = await post('batch', {
      actions: [
        { type: 'click_mouse', click_mouse: { x: 50, y: 50 } },
        { type: 'type_text', type_text: { text: 'abc' } },
        { type: 'sleep', sleep: { duration_ms: 10 } },
        { type: 'press_key', press_key: { keys: ['BackSpace'] } },
        { type: 'set_cursor', set_cursor: { hidden: true } },
      ],
    });
    expect(ok.status).toBe(200);
    expect(await page.inputValue('#t')).toBe('ab');
    const bad = await post('batch', {
      actions: [
        { type: 'type_text', type_text: { text: 'x' } },
        { type: 'click_mouse', click_mouse: { x: 5000, y: 10 } },
        { type: 'type_text', type_text: { text: 'never' } },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^actions\[1\] \(click_mouse\) failed: body\.actions\[1\]\.click_mouse\.x: must be within 0\.\.799/);
    expect(await page.inputValue('#t')).toBe('abx');
  });

  it('rejects bad input naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['click_mouse', { x: 1 }, 'body.y'],
      ['click_mouse', { x: 1, y: 1, button: 'thumb' }, 'body.button'],
      ['click_mouse', { x: -1, y: 1 }, 'body.x'],
      ['press_key', { keys: [] }, 'body.keys'],
      ['press_key', { keys: ['Hyperdrive'] }, 'body.keys[0]'],
      ['press_key', { keys: ['a'], duration: -1 }, 'body.duration'],
      ['type', { text: 5 }, 'body.text'],
      ['drag_mouse', { path: [[1, 1]] }, 'body.path'],
      ['batch', { actions: [] }, 'body.actions'],
      ['batch', { actions: Array.from({ length: 101 }, () => ({ type: 'sleep', sleep: { duration_ms: 0 } })) }, 'body.actions'],
      ['batch', { actions: [{ type: 'click_mouse', move_mouse: { x: 1, y: 1 } }] }, 'body.actions.0.click_mouse'],
      ['screenshot', { region: { x: 0, y: 0, width: 0, height: 5 } }, 'body.region.width'],
    ];
    for (const [path, body, field] of cases) {
      const res = await post(path, body);
      expect(res.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field), path).toContain(field);
    }
    expect((await svc.call('POST', '/browsers/nope/computer/click_mouse', { body: { x: 1, y: 1 } })).status).toBe(404);
  });

  it('works through the hosted SDK unchanged', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    const id = session.session_id;
    await page.fill('#t', '');
    await kernel.browsers.computer.clickMouse(id, { x: 60, y: 60 });
    await kernel.browsers.computer.typeText(id, { text: 'sdk' });
    await kernel.browsers.computer.pressKey(id, { keys: ['Return'] });
    await kernel.browsers.computer.batch(id, { actions: [{ type: 'type_text', type_text: { text: 'ok' } }] });
    expect(await page.inputValue('#t')).toBe('sdk\nok');
    expect(await kernel.browsers.computer.getMousePosition(id)).toEqual({ x: 60, y: 60 });
    const shot = await kernel.browsers.computer.captureScreenshot(id);
    expect(Buffer.from(await shot.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
  });
});
