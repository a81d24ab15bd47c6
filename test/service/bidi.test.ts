// WebDriver BiDi per session through `webdriver_ws_url`: puppeteer-core as a real BiDi client, a raw
// WebSocket speaking the protocol's JSON, and the same refusals, lifetime and pool rules as the CDP
// endpoint. Each client gets its own mapper in the service, over its own CDP connection to the browser.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const PAGE = `<!doctype html><title>bidi page</title>
<button id="go" onclick="this.textContent = 'clicked ' + (++window.clicks)">go</button>
<a id="attach" href="/attachment">attachment</a>
<script>window.clicks = 0</script>`;
const ATTACHMENT = 'downloaded over BiDi\n';

let svc: TestService;
let site: Server;
let siteUrl: string;

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === '/attachment') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="bidi.txt"' }).end(ATTACHMENT);
    } else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
  await new Promise((resolve) => site?.close(resolve));
});

/** A raw BiDi client: sends commands with increasing ids and waits for the answer to each. */
class RawBidi {
  private nextId = 1;
  private readonly waiting = new Map<number, (msg: any) => void>();
  readonly unmatched: any[] = [];
  readonly closed: Promise<number>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data));
      const resolve = typeof msg.id === 'number' ? this.waiting.get(msg.id) : undefined;
      if (resolve) {
        this.waiting.delete(msg.id);
        resolve(msg);
      } else this.unmatched.push(msg);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)));
  }

  static open(url: string, headers?: Record<string, string>): Promise<RawBidi> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once('open', () => resolve(new RawBidi(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  send(method: string, params: object = {}): Promise<any> {
    const id = this.nextId++;
    return this.raw(JSON.stringify({ id, method, params }), id);
  }

  /** Sends `text` as it is; resolves with the answer carrying `id`, or the next unmatched message. */
  raw(text: string, id?: number): Promise<any> {
    return new Promise((resolve) => {
      if (id !== undefined) this.waiting.set(id, resolve);
      else {
        const before = this.unmatched.length;
        const poll = setInterval(() => {
          if (this.unmatched.length > before) {
            clearInterval(poll);
            resolve(this.unmatched[before]);
          }
        }, 20);
      }
      this.ws.send(text);
    });
  }

  close(): Promise<number> {
    this.ws.close();
    return this.closed;
  }
}

/**
 * Open TCP connections from this process's host to the browser's DevTools port: the service's own
 * connections plus one per BiDi client's mapper, so a mapper that outlives its client shows here.
 */
async function connectionsToBrowser(id: string): Promise<number> {
  const port = Number(new URL(svc.sessions.get(id)!.chromium.wsEndpoint).port).toString(16).toUpperCase().padStart(4, '0');
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1);
    // Fields: sl local_address rem_address st ...; state 01 is ESTABLISHED.
    count += lines.map((l) => l.trim().split(/\s+/)).filter((f) => f[2]?.endsWith(`:${port}`) && f[3] === '01').length;
  }
  return count;
}

/** The HTTP status a refused WebSocket handshake answered with. */
function refusal(url: string, headers?: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      ws.close();
      reject(new Error('the handshake was accepted'));
    });
    ws.once('error', () => undefined);
  });
}

describe('WebDriver BiDi through webdriver_ws_url', () => {
  it('is in the session for create, get and list, beside cdp_ws_url and with its token', async () => {
    const created = (await svc.call('POST', '/browsers')).body;
    const id = created.session_id;
    const token = created.cdp_ws_url.match(/jwt=(.*)$/)[1];
    expect(created.webdriver_ws_url).toBe(`${svc.baseUrl.replace(/^http/, 'ws')}/browsers/${id}/bidi?jwt=${token}`);
    expect((await svc.call('GET', `/browsers/${id}`)).body.webdriver_ws_url).toBe(created.webdriver_ws_url);
    const listed = (await svc.call('GET', '/browsers')).body.find((b: { session_id: string }) => b.session_id === id);
    expect(listed.webdriver_ws_url).toBe(created.webdriver_ws_url);
    // The host the client used is the host in the URL.
    const viaLocalhost = await fetch(`${svc.baseUrl.replace('127.0.0.1', 'localhost')}/browsers/${id}`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect((await viaLocalhost.json()).webdriver_ws_url).toMatch(/^ws:\/\/localhost:\d+\/browsers\//);
    await svc.call('DELETE', `/browsers/${id}`);
  });

  it('lets puppeteer-core drive the session over WebDriver BiDi: goto, title, evaluate, click', async () => {
    const b = (await svc.call('POST', '/browsers', { body: { viewport: { width: 1024, height: 700 } } })).body;
    const browser = await puppeteer.connect({ browserWSEndpoint: b.webdriver_ws_url, protocol: 'webDriverBiDi', defaultViewport: null });
    try {
      const page = await browser.newPage();
      await page.goto(siteUrl);
      expect(await page.title()).toBe('bidi page');
      expect(await page.evaluate(() => [innerWidth, innerHeight, 6 * 7])).toEqual([1024, 700, 42]);
      await page.click('#go');
      await page.click('#go');
      expect(await page.$eval('#go', (el) => el.textContent)).toBe('clicked 2');
      // An open BiDi connection is a client of the session, as a CDP one is.
      expect(svc.sessions.get(b.session_id)!.connections.size).toBe(1);
    } finally {
      await browser.disconnect();
    }
    await eventually(() => (svc.sessions.get(b.session_id)!.connections.size === 0 ? true : undefined));
    // The session outlives its client, and what the client did is still there for the next one.
    const again = await puppeteer.connect({ browserWSEndpoint: b.webdriver_ws_url, protocol: 'webDriverBiDi', defaultViewport: null });
    const pages = await again.pages();
    const clicked = pages.find((p) => p.url() === siteUrl)!;
    expect(await clicked.evaluate(() => (window as unknown as { clicks: number }).clicks)).toBe(2);
    await again.disconnect();
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('speaks the protocol to a raw client: session.status, browsingContext.getTree, and its own errors', async () => {
    const b = (await svc.call('POST', '/browsers', { body: { telemetry: { enabled: true } } })).body;
    await svc.sessions.get(b.session_id)!.ready;
    const before = await connectionsToBrowser(b.session_id);
    const bidi = await RawBidi.open(b.webdriver_ws_url);
    expect(await connectionsToBrowser(b.session_id)).toBe(before + 1);
    const status = await bidi.send('session.status');
    expect(status).toMatchObject({ type: 'success', id: 1, result: { ready: expect.any(Boolean), message: expect.any(String) } });
    const session = await bidi.send('session.new', { capabilities: {} });
    expect(session).toMatchObject({ type: 'success', result: { sessionId: expect.any(String), capabilities: { browserName: expect.any(String) } } });
    const tree = await bidi.send('browsingContext.getTree', {});
    expect(tree.type).toBe('success');
    expect(tree.result.contexts.length).toBeGreaterThanOrEqual(1);
    const context = tree.result.contexts[0].context;
    const nav = await bidi.send('browsingContext.navigate', { context, url: siteUrl, wait: 'complete' });
    expect(nav).toMatchObject({ type: 'success', result: { url: siteUrl } });
    const title = await bidi.send('script.evaluate', { expression: 'document.title', target: { context }, awaitPromise: false });
    expect(title.result.result).toEqual({ type: 'string', value: 'bidi page' });

    // Malformed frames and bad commands are answered with BiDi errors; the connection stays usable.
    expect(await bidi.raw('not json')).toMatchObject({ type: 'error', id: null, error: 'invalid argument' });
    expect(await bidi.raw(JSON.stringify({ id: 'x', method: 'session.status', params: {} }))).toMatchObject({ type: 'error', id: null, error: 'invalid argument' });
    expect(await bidi.raw(JSON.stringify({ id: 90, method: 'session.status' }), 90)).toMatchObject({ type: 'error', id: 90, error: 'invalid argument' });
    expect(await bidi.send('nothing.here')).toMatchObject({ type: 'error', error: 'unknown command' });
    expect(await bidi.send('browsingContext.navigate', { context, url: 42 })).toMatchObject({ type: 'error', error: 'invalid argument' });
    expect(await bidi.send('browsingContext.getTree', { root: 'no-such-context' })).toMatchObject({ type: 'error', error: 'no such frame' });
    expect((await bidi.send('session.status')).type).toBe('success');
    await bidi.close();

    // The client's mapper and its browser connection are gone with it; telemetry saw it come and go.
    await eventually(async () => ((await connectionsToBrowser(b.session_id)) === before ? true : undefined));
    const connection = await eventually(async () => {
      const list = (await svc.call('GET', `/browsers/${b.session_id}/telemetry/events?category=connection`)).body as Array<{ event: any }>;
      return list.some((e) => e.event.type === 'cdp_disconnect') ? list.map((e) => e.event) : undefined;
    });
    expect(connection.map((e) => [e.type, e.source.event])).toEqual([
      ['cdp_connect', 'bidi_proxy'],
      ['cdp_disconnect', 'bidi_proxy'],
    ]);
    expect(connection[1].data).toMatchObject({ reason: 'client_close', message_count: expect.any(Number) });
    expect(connection[1].data.message_count).toBeGreaterThanOrEqual(24);
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('keeps downloads in the session: by default in Downloads, a client folder in the view', async () => {
    const b = (await svc.call('POST', '/browsers')).body;
    const id = b.session_id;
    const bidi = await RawBidi.open(b.webdriver_ws_url);
    await bidi.send('session.new', { capabilities: {} });
    const context = (await bidi.send('browsingContext.getTree', {})).result.contexts[0].context;
    const download = async () => {
      await bidi.send('browsingContext.navigate', { context, url: siteUrl, wait: 'complete' });
      await bidi.send('script.evaluate', { expression: "document.getElementById('attach').click()", target: { context }, awaitPromise: false });
    };
    const arrives = (path: string) =>
      eventually(async () => {
        const info = await svc.call('GET', `/browsers/${id}/fs/file_info?path=${encodeURIComponent(path)}`);
        return info.status === 200 && info.body.size_bytes === ATTACHMENT.length ? true : undefined;
      });
    // The mapper asks Chromium for its default behaviour when it starts: here that is the session's own.
    await download();
    await arrives('/home/kernel/Downloads/bidi.txt');

    const folder = `/tmp/bidi-downloads-${Date.now()}`;
    const set = await bidi.send('browser.setDownloadBehavior', { downloadBehavior: { type: 'allowed', destinationFolder: folder } });
    expect(set.type).toBe('success');
    await download();
    await arrives(`${folder}/bidi.txt`);
    expect(await readFile(`${folder}/bidi.txt`, 'utf8').catch(() => 'not on the host')).toBe('not on the host');

    const outside = await bidi.send('browser.setDownloadBehavior', { downloadBehavior: { type: 'allowed', destinationFolder: '/etc' } });
    expect(outside).toMatchObject({ type: 'error', message: expect.stringContaining('outside the browser host') });
    await bidi.close();
    await svc.call('DELETE', `/browsers/${id}`);
  });

  it('serves two clients of one session at once, each with its own mapper', async () => {
    const b = (await svc.call('POST', '/browsers')).body;
    const [one, two] = await Promise.all([RawBidi.open(b.webdriver_ws_url), RawBidi.open(b.webdriver_ws_url)]);
    await Promise.all([one.send('session.new', { capabilities: {} }), two.send('session.new', { capabilities: {} })]);
    const created = await one.send('browsingContext.create', { type: 'tab' });
    expect(created.type).toBe('success');
    // The second client sees the tab the first one opened, and both can evaluate in it.
    const tree = await eventually(async () => {
      const t = await two.send('browsingContext.getTree', {});
      return t.result.contexts.some((c: { context: string }) => c.context === created.result.context) ? t : undefined;
    });
    expect(tree.type).toBe('success');
    const [a, c] = await Promise.all(
      [one, two].map((client) => client.send('script.evaluate', { expression: '1 + 1', target: { context: created.result.context }, awaitPromise: false })),
    );
    expect([a.result.result, c.result.result]).toEqual([
      { type: 'number', value: 2 },
      { type: 'number', value: 2 },
    ]);
    expect(svc.sessions.get(b.session_id)!.connections.size).toBe(2);
    await one.close();
    expect((await two.send('session.status')).type).toBe('success');
    await two.close();
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('refuses a bad token with 401 and an unknown session with 404; an API key works as for CDP', async () => {
    const a = (await svc.call('POST', '/browsers')).body;
    const b = (await svc.call('POST', '/browsers')).body;
    expect(await refusal(a.webdriver_ws_url.replace(/jwt=.*/, 'jwt=AAAA'))).toBe(401);
    expect(await refusal(a.webdriver_ws_url.replace(/jwt=.*/, b.webdriver_ws_url.match(/jwt=.*/)[0]))).toBe(401);
    const bare = a.webdriver_ws_url.replace(/\?jwt=.*/, '');
    expect(await refusal(bare)).toBe(401);
    expect(await refusal(bare, { authorization: 'Bearer bcs_not-a-key' })).toBe(401);
    const withKey = await RawBidi.open(bare, { authorization: `Bearer ${svc.apiKey}` });
    expect((await withKey.send('session.status')).type).toBe('success');
    await withKey.close();
    await svc.call('DELETE', `/browsers/${b.session_id}`);
    expect(await refusal(b.webdriver_ws_url)).toBe(404);
    await svc.call('DELETE', `/browsers/${a.session_id}`);
  });

  it('closes a connected client when its session is deleted', async () => {
    const b = (await svc.call('POST', '/browsers')).body;
    const bidi = await RawBidi.open(b.webdriver_ws_url);
    expect((await bidi.send('session.status')).type).toBe('success');
    expect((await svc.call('DELETE', `/browsers/${b.session_id}`)).status).toBe(204);
    await bidi.closed;
    expect(bidi.ws.readyState).toBe(WebSocket.CLOSED);
  });

  it('refuses an idle pool browser, and serves it once acquired (the acquire answer carries the URL)', async () => {
    const pool = (await svc.call('POST', '/browser_pools', { body: { name: 'bidi-pool', size: 1 } })).body;
    const idle = await eventually(async () => {
      const list = (await svc.call('GET', '/browsers')).body as Array<{ pool?: { id: string }; webdriver_ws_url: string }>;
      return list.find((s) => s.pool?.id === pool.id);
    });
    expect(await refusal(idle.webdriver_ws_url)).toBe(404);
    const leased = (await svc.call('POST', '/browser_pools/bidi-pool/acquire', { body: {} })).body;
    expect(leased.webdriver_ws_url).toMatch(new RegExp(`/browsers/${leased.session_id}/bidi\\?jwt=`));
    const bidi = await RawBidi.open(leased.webdriver_ws_url);
    expect((await bidi.send('session.status')).type).toBe('success');
    // Releasing the lease drops the holder's connection and its URL stops working.
    await svc.call('POST', '/browser_pools/bidi-pool/release', { body: { session_id: leased.session_id } });
    await bidi.closed;
    expect(await refusal(leased.webdriver_ws_url)).toBe(401);
    await svc.call('DELETE', '/browser_pools/bidi-pool');
  });
});
