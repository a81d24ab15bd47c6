// Telemetry capture against real Chromium: CDP categories (console, network, page, interaction), the
// operational ones (control, connection, system), the archive after delete, and what is not captured.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, expectListedAsAlone, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let site: Server;
let siteUrl: string;
let closedPort: number;

// localhost is another site than 127.0.0.1: the iframe runs in its own process (an OOPIF).
const PAGE = (port: number, self: number) => `<!doctype html><title>tele</title>
<button id="go" style="position:fixed;left:10px;top:10px;width:200px;height:60px">Go</button>
<iframe src="http://localhost:${self}/frame.html" style="position:fixed;top:200px"></iframe>
<script>
  console.log('hello telemetry', 42, {a: 1});
  console.error('something broke');
  fetch('https://127.0.0.1:${port}/nothing-here').catch(() => {});
  setTimeout(() => { throw new Error('boom'); }, 0);
</script>`;

const FRAME = `<!doctype html><script>console.log('from the iframe')</script>`;

beforeAll(async () => {
  svc = await startTestService();
  // A port that was free a moment ago: requests to it are refused.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  site = createServer((req, res) => {
    const port = (site.address() as AddressInfo).port;
    const body = req.url === '/frame.html' ? FRAME : PAGE(closedPort, port);
    res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/page.html`;
});
afterAll(async () => {
  await svc.close();
  site.close();
});

type Envelope = { seq: number; event: { type: string; category: string; ts: number; source: { kind: string; event?: string }; data?: any } };

async function events(id: string, query = ''): Promise<Envelope[]> {
  const res = await svc.call('GET', `/browsers/${id}/telemetry/events?limit=1000${query ? `&${query}` : ''}`);
  expect(res.status).toBe(200);
  return res.body as Envelope[];
}

async function visit(cdpUrl: string): Promise<void> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  const page = browser.contexts()[0]!.pages()[0]!;
  // The client's own view of the network is untouched by the collector's (bodies still readable).
  expect(await (await page.goto(siteUrl))!.text()).toContain('<title>tele</title>');
  await page.waitForTimeout(300);
  await browser.close();
}

describe('telemetry capture', () => {
  it('captures a console.log, console.error, an uncaught exception and a refused request over CDP', async () => {
    const created = await svc.call('POST', '/browsers', {
      body: { telemetry: { browser: { console: { enabled: true }, network: { enabled: true }, page: { enabled: true } } } },
    });
    expect(created.status).toBe(200);
    const id = created.body.session_id;
    expect(created.body.telemetry.browser).toMatchObject({
      console: { enabled: true },
      network: { enabled: true },
      page: { enabled: true },
      interaction: { enabled: false },
      control: { enabled: true },
      connection: { enabled: true },
      system: { enabled: true },
    });
    const before = Date.now() * 1000;
    await visit(created.body.cdp_ws_url);

    const all = await eventually(async () => {
      const list = await events(id);
      const types = new Set(list.map((e) => e.event.type));
      const wanted = ['console_log', 'console_error', 'network_request', 'network_loading_failed', 'page_navigation', 'page_load', 'cdp_disconnect'];
      const framed = list.some((e) => e.event.data?.text === 'from the iframe');
      return framed && wanted.every((t) => types.has(t)) ? list : undefined;
    });
    const log = all.find((e) => e.event.type === 'console_log')!;
    expect(log.event).toMatchObject({
      category: 'console',
      source: { kind: 'cdp', event: 'Runtime.consoleAPICalled' },
      data: { level: 'log', text: 'hello telemetry', args: ['hello telemetry', '42', '{a: 1}'], url: siteUrl, target_type: 'page' },
    });
    expect(log.event.ts).toBeGreaterThanOrEqual(before);
    expect(log.event.ts).toBeLessThan(Date.now() * 1000 + 1);
    // A cross-site iframe's console is captured too, as part of its tab.
    const framed = all.find((e) => e.event.type === 'console_log' && e.event.data.text === 'from the iframe')!;
    expect(framed.event.data).toMatchObject({ target_id: log.event.data.target_id, url: siteUrl });
    expect(framed.event.data.frame_id).not.toBe(log.event.data.frame_id);
    const errors = all.filter((e) => e.event.type === 'console_error').map((e) => e.event.data.text);
    expect(errors).toEqual(expect.arrayContaining(['something broke', 'Uncaught Error: boom']));
    const failed = all.find((e) => e.event.type === 'network_loading_failed')!;
    // Requests leave through the session's egress proxy: a destination that refuses the connection fails the tunnel.
    expect(failed.event.data).toMatchObject({ url: `https://127.0.0.1:${closedPort}/nothing-here`, error_text: 'net::ERR_TUNNEL_CONNECTION_FAILED' });
    const response = all.find((e) => e.event.type === 'network_response' && e.event.data.url === siteUrl)!;
    expect(response.event.data).toMatchObject({ status: 200, method: 'GET', mime_type: 'text/html', resource_type: 'Document' });
    expect(response.event.data.body).toBeUndefined();
    // The browser's own time of an event: after the test began, and never after the service took it in.
    // Clocks: the browser runs on this host, so its wall clock is this process's (a ms of rounding allowed).
    for (const e of [log, failed, response]) {
      expect(e.event.data.browser_ts).toBeGreaterThanOrEqual(before - 1000);
      expect(e.event.data.browser_ts).toBeLessThanOrEqual(e.event.ts + 1000);
    }
    // seq runs from 1 without gaps, and ts never runs backwards against it.
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    for (let i = 1; i < all.length; i++) expect(all[i]!.event.ts).toBeGreaterThan(all[i - 1]!.event.ts);

    const connect = all.find((e) => e.event.type === 'cdp_connect')!;
    const disconnect = all.find((e) => e.event.type === 'cdp_disconnect')!;
    expect(connect.event).toMatchObject({ category: 'connection', source: { kind: 'kernel_api' } });
    expect(disconnect.event.data).toMatchObject({ reason: 'client_close' });
    expect(disconnect.event.data.message_count).toBeGreaterThan(10);
    expect(disconnect.event.data.duration_ms).toBeGreaterThan(0);
    expect(disconnect.seq).toBeGreaterThan(connect.seq);
    await svc.call('DELETE', `/browsers/${id}`);
  });

  it('records each API call on the session as a control event, and keeps events after delete', async () => {
    const created = await svc.call('POST', '/browsers', { body: { name: 'tele-control', telemetry: { enabled: true } } });
    const id = created.body.session_id;
    expect(created.body.telemetry.browser.console).toEqual({ enabled: false });
    const got = await svc.call('GET', `/browsers/${id}`);
    const shot = await svc.call('POST', `/browsers/${id}/computer/screenshot`, { body: {} });
    expect(shot.status).toBe(200);
    const bad = await svc.call('POST', `/browsers/${id}/computer/click_mouse`, { body: { x: 'no' } });
    expect(bad.status).toBe(400);
    const del = await svc.call('DELETE', '/browsers/tele-control');
    expect(del.status).toBe(204);

    const calls = await eventually(async () => {
      const list = (await events(id, 'category=control')).map((e) => e.event);
      return list.length >= 4 ? list : undefined;
    });
    expect(calls.map((e) => [e.data.operation_id, e.data.status])).toEqual([
      ['GET /browsers/{id_or_name}', 200],
      ['POST /browsers/{id}/computer/screenshot', 200],
      ['POST /browsers/{id}/computer/click_mouse', 400],
      ['DELETE /browsers/{id_or_name}', 204],
    ]);
    expect(calls[0]).toMatchObject({ type: 'api_call', category: 'control', source: { kind: 'kernel_api' } });
    expect(calls[0]!.data.request_id).toBe(got.headers.get('x-request-id'));
    expect(calls[1]!.data.duration_ms).toBeGreaterThan(0);
    // The deleted session still answers with its archive and its settings.
    const after = await svc.call('GET', `/browsers/${id}?include_deleted=true`);
    expect(after.body.telemetry.browser.control).toEqual({ enabled: true });
    expect((await events(id)).length).toBeGreaterThanOrEqual(4);
  });

  it('captures nothing without telemetry, and no CDP category unless opted in', async () => {
    const off = (await svc.call('POST', '/browsers')).body;
    expect(off.telemetry).toBeUndefined();
    const defaults = (await svc.call('POST', '/browsers', { body: { telemetry: { enabled: true } } })).body;
    const optedOut = (
      await svc.call('POST', '/browsers', { body: { telemetry: { browser: { console: { enabled: true }, control: { enabled: false } } } } })
    ).body;
    await Promise.all([visit(off.cdp_ws_url), visit(defaults.cdp_ws_url), visit(optedOut.cdp_ws_url)]);
    await svc.call('GET', `/browsers/${off.session_id}`);
    await svc.call('GET', `/browsers/${optedOut.session_id}`);
    await eventually(async () => ((await events(optedOut.session_id, 'category=console')).length >= 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));

    expect(await events(off.session_id)).toEqual([]);
    const categories = new Set((await events(defaults.session_id)).map((e) => e.event.category));
    expect([...categories].sort()).toEqual(['connection']);
    const opted = new Set((await events(optedOut.session_id)).map((e) => e.event.category));
    expect([...opted].sort()).toEqual(['connection', 'console']);
    const ids = [off.session_id, defaults.session_id, optedOut.session_id];
    await expectListedAsAlone(svc, ids);
    const live = await Promise.all(ids.map(async (id) => (await svc.call('GET', `/browsers/${id}`)).body.telemetry));
    for (const id of ids) await svc.call('DELETE', `/browsers/${id}`);
    // Ended sessions' telemetry is read from the store, a page's in one query.
    const ended = (await svc.call('GET', '/browsers?status=deleted&limit=100')).body as { session_id: string; telemetry?: unknown }[];
    expect(ids.map((id) => ended.find((s) => s.session_id === id)?.telemetry)).toEqual(live);
  });

  it('PATCH turns categories on and off for a running session', async () => {
    const b = (await svc.call('POST', '/browsers')).body;
    const on = await svc.call('PATCH', `/browsers/${b.session_id}`, { body: { telemetry: { browser: { console: { enabled: true } } } } });
    expect(on.status).toBe(200);
    // Merging onto nothing starts from the default set, as on create.
    expect(on.body.telemetry.browser).toMatchObject({ console: { enabled: true }, control: { enabled: true }, network: { enabled: false } });
    await visit(b.cdp_ws_url);
    await eventually(async () => ((await events(b.session_id, 'category=console')).length ? true : undefined));

    const merged = await svc.call('PATCH', `/browsers/${b.session_id}`, { body: { telemetry: { browser: { network: { enabled: true } } } } });
    expect(merged.body.telemetry.browser).toMatchObject({ console: { enabled: true }, network: { enabled: true } });
    const fresh = await svc.call('PATCH', `/browsers/${b.session_id}`, { body: { telemetry: { enabled: true } } });
    expect(fresh.body.telemetry.browser).toMatchObject({ console: { enabled: false }, network: { enabled: false }, control: { enabled: true } });

    const stop = await svc.call('PATCH', `/browsers/${b.session_id}`, { body: { telemetry: { enabled: false } } });
    expect(Object.values(stop.body.telemetry.browser).every((c: any) => c.enabled === false)).toBe(true);
    const count = (await events(b.session_id)).length;
    await visit(b.cdp_ws_url);
    await svc.call('GET', `/browsers/${b.session_id}`);
    await new Promise((r) => setTimeout(r, 300));
    expect((await events(b.session_id)).length).toBe(count);

    const refused = await svc.call('PATCH', `/browsers/${b.session_id}`, {
      body: { name: 'never-applied', telemetry: { enabled: false, browser: { console: { enabled: true } } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].field).toBe('body.telemetry.enabled');
    expect((await svc.call('GET', `/browsers/${b.session_id}`)).body.name).toBeUndefined();
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('captures clicks and keys from an injected listener, whatever drives the input', async () => {
    const b = (await svc.call('POST', '/browsers', { body: { telemetry: { browser: { interaction: { enabled: true } } } } })).body;
    const browser = await chromium.connectOverCDP(b.cdp_ws_url);
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(siteUrl);
    await browser.close();
    // OS-level input through the computer API (CDP input for headless sessions).
    expect((await svc.call('POST', `/browsers/${b.session_id}/computer/click_mouse`, { body: { x: 50, y: 30 } })).status).toBe(200);
    expect((await svc.call('POST', `/browsers/${b.session_id}/computer/press_key`, { body: { keys: ['a'] } })).status).toBe(200);
    const list = await eventually(async () => {
      const l = await events(b.session_id, 'category=interaction');
      return l.some((e) => e.event.type === 'interaction_key') ? l : undefined;
    });
    const click = list.find((e) => e.event.type === 'interaction_click')!;
    expect(click.event).toMatchObject({ source: { kind: 'cdp', event: 'Runtime.bindingCalled' }, data: { tag: 'BUTTON', text: 'Go', x: 50, y: 30 } });
    expect(click.event.data.selector).toBe('button#go');
    expect(list.find((e) => e.event.type === 'interaction_key')!.event.data).toMatchObject({ key: 'a' });
    // The listener lives in an isolated world: the page cannot see it.
    const again = await chromium.connectOverCDP(b.cdp_ws_url);
    const seen = await again.contexts()[0]!.pages()[0]!.evaluate(() => Object.keys(globalThis).filter((k) => k.includes('bcs')));
    expect(seen).toEqual([]);
    await again.close();
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('records a Chromium crash as a system event with its reason', async () => {
    const b = (await svc.call('POST', '/browsers', { body: { telemetry: { enabled: true } } })).body;
    process.kill(svc.sessions.get(b.session_id)!.chromium.pid, 'SIGKILL');
    const crash = await eventually(async () => (await events(b.session_id, 'category=system')).find((e) => e.event.type === 'service_crashed'));
    expect(crash.event).toMatchObject({
      category: 'system',
      source: { kind: 'local_process' },
      data: { phase: 'running', service_name: 'chromium', signal: 'SIGKILL' },
    });
    expect(crash.event.data.reason).toMatch(/^chromium killed by SIGKILL/);
    const row = await eventually(async () => {
      const r = await svc.call('GET', `/browsers/${b.session_id}?include_deleted=true`);
      return r.body.deleted_at ? r.body : undefined;
    });
    expect(row.end_reason).toBe('browser_exited');
    // A deliberate delete is not a crash.
    const c = (await svc.call('POST', '/browsers', { body: { telemetry: { enabled: true } } })).body;
    await svc.call('DELETE', `/browsers/${c.session_id}`);
    await new Promise((r) => setTimeout(r, 200));
    expect(await events(c.session_id, 'category=system')).toEqual([]);
  });
});
