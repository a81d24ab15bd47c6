// The web console (GET /) in real Chromium against the real service: sign-in, sessions, replays, telemetry,
// the resource pages and the live view. One service and one browser for the whole file, pages reused, so it
// stays within a minute on two busy cores. BCS_CONSOLE_SCREENSHOTS=1 also writes docs/console/*.png.
import { chromium, type Browser, type BrowserContext, type Page, type Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipOf } from '../helpers/app-zip.js';
import * as steps from '../helpers/console.js';
import { replaySkipReason, sleep } from '../helpers/replays.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';


let svc: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** An app deployed and invoked in the background while the other tests run (a build takes seconds). */
let deployed: Promise<{ deployment: string; invocation: string }>;

const created = (path: string, body: unknown, headers?: Record<string, string>) => steps.created(svc, path, body, headers);
const open = (route: string, heading: string) => steps.open(svc, page, route, heading);

const shot = (name: string, on: Page = page) => steps.shot(on, name);
const { SHOTS } = steps;

beforeAll(async () => {
  svc = await startTestService();
  deployed = deployApp();
  // Unhandled until awaited in its test: a failure there should fail that test, not the whole file.
  deployed.catch(() => undefined);
  browser = await chromium.launch({ executablePath: svc.chromium.path });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

async function deployApp(): Promise<{ deployment: string; invocation: string }> {
  const form = new FormData();
  const code = "import { Kernel } from '@onkernel/sdk';\nnew Kernel().app('console-app').action('echo', async (_ctx, p) => p);\n";
  form.append('file', new Blob([new Uint8Array(await zipOf({ 'index.js': code }))]), 'app.zip');
  const res = await fetch(`${svc.baseUrl}/deployments`, { method: 'POST', headers: { authorization: `Bearer ${svc.apiKey}` }, body: form });
  const deployment = (await res.json()) as { id: string };
  await eventually(async () => {
    const d = (await svc.call('GET', `/deployments/${deployment.id}`)).body;
    if (d.status === 'failed') throw new Error(d.status_reason);
    return d.status === 'running' ? true : undefined;
  });
  const invoked = await created('/invocations', { app_name: 'console-app', version: 'latest', action_name: 'echo', payload: '"hi"' });
  return { deployment: deployment.id, invocation: invoked.id };
}

describe("the console's files", () => {
  it('are served with a strict policy, revalidated by ETag, and /live/{id} bounds its token', async () => {
    const page = await fetch(`${svc.baseUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://${new URL(svc.baseUrl).host} wss://${new URL(svc.baseUrl).host}`);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const again = await fetch(`${svc.baseUrl}/console/app.js`, { headers: { 'if-none-match': (await fetch(`${svc.baseUrl}/console/app.js`)).headers.get('etag')! } });
    expect(again.status).toBe(304);
    const live = await fetch(`${svc.baseUrl}/live/some-session?token=abc`);
    expect([live.status, live.headers.get('cache-control'), live.headers.get('referrer-policy')]).toEqual([200, 'no-store', 'no-referrer']);
    const long = await fetch(`${svc.baseUrl}/live/some-session?token=${'x'.repeat(1025)}`);
    expect(long.status).toBe(400);
    expect(((await long.json()) as { code: string }).code).toBe('bad_request');
  });
});

describe('the console', () => {
  it('refuses a wrong key with the API message, and lists sessions with the right one', async () => {
    await steps.signIn(svc, page, 'bcs_not-a-key-of-this-service');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('invalid, expired or deleted API key');
    await shot('sign-in');
    await steps.signIn(svc, page, svc.apiKey);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    // The key is in the tab's session storage, never in the address.
    expect(page.url()).not.toContain(svc.apiKey);
    expect(await page.evaluate(() => sessionStorage.getItem('bcs-console-key'))).toBe(svc.apiKey);
  });

  it('shows a session created through the API, its page, and deletes it', async () => {
    const s = await created('/browsers', { name: 'console-demo', tags: { team: 'qa' } });
    await open('sessions', 'Sessions');
    const row = page.locator(`tr[data-row="${s.session_id}"]`);
    await expect.poll(() => row.textContent()).toContain('console-demo');
    expect(await row.textContent()).toContain('team=qa');
    expect(await row.textContent()).toContain('running');
    await shot('sessions');
    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Session console-demo' }).waitFor();
    await shot('session');
    await page.getByRole('button', { name: 'Delete session' }).click();
    await page.getByText('Deleted.').waitFor();
    const ended = (await svc.call('GET', '/browsers?status=deleted')).body as { session_id: string; end_reason: string }[];
    expect(ended.find((e) => e.session_id === s.session_id)?.end_reason).toBe('deleted');
    await open('sessions', 'Sessions');
    await expect.poll(() => row.textContent()).toContain('ended: deleted');
  });

  it('shows a kept browser as kept, with why and a link to its live view, and finds it with "kept only"', async () => {
    const s = await created('/browsers', { name: 'kept-check' });
    const other = await created('/browsers', { name: 'not-kept' });
    const reason = { scenario: 'checkout', step: "click 'Pay'", message: 'expected title Paid\nmore lines' };
    await created(`/browsers/${s.session_id}/keep`, { seconds: 900, reason });
    await open('sessions', 'Sessions');
    const row = page.locator(`tr[data-row="${s.session_id}"]`);
    await expect.poll(() => row.textContent()).toContain('kept until');
    const status = row.locator('.status.kept');
    expect(await status.getAttribute('title')).toBe("'checkout' failed at 'click 'Pay'': expected title Paid");
    expect(await status.getByRole('link', { name: 'live view' }).getAttribute('href')).toBe(s.browser_live_view_url);
    await page.getByLabel('kept only').check();
    await expect.poll(() => page.locator(`tr[data-row="${other.session_id}"]`).count()).toBe(0);
    expect(await row.count()).toBe(1);
    await page.getByLabel('kept only').uncheck();
    await row.getByRole('link', { name: s.session_id }).click();
    await page.getByRole('heading', { name: 'Session kept-check' }).waitFor();
    await expect.poll(() => page.locator('dl.facts').textContent()).toContain("'checkout' failed at 'click 'Pay'': expected title Paid");
    await svc.call('DELETE', `/browsers/${s.session_id}`);
    await svc.call('DELETE', `/browsers/${other.session_id}`);
  });

  it.skipIf(replaySkipReason)('plays a replay and seeks to a marker', async () => {
    const s = await created('/browsers', { name: 'replayed', start_url: 'data:text/html,<h1 style="font:80px sans-serif;color:%23246">Recorded page</h1>' });
    const replay = await created(`/browsers/${s.session_id}/replays`, { framerate: 10 });
    const base = `/browsers/${s.session_id}/replays/${replay.replay_id}`;
    await sleep(2500);
    await created(`${base}/markers`, { name: 'checkpoint', offset_ms: 1500 });
    await created(`${base}/stop`, {});
    await open(`sessions/${s.session_id}/replays`, 'Replays');
    await page.getByRole('button', { name: replay.replay_id }).click();
    const video = page.locator('video');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
    expect(await page.getByRole('link', { name: 'Download MP4' }).getAttribute('href')).toMatch(/^blob:/);
    await page.getByRole('button', { name: /checkpoint/ }).click();
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeCloseTo(1.5, 0);
    await shot('replays');
    await svc.call('DELETE', `/browsers/${s.session_id}`);
  });

  it('follows telemetry live, filters it by category, and shows history and logs', async () => {
    const s = await created('/browsers', { name: 'observed', telemetry: { enabled: true } });
    // An API call on the session is a `control` event.
    await svc.call('GET', `/browsers/${s.session_id}/replays`);
    await open(`sessions/${s.session_id}/telemetry`, 'Telemetry and logs');
    const live = page.locator('.live-events tbody');
    await expect.poll(() => live.textContent()).toContain('api_call');
    await svc.call('GET', `/browsers/${s.session_id}/replays`);
    await expect.poll(() => live.locator('tr').count()).toBeGreaterThan(1);
    await expect.poll(() => page.locator('.history tbody').textContent()).toContain('api_call');
    await expect.poll(() => page.locator('pre.log').textContent()).toContain('session started');
    await shot('telemetry');
    await page.getByRole('checkbox', { name: 'control' }).uncheck();
    await expect.poll(() => live.locator('tr').count()).toBe(0);
    await svc.call('DELETE', `/browsers/${s.session_id}`);
  });

  it('lists what was created through the API on each resource page', async () => {
    await created('/org/projects', { name: 'console-project' });
    const pool = await created('/browser_pools', { name: 'console-pool', size: 1 });
    await created('/profiles', { name: 'console-profile' });
    const proxy = await created('/proxies', { type: 'datacenter', name: 'console-proxy' });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await zipOf({ 'manifest.json': JSON.stringify({ manifest_version: 3, name: 'c', version: '1.0' }) }))]), 'c.zip');
    form.append('name', 'console-extension');
    expect((await fetch(`${svc.baseUrl}/extensions`, { method: 'POST', headers: { authorization: `Bearer ${svc.apiKey}` }, body: form })).status).toBeLessThan(300);
    const connection = await created('/auth/connections', { domain: 'console.test', profile_name: 'console-login' });

    const shows = async (route: string, heading: string, text: string) => {
      await open(route, heading);
      await expect.poll(() => page.locator('main').textContent(), { message: `${route} shows ${text}` }).toContain(text);
      await shot(route);
    };
    await shows('profiles', 'Profiles', 'console-profile');
    await shows('extensions', 'Extensions', 'console-extension');
    await shows('proxies', 'Proxies', 'console-proxy');
    await page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(async () => (await svc.call('GET', `/proxies/${proxy.id}`)).body.last_checked).toBeTruthy();
    await shows('auth-connections', 'Auth connections', 'console.test');
    await shows('projects', 'Projects', 'console-project');
    await shows('audit', 'Audit log', '/org/projects');
    await open('pools', 'Pools');
    const poolRow = page.locator(`tr[data-row="${pool.id}"]`);
    await expect.poll(() => poolRow.textContent()).toContain('1/1');
    await shot('pools');
    await poolRow.getByRole('button', { name: 'Flush' }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);

    // A key made here is shown once, then listed masked.
    await open('api-keys', 'API keys');
    await page.fill('input[name=name]', 'made-in-console');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.locator('code.secret').textContent();
    expect((await fetch(`${svc.baseUrl}/auth/context`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
    await expect.poll(() => page.locator('tbody').textContent()).toContain('made-in-console');
    await shot('api-keys');

    const { deployment, invocation } = await deployed;
    await open('apps', 'Apps');
    await expect.poll(() => page.locator('main').textContent()).toContain(invocation);
    await page.locator(`tr[data-row="${deployment}"]`).getByRole('button', { name: 'logs' }).click();
    await expect.poll(() => page.locator('pre.log').textContent()).toContain('deployment_state');
    await shot('apps');
    expect(connection.id).toBeTruthy();
  });

  it('pages through a list longer than a page, and a new search starts again from the first page', async () => {
    // One more than a page (50) of the cheapest kind; deleted at the end, as the other tests look for theirs on page one.
    const made: string[] = [];
    try {
      for (let i = 0; i <= 50; i++) made.push((await created('/profiles', { name: `paged-${String(i).padStart(2, '0')}` })).id);
      const total = ((await svc.call('GET', '/profiles?limit=100')).body as unknown[]).length;
      await open('profiles', 'Profiles');
      const pager = page.getByRole('navigation', { name: 'Profiles pages' });
      const rows = page.locator('tbody tr');
      await expect.poll(() => pager.textContent()).toContain('Rows 1–50, more follow');
      expect(await rows.count()).toBe(50);
      expect(await pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
      await pager.getByRole('button', { name: 'Next' }).click();
      // Oldest first: the last one made is on the second page.
      await expect.poll(() => page.locator('tbody').textContent()).toContain('paged-50');
      expect([await rows.count(), await pager.textContent()]).toEqual([total - 50, `PreviousRows 51–${total}Next`]);
      expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
      await pager.getByRole('button', { name: 'Previous' }).click();
      await expect.poll(() => rows.count()).toBe(50);
    } finally {
      for (const id of made) await svc.call('DELETE', `/profiles/${id}`);
    }

    // Those 102 requests are in the audit log, which pages by token: older pages, then back to the newest.
    await open('audit', 'Audit log');
    const audit = page.getByRole('navigation', { name: 'Audit log pages' });
    await expect.poll(() => audit.textContent()).toContain('Rows 1–50, more follow');
    expect(await audit.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
    const newest = await page.locator('tbody tr').first().textContent();
    await audit.getByRole('button', { name: 'Older' }).click();
    await expect.poll(() => audit.textContent()).toContain('Rows 51–100, more follow');
    expect(await page.locator('tbody tr').first().textContent()).not.toBe(newest);
    await audit.getByRole('button', { name: 'Newer' }).click();
    await expect.poll(() => audit.textContent()).toContain('Rows 1–50');
    expect(await audit.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);

    // Sessions would cost a browser each: the answers say more follow instead, and the test watches the offsets asked for.
    const sessionsList = /\/browsers\?/;
    const asked: URLSearchParams[] = [];
    const moreFollow = async (route: Route) => {
      const params = new URL(route.request().url()).searchParams;
      asked.push(params);
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), 'x-has-more': 'true', 'x-next-offset': String(Number(params.get('offset')) + 50) } });
    };
    // A session of its own, so the list has a row (and a pager) whichever tests ran before.
    const own = await created('/browsers', { name: 'console-paged' });
    await page.route(sessionsList, moreFollow);
    try {
      await open('sessions', 'Sessions');
      const pager = page.getByRole('navigation', { name: 'Sessions pages' });
      await pager.getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(false);
      expect(asked.at(-1)?.get('offset')).toBe('50');
      await page.getByRole('searchbox').fill('console');
      await expect.poll(() => asked.at(-1)?.toString()).toBe('status=all&query=console&offset=0&limit=50');
      await expect.poll(() => pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
    } finally {
      await page.unroute(sessionsList, moreFollow);
      await svc.call('DELETE', `/browsers/${own.session_id}`);
    }
  });

  it('draws the live frames of a socket and sends input in frame pixels (the protocol, against a scripted socket)', async () => {
    // The socket is Playwright's stand-in (routeWebSocket), so the component is checked without a live
    // server: the first frame, the click mapped from the scaled canvas to frame pixels, the round trip of a
    // ping, and the view-only mode that sends no input.
    const frame = await jpeg(640, 400);
    const received: Record<string, unknown>[] = [];
    const live = await context.newPage();
    try {
      await live.routeWebSocket(/\/browsers\/fake-session\/live\?token=t0k/, (ws) => {
        ws.onMessage((m) => {
          const msg = JSON.parse(String(m)) as { type: string; t?: number };
          received.push(msg);
          if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong', t: msg.t }));
        });
        ws.send(JSON.stringify({ type: 'hello', mode: 'interactive', headless: true, width: 640, height: 400 }));
        ws.send(frame);
      });
      await live.setViewportSize({ width: 500, height: 500 });
      await live.goto(`${svc.baseUrl}/live/fake-session?token=t0k`);
      const canvas = live.locator('canvas');
      await expect.poll(() => live.locator('[data-frames]').getAttribute('data-frames')).toBe('1');
      expect(await canvas.evaluate((c: HTMLCanvasElement) => [...c.getContext('2d')!.getImageData(320, 200, 1, 1).data])).toEqual([
        expect.toSatisfy((r: number) => r > 180),
        expect.toSatisfy((g: number) => g < 80),
        expect.toSatisfy((b: number) => b < 80),
        255,
      ]);
      await live.getByText(/^round trip \d+ ms$/).waitFor();
      // Scaled down to fit 500 px: a click a quarter of the way across is x 160 of the frame's 640.
      const box = (await canvas.boundingBox())!;
      expect(box.width).toBeLessThan(640);
      await live.mouse.click(box.x + box.width / 4, box.y + box.height / 2);
      const near = (n: number) => expect.toSatisfy((v: number) => Number.isInteger(v) && Math.abs(v - n) <= 1);
      await expect.poll(() => received.find((m) => m.action === 'down')).toEqual({ type: 'mouse', action: 'down', x: near(160), y: near(200), button: 'left' });
      await expect.poll(() => received.find((m) => m.action === 'up')).toEqual({ type: 'mouse', action: 'up', x: near(160), y: near(200), button: 'left' });
      await live.keyboard.press('a');
      await expect.poll(() => received.find((m) => m.type === 'key')).toEqual({ type: 'key', action: 'down', key: 'a', code: 'KeyA' });
      await live.mouse.wheel(0, 120);
      await expect.poll(() => received.find((m) => m.type === 'wheel')).toEqual({ type: 'wheel', x: near(160), y: near(200), delta_x: 0, delta_y: 120 });
      await canvas.evaluate((c) => {
        const data = new DataTransfer();
        data.setData('text/plain', 'pasted text');
        c.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      });
      await expect.poll(() => received.find((m) => m.type === 'text')).toEqual({ type: 'text', text: 'pasted text' });
      if (SHOTS) {
        await live.setViewportSize({ width: 1280, height: 800 });
        await shot('live-view', live);
      }

      await live.routeWebSocket(/\/browsers\/viewed\/live/, (ws) => {
        ws.send(JSON.stringify({ type: 'hello', mode: 'view', headless: false, width: 640, height: 400 }));
        ws.send(frame);
        ws.onMessage((m) => received.push({ viewOnly: JSON.parse(String(m)) }));
      });
      await live.goto(`${svc.baseUrl}/live/viewed?token=t`);
      await live.getByText('view only').waitFor();
      await expect.poll(() => live.locator('[data-frames]').getAttribute('data-frames')).toBe('1');
      const viewBox = (await canvas.boundingBox())!;
      await live.mouse.click(viewBox.x + 10, viewBox.y + 10);
      await sleep(300);
      expect(received.filter((m) => m.viewOnly && (m.viewOnly as { type: string }).type !== 'ping')).toEqual([]);
    } finally {
      await live.close();
    }
  });

  // ENABLE AFTER MERGE: needs the live view's server half (browser_live_view_url and /browsers/{id}/live).
  // Until then the session has no browser_live_view_url and the test skips itself, saying why.
  it("shows a session's screen live and clicks through to its page (real service)", async (ctx) => {
    const s = await created('/browsers', { name: 'watched', headless: true });
    try {
      if (typeof s.browser_live_view_url !== 'string') {
        console.warn('skipping the live view test: this service answers no browser_live_view_url (the live view server half is not merged)');
        ctx.skip();
        return;
      }
      const cdp = await chromium.connectOverCDP(s.cdp_ws_url);
      try {
        const target = cdp.contexts()[0]!.pages()[0] ?? (await cdp.contexts()[0]!.newPage());
        await target.setContent(
          '<button id="b" style="position:fixed;left:100px;top:80px;width:240px;height:120px;font-size:30px" onclick="this.textContent=\'clicked\'">press</button>',
        );
        await open(`sessions/${s.session_id}`, 'Session watched');
        const frames = page.locator('.live-view [data-frames]');
        await expect.poll(async () => Number(await frames.getAttribute('data-frames'))).toBeGreaterThan(0);
        const canvas = page.locator('.live-view canvas');
        const nonEmpty = await canvas.evaluate((c: HTMLCanvasElement) => {
          const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          return d.some((v, i) => i % 4 !== 3 && v !== d[0]);
        });
        expect(nonEmpty).toBe(true);
        await page.getByText('interactive', { exact: true }).waitFor();
        // The button's middle in the session's page pixels, which are the frame's pixels of a headless session.
        const { left, top, scale } = await canvas.evaluate((c: HTMLCanvasElement) => {
          const box = c.getBoundingClientRect();
          return { left: box.left + c.clientLeft, top: box.top + c.clientTop, scale: c.clientWidth / c.width };
        });
        const framesAtClick = Number(await frames.getAttribute('data-frames'));
        await page.mouse.click(left + 220 * scale, top + 140 * scale);
        await expect.poll(() => target.textContent('#b')).toBe('clicked');
        if (SHOTS) {
          // The screencast sends a frame when the page changes: the picture shows the click's effect.
          await expect.poll(async () => Number(await frames.getAttribute('data-frames'))).toBeGreaterThan(framesAtClick);
          await page.getByText(/^round trip/).waitFor();
          await shot('session-live');
        }
      } finally {
        await cdp.close();
      }
    } finally {
      await svc.call('DELETE', `/browsers/${s.session_id}`);
    }
  });
});

/** A JPEG of one red colour, as the live socket sends frames. */
async function jpeg(width: number, height: number): Promise<Buffer> {
  const p = await context.newPage();
  try {
    await p.setViewportSize({ width, height });
    await p.setContent('<body style="margin:0;background:#d01010"></body>');
    return await p.screenshot({ type: 'jpeg', quality: 90 });
  } finally {
    await p.close();
  }
}
