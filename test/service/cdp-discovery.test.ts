// CDP discovery under a session's CDP address: chrome-remote-interface, puppeteer-core and playwright-core
// each connect with their own default flow starting from an http:// URL, reach the browser or a page
// through the authenticated proxy, and never see Chromium's own port.
import CDP from 'chrome-remote-interface';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let session: { session_id: string; cdp_ws_url: string };
let token: string;
let chromiumPort: string;
let host: string;
let port: number;

beforeAll(async () => {
  svc = await startTestService({ standby: 0 });
  session = (await svc.call('POST', '/browsers', { body: { headless: true, timeout_seconds: 600 } })).body;
  token = new URL(session.cdp_ws_url).searchParams.get('jwt')!;
  chromiumPort = new URL(svc.sessions.get(session.session_id)!.chromium.wsEndpoint).port;
  const address = new URL(svc.baseUrl);
  host = address.hostname;
  port = Number(address.port);
});
afterAll(async () => {
  await svc.close();
});

const base = () => `/browsers/${session.session_id}/cdp`;
/** The path-embedded form, for clients that build URLs by adding a path of their own. */
const tokenBase = () => `${base()}/jwt/${token}`;
const httpUrl = () => session.cdp_ws_url.replace(/^ws/, 'http');
const get = (path: string, headers: Record<string, string> = {}) => fetch(svc.baseUrl + path, { headers });

/** What a client is told must never lead to Chromium's port, nor anywhere but the service. */
function expectProxied(text: string): void {
  expect(text).not.toContain(`:${chromiumPort}`);
  for (const [, url] of text.matchAll(/"(?:webSocketDebuggerUrl)"\s*:\s*"([^"]+)"/g)) expect(url!.startsWith(`ws://${host}:${port}${base()}`), url).toBe(true);
}

describe('CDP discovery', () => {
  it('answers Chromium’s version, targets and protocol with every address pointing at the proxy', async () => {
    for (const path of [`${base()}/json/version?jwt=${token}`, `${tokenBase()}/json/version`, `${base()}/json/version/?jwt=${token}`]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await res.text();
      expectProxied(text);
      const version = JSON.parse(text);
      expect(version.Browser).toMatch(/Chrom/);
      expect(version['Protocol-Version']).toBe('1.3');
      // The address keeps the form the client used: the token where it was.
      expect(version.webSocketDebuggerUrl).toMatch(
        path.includes('/jwt/')
          ? new RegExp(`^ws://${host}:${port}${tokenBase()}/devtools/browser/[\\w-]+$`)
          : new RegExp(`^ws://${host}:${port}${base()}/devtools/browser/[\\w-]+\\?jwt=${token}$`),
      );
    }
    for (const path of [`${base()}/json/list?jwt=${token}`, `${base()}/json?jwt=${token}`, `${tokenBase()}/json/list/`]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      const text = await res.text();
      expectProxied(text);
      const targets = JSON.parse(text) as { type: string; id: string; webSocketDebuggerUrl: string; devtoolsFrontendUrl: string }[];
      const page = targets.find((t) => t.type === 'page')!;
      expect(page.webSocketDebuggerUrl).toContain(`/devtools/page/${page.id}`);
      // A frontend's ws parameter names the proxy, token in the path (the frontend adds nothing to it).
      const frontend = new URL(page.devtoolsFrontendUrl);
      expect(frontend.searchParams.get('ws')).toBe(`${host}:${port}${tokenBase()}/devtools/page/${page.id}`);
    }
    const protocol = await get(`${tokenBase()}/json/protocol`);
    expect(protocol.status).toBe(200);
    const descriptor = (await protocol.json()) as { domains: { domain: string }[] };
    expect(descriptor.domains.map((d) => d.domain)).toContain('Runtime');
  });

  it('lets chrome-remote-interface discover a page and evaluate 1+1 in it', async () => {
    // alterPath applies to discovery paths and to the WebSocket URL it is given, so it adds the base once.
    for (const prefix of [tokenBase(), base()]) {
      const query = prefix === base() ? `?jwt=${token}` : '';
      const alterPath = (path: string) => (path.startsWith(base()) ? path : `${prefix}${path}${query}`);
      const version = await CDP.Version({ host, port, alterPath });
      expect(version.Browser).toMatch(/Chrom/);
      const targets = await CDP.List({ host, port, alterPath });
      expect(targets.some((t) => t.type === 'page')).toBe(true);
      expectProxied(JSON.stringify(targets));
      const client = await CDP({ host, port, alterPath });
      try {
        expect(client.webSocketUrl).toContain(`${base()}`);
        expect(client.webSocketUrl).toContain('/devtools/page/');
        const { result } = await client.send('Runtime.evaluate', { expression: '1+1' });
        expect(result).toEqual({ type: 'number', value: 2, description: '2' });
      } finally {
        await client.close();
      }
    }
    // With the browser's own address and the protocol it carries, it needs no discovery at all.
    const browser = await CDP({ target: session.cdp_ws_url, local: true });
    try {
      const { targetInfos } = await browser.send('Target.getTargets');
      expect(targetInfos.some((t: { type: string }) => t.type === 'page')).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('lets puppeteer connect with browserURL and list the pages', async () => {
    for (const browserURL of [httpUrl(), `${svc.baseUrl}${tokenBase()}`]) {
      const browser = await puppeteer.connect({ browserURL, defaultViewport: null });
      try {
        expect(browser.wsEndpoint()).toMatch(new RegExp(`^ws://${host}:${port}${base()}/`));
        const pages = await browser.pages();
        expect(pages.length).toBeGreaterThan(0);
        expect(await pages[0]!.evaluate(() => 6 * 7)).toBe(42);
      } finally {
        await browser.disconnect();
      }
    }
  });

  it('lets Playwright connectOverCDP with an http URL and open a page', async () => {
    const browser = await chromium.connectOverCDP(httpUrl());
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto('data:text/html,<title>discovered</title>');
      expect(await page.title()).toBe('discovered');
      await page.close();
    } finally {
      await browser.close();
    }
    // With an API key in a header instead of the token.
    const keyed = await chromium.connectOverCDP(`${svc.baseUrl}${base()}`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    try {
      expect(keyed.contexts()[0]!.pages().length).toBeGreaterThan(0);
    } finally {
      await keyed.close();
    }
  });

  it('connects to a page target through the proxy, authorised like the browser', async () => {
    const targets = (await (await get(`${base()}/json/list?jwt=${token}`)).json()) as { type: string; webSocketDebuggerUrl: string; id: string }[];
    const page = targets.find((t) => t.type === 'page')!;
    const answers = await new Promise<unknown[]>((resolve, reject) => {
      const ws = new WebSocket(page.webSocketDebuggerUrl);
      const got: unknown[] = [];
      ws.on('open', () => {
        ws.send(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: '2+3' } }));
        // A page's connection keeps downloads in the session as the browser's does.
        ws.send(JSON.stringify({ id: 2, method: 'Page.setDownloadBehavior', params: { behavior: 'allow', downloadPath: '/etc' } }));
      });
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as { id?: number };
        if (message.id !== undefined) got.push(message); // answers only, not events
        if (got.length === 2) {
          ws.close();
          resolve(got);
        }
      });
      ws.on('error', reject);
    });
    expect(answers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 1, result: expect.objectContaining({ result: expect.objectContaining({ value: 5 }) }) }),
        expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32602, message: expect.stringContaining('outside') }) }),
      ]),
    );
    const status = (url: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
        ws.on('error', () => undefined);
      });
    const origin = `ws://${host}:${port}`;
    expect(await status(`${origin}${base()}/devtools/page/${page.id}?jwt=AAAA`)).toBe(401);
    expect(await status(`${origin}${base()}/jwt/AAAA/devtools/page/${page.id}`)).toBe(401);
    expect(await status(`${origin}${base()}/devtools/page/${page.id}`)).toBe(401);
    expect(await status(`${origin}${base()}/devtools/page/${page.id}`, { authorization: `Bearer ${svc.apiKey}` })).toBe(101);
    expect(await status(`${origin}${tokenBase()}/devtools/page/${page.id}`)).toBe(101);
    // Only targets: nothing else of Chromium's server is reachable.
    expect(await status(`${origin}${tokenBase()}/devtools/inspector.html`)).toBe(404);
    expect(await status(`${origin}${tokenBase()}/json/version`)).toBe(404);
  });

  it('refuses a wrong or missing token with 401 and an unknown or ended session with 404', async () => {
    const other = (await svc.call('POST', '/browsers', { body: { headless: true } })).body;
    const otherToken = new URL(other.cdp_ws_url).searchParams.get('jwt')!;
    for (const path of [`${base()}/json/version?jwt=AAAA`, `${base()}/jwt/AAAA/json/list`, `${base()}/json/version?jwt=${otherToken}`, `${base()}/json/version`]) {
      const res = await get(path);
      expect(res.status, path).toBe(401);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('unauthorized');
      expect(body.message).not.toContain('AAAA');
    }
    const key = { authorization: `Bearer ${svc.apiKey}` };
    expect((await get(`${base()}/json/version`, key)).status).toBe(200);
    expect((await get('/browsers/no-such-session/cdp/json/version', key)).status).toBe(404);
    // A project-scoped key of another project sees no such browser.
    const project = (await svc.call('POST', '/org/projects', { body: { name: 'discovery-elsewhere' } })).body;
    const scoped = (await svc.call('POST', '/org/api_keys', { body: { name: 'elsewhere', project_id: project.id } })).body.key;
    expect((await get(`${base()}/json/list`, { authorization: `Bearer ${scoped}` })).status).toBe(404);
    // The token of an ended session still checks out, but the browser is gone.
    await svc.call('DELETE', `/browsers/${other.session_id}`);
    const ended = await get(`/browsers/${other.session_id}/cdp/jwt/${otherToken}/json/version`);
    expect(ended.status).toBe(404);
    expect(((await ended.json()) as { code: string }).code).toBe('not_found');
    await expect(puppeteer.connect({ browserURL: other.cdp_ws_url.replace(/^ws/, 'http') })).rejects.toThrow(/Not Found/);
  });

  it('keeps a token given in the path out of error messages and the audit log', async () => {
    const res = await fetch(`${svc.baseUrl}${tokenBase()}/json/version`, { method: 'POST', headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).toContain(`${base()}/json/version`);
    expect(text).not.toContain(token);
    const now = Date.now();
    const window = `start=${new Date(now - 3_600_000).toISOString()}&end=${new Date(now + 3_600_000).toISOString()}`;
    const records = (await svc.call('GET', `/audit-logs?${window}&limit=100&search=cdp`)).body as { path: string }[];
    expect(records.map((r) => r.path)).toContain(`${base()}/json/version?jwt=REDACTED`);
    expect(JSON.stringify(records)).not.toContain(token);
  });
});
