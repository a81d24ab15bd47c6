// Recording a scenario on a session's browser through the service (the console's Record): the recorder
// is started by the API, the page is driven as the live view drives it (real input through the computer
// API, which is what the live view sends) and by Playwright's fill, the toolbar's visibility tool is used,
// and the YAML the service answers runs green with `bcs run` against the same service.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../helpers/cli.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';
import { ORDER_FORM, servePages, type PageSite } from '../helpers/recording-site.js';

let svc: TestService;
let site: PageSite;
let siteUrl: string;
let dir: string;

beforeAll(async () => {
  svc = await startTestService();
  site = await servePages(() => ORDER_FORM);
  siteUrl = site.url('/form.html');
  dir = await mkdtemp(join(tmpdir(), 'bcs-codegen-svc-'));
});

afterAll(async () => {
  await svc?.close();
  await site?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Steps = Record<string, unknown>[];
const path = (id: string) => `/browsers/${id}/recording/codegen`;
const stepsOf = (yaml: string): Steps => (parse(yaml) as { steps: Steps }).steps;

async function recorded(id: string, text: string): Promise<true | undefined> {
  const res = await svc.call('GET', path(id));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return JSON.stringify(stepsOf(res.body.yaml)).includes(text) || undefined;
}

/** Clicks at the middle of what `locator` finds, as the live view does: real input at the page's pixels. */
async function clickThroughService(id: string, locator: ReturnType<Page['getByTestId']>): Promise<void> {
  const box = (await locator.boundingBox())!;
  const res = await svc.call('POST', `/browsers/${id}/computer/click_mouse`, { body: { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) } });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}

/** The screen's top strip right of the heading, where the recorder's toolbar sits (centred), as PNG bytes. */
async function toolbarStrip(id: string): Promise<string> {
  const res = await fetch(`${svc.baseUrl}/browsers/${id}/computer/screenshot`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ region: { x: 300, y: 0, width: 600, height: 40 } }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer()).toString('base64');
}

describe('recording a scenario on a session (POST/GET/DELETE /browsers/{id}/recording/codegen)', () => {
  it('records what the live view does and the toolbar asserts, and the YAML runs green against the service', { timeout: 240_000 }, async () => {
    const session = (await svc.call('POST', '/browsers', { body: { viewport: { width: 1024, height: 700 } } })).body;
    const id = session.session_id as string;
    let browser: Browser | undefined;
    try {
      expect((await svc.call('GET', path(id))).status).toBe(404);
      // A blank strip, as the page will have there once the toolbar is gone.
      const blank = await toolbarStrip(id);
      const started = await svc.call('POST', path(id), { body: { name: 'order', url: siteUrl } });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      expect(started.body).toMatchObject({ status: 'recording', name: 'order', start_url: siteUrl, step_count: 1, skipped: [] });
      // One recording at a time on a browser.
      const again = await svc.call('POST', path(id), { body: {} });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('conflict');

      // The test's own eyes on the page: where things are, and the toolbar's tool switch.
      browser = await chromium.connectOverCDP(session.cdp_ws_url);
      const page = browser.contexts()[0]!.pages()[0]!;
      await eventually(() => (page.url() === siteUrl ? true : undefined));
      await page.waitForSelector('x-pw-glass', { state: 'attached' });
      // The toolbar is on the screen the live view shows.
      await eventually(async () => ((await toolbarStrip(id)) !== blank ? true : undefined), 30_000, 250);

      // The recorder listens a moment after its script is in the page; filling again only updates the one fill.
      await eventually(async () => (await page.getByLabel('Your name').fill('Ada'), recorded(id, '"value":"Ada"')), 60_000, 250);
      await clickThroughService(id, page.getByTestId('greet'));
      await page.getByRole('status').filter({ hasText: 'Hello, Ada!' }).waitFor();
      await eventually(() => recorded(id, '{"click":{"test_id":"greet"}}'), 30_000, 250);

      // The toolbar's visibility tool, as its button switches it, then a click through the service.
      await page.evaluate(() => document.body.removeAttribute('data-pw-cursor'));
      await page.evaluate(() => (window as unknown as { __pw_recorderSetMode(m: string): Promise<void> }).__pw_recorderSetMode('assertingVisibility'));
      await page.waitForFunction(() => document.body.getAttribute('data-pw-cursor') === 'pointer');
      const heading = page.getByRole('heading', { name: 'Order' });
      const box = (await heading.boundingBox())!;
      await svc.call('POST', `/browsers/${id}/computer/move_mouse`, { body: { x: Math.round(box.x + 10), y: Math.round(box.y + box.height / 2) } });
      await clickThroughService(id, heading);
      await eventually(() => recorded(id, '"visible":true'), 30_000, 250);

      const stopped = await svc.call('DELETE', path(id));
      expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
      expect(stopped.body.status).toBe('stopped');
      const yaml = stopped.body.yaml as string;
      expect(yaml.split('\n').slice(0, 4)).toEqual(['name: order', 'browser:', '  headless: true', '  viewport: { width: 1024, height: 700 }']);
      expect(stepsOf(yaml)).toEqual([
        { goto: siteUrl },
        { fill: { role: 'textbox', name: 'Your name', value: 'Ada' } },
        { click: { test_id: 'greet' } },
        { expect: { role: 'heading', name: 'Order', visible: true } },
      ]);
      expect(stopped.body.step_count).toBe(4);
      // Stopped, it stays readable, and the toolbar has left the screen.
      expect((await svc.call('GET', path(id))).body).toEqual(stopped.body);
      await eventually(async () => ((await toolbarStrip(id)) === blank ? true : undefined), 30_000, 250);

      const file = join(dir, 'order.yaml');
      await writeFile(file, yaml);
      const out = join(dir, 'out');
      const run = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(JSON.parse(await readFile(join(out, 'results.json'), 'utf8')).scenarios[0].status).toBe('passed');
    } finally {
      await browser?.close();
      await svc.call('DELETE', `/browsers/${id}`);
    }
  });

  it('answers bad input and absent recordings with the Error body', { timeout: 120_000 }, async () => {
    const id = (await svc.call('POST', '/browsers', { body: {} })).body.session_id as string;
    try {
      const badUrl = await svc.call('POST', path(id), { body: { url: 'ftp://example.com/' } });
      expect(badUrl.status).toBe(400);
      expect(badUrl.body.message).toBe("body.url: 'ftp://example.com/': codegen records http, https and file pages");
      const file = await svc.call('POST', path(id), { body: { url: 'file:///etc/passwd' } });
      expect(file.status).toBe(400);
      expect(file.body.details[0].field).toBe('body.url');
      const extra = await svc.call('POST', path(id), { body: { nme: 'x' } });
      expect(extra.status).toBe(400);
      expect((await svc.call('DELETE', path(id))).body).toEqual({ code: 'not_found', message: `recording on browser '${id}' not found` });
      expect((await svc.call('POST', path('nope'), { body: {} })).body.code).toBe('not_found');

      // Without a URL it records from the page as it is, named after its host (about:blank has none).
      const started = await svc.call('POST', path(id));
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      expect(started.body).toMatchObject({ status: 'recording', name: 'recorded', start_url: 'about:blank' });
    } finally {
      // Ending the session ends its recording with it.
      await svc.call('DELETE', `/browsers/${id}`);
    }
    expect((await svc.call('GET', path(id))).status).toBe(404);
  });
});
