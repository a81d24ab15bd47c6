// `bcs codegen`: a short flow recorded on a service's browser (typing, a select, a checkbox, a click made
// through the live view as a person makes it, the toolbar's three assert tools, a popup), written as YAML that
// `bcs run` then passes. The page is driven as a person drives it: real input events, which are what
// Playwright's recorder records (its toolbar's buttons call the recorder's mode binding, as here).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parse } from 'yaml';
import { ROOT, runCli, startCli } from '../helpers/cli.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';
import { servePages, type PageSite } from '../helpers/recording-site.js';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { headfulSupport } from '../../src/service/host/browser/xvfb.js';

const exec = promisify(execFile);
const headful = await headfulSupport((await findChromium(process.env.BCS_CHROMIUM)).headlessShell);
const xdotool = await exec('xdotool', ['--version']).then(() => true, () => false);
if (!headful.available || !xdotool) console.warn(`skipping bcs codegen on a display: ${headful.available ? 'no xdotool' : headful.reason}`);

const FORM = `<!doctype html><title>Order</title>
<h1>Order</h1>
<label>Your name <input id="name"></label>
<label for="colour">Colour</label>
<select id="colour"><option value="r">Red</option><option value="b">Blue</option></select>
<label><input type="checkbox" id="agree"> I agree</label>
<button data-testid="greet" style="width:200px;height:60px"
  onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value + '!'">Greet</button>
<p role="status" id="out"></p>
<a href="/help.html" onclick="window.open('/help.html'); return false">Help</a>`;
const NOTE = `<!doctype html><title>Note</title><input aria-label="Note" style="position:fixed;left:0;top:0;width:100%;height:100%;font-size:40px">`;
const HELP = `<!doctype html><title>Help</title><label>Question <input></label>`;

let svc: TestService;
let site: PageSite;
let siteUrl: string;
let dir: string;

beforeAll(async () => {
  svc = await startTestService();
  site = await servePages((path) => (path === '/help.html' ? HELP : path === '/note.html' ? NOTE : FORM));
  siteUrl = site.url('/form.html');
  dir = await mkdtemp(join(tmpdir(), 'bcs-codegen-'));
});

afterAll(async () => {
  await svc?.close();
  await site?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Steps = Record<string, unknown>[];
const stepsIn = async (file: string): Promise<Steps> => (parse(await readFile(file, 'utf8').catch(() => 'steps: []')) ?? { steps: [] }).steps ?? [];

const recorded = async (file: string, text: string) => ((await stepsIn(file)).some((s) => JSON.stringify(s).includes(text)) ? true : undefined);

/** Switches the recorder's tool as its toolbar's buttons do, and waits until the page has it. */
async function useTool(page: Page, mode: 'assertingText' | 'assertingValue' | 'assertingVisibility'): Promise<void> {
  // The assert tools set a pointer cursor on the page as they start (recording sets none, and leaves it).
  await page.evaluate(() => document.body.removeAttribute('data-pw-cursor'));
  await page.evaluate((m) => (window as unknown as { __pw_recorderSetMode(m: string): Promise<void> }).__pw_recorderSetMode(m), mode);
  await page.waitForFunction(() => document.body.getAttribute('data-pw-cursor') === 'pointer');
}

/**
 * Fills a field until the recording has it: the recorder starts listening in a page a moment after its
 * script is there, and filling a field again only updates the one recorded fill.
 */
async function fillRecorded(file: string, field: ReturnType<Page['getByLabel']>, value: string): Promise<void> {
  await eventually(async () => (await field.fill(value), recorded(file, `"value":"${value}"`)), 30_000, 250);
}

describe('bcs codegen', () => {
  it('records clicks, typing, a select and assertions on a service browser, and the YAML runs green', async () => {
    const file = join(dir, 'order.yaml');
    const env = { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey };
    const { child, done } = startCli(['codegen', siteUrl, '--output', file, '--viewport', '1024x700'], env);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const liveView = await eventually(() => /open the live view[^\n]*\n(http:\/\/\S+)/.exec(stderr)?.[1], 60_000);

    const sessions = (await svc.call('GET', '/browsers')).body as { session_id: string; cdp_ws_url: string }[];
    expect(sessions).toHaveLength(1);
    let browser: Browser | undefined;
    try {
      browser = await chromium.connectOverCDP(sessions[0]!.cdp_ws_url);
      const page = browser.contexts()[0]!.pages()[0]!;
      await eventually(() => (page.url() === siteUrl ? true : undefined));
      // The recorder's overlay is in the page once its script runs there.
      await page.waitForSelector('x-pw-glass', { state: 'attached' });

      await fillRecorded(file, page.getByLabel('Your name'), 'Ada');
      await page.getByLabel('Colour').selectOption('b');
      await page.getByLabel('I agree').click();

      // The Greet button clicked through the live view, at the middle of the button.
      const box = (await page.getByTestId('greet').boundingBox())!;
      const at = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
      const view = new URL(liveView);
      const ws = new WebSocket(`ws://${view.host}/browsers/${view.pathname.split('/')[2]}/live?token=${view.searchParams.get('token')}`);
      const hello = new Promise((r) => ws.on('message', (data, binary) => !binary && JSON.parse(String(data)).type === 'hello' && r(true)));
      await hello;
      ws.send(JSON.stringify({ type: 'mouse', action: 'move', ...at }));
      ws.send(JSON.stringify({ type: 'mouse', action: 'down', ...at, button: 'left' }));
      ws.send(JSON.stringify({ type: 'mouse', action: 'up', ...at, button: 'left' }));
      await page.getByRole('status').filter({ hasText: 'Hello, Ada!' }).waitFor();
      ws.close();

      await useTool(page, 'assertingText');
      await page.getByRole('status').hover();
      await page.getByRole('status').click();
      await page.keyboard.press('Control+Enter'); // the text dialog's accept
      await eventually(() => recorded(file, '"contains":"Hello, Ada!"'));
      await useTool(page, 'assertingValue');
      await page.getByLabel('Your name').hover();
      await page.getByLabel('Your name').click();
      await eventually(() => recorded(file, '{"expect":{"role":"textbox","name":"Your name","value":"Ada"}}'));
      await useTool(page, 'assertingVisibility');
      await page.getByRole('heading', { name: 'Order' }).hover();
      await page.getByRole('heading', { name: 'Order' }).click();

      await eventually(() => recorded(file, '"visible":true'));

      // A popup: acted on, closed, then back on the first page.
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('link', { name: 'Help' }).click()]);
      await fillRecorded(file, popup.getByLabel('Question'), 'why');
      await popup.close();
      await page.getByLabel('I agree').click();
      await eventually(async () => ((await stepsIn(file)).some((s) => 'uncheck' in s) ? true : undefined), 30_000);
    } finally {
      await browser?.close();
    }
    child.kill('SIGINT');
    const res = await done;
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`wrote 13 steps to ${file}`);

    const text = await readFile(file, 'utf8');
    expect(text.split('\n').slice(0, 6)).toEqual([
      `# yaml-language-server: $schema=${relative(dir, join(ROOT, 'src/scenario/scenario.schema.json'))}`,
      'name: order',
      'browser:',
      '  headless: true',
      '  viewport: { width: 1024, height: 700 }',
      'steps:',
    ]);
    expect(await stepsIn(file)).toEqual([
      { goto: siteUrl },
      { fill: { role: 'textbox', name: 'Your name', value: 'Ada' } },
      { select: { label: 'Colour', option: 'b' } },
      { check: { role: 'checkbox', name: 'I agree' } },
      { click: { test_id: 'greet' } },
      // For a text check the recorder picks a locator that does not depend on the text (here the id)
      { expect: { selector: '#out', text: { contains: 'Hello, Ada!' } } },
      { expect: { role: 'textbox', name: 'Your name', value: 'Ada' } },
      { expect: { role: 'heading', name: 'Order', visible: true } },
      { click: { role: 'link', name: 'Help' } },
      { switch_page: { index: 1 } },
      { fill: { role: 'textbox', name: 'Question', value: 'why' } },
      { close_page: true },
      { uncheck: { role: 'checkbox', name: 'I agree' } },
    ]);
    // The session the recording used is gone with it.
    expect((await svc.call('GET', '/browsers')).body).toEqual([]);

    const out = join(dir, 'out');
    const run = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out], env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(results.scenarios[0].status).toBe('passed');
  });

  it.skipIf(!headful.available || !xdotool)('records on a window of this display, from real mouse and keyboard input', { timeout: 120_000 }, async () => {
    const number = String(100 + Math.floor(Math.random() * 800));
    const xvfb: ChildProcess = spawn('Xvfb', [`:${number}`, '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    const env = { DISPLAY: `:${number}` };
    const x = (...args: string[]) => exec('xdotool', args, { env: { ...process.env, ...env } });
    try {
      await eventually(() => x('getdisplaygeometry').then((r) => r.stdout.trim() === '1280 900' || undefined, () => undefined), 10_000);
      const file = join(dir, 'note.yaml');
      const { child, done } = startCli(['codegen', siteUrl.replace('form.html', 'note.html'), '-o', file], env);
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      await eventually(() => stderr.includes('use the browser window') || undefined, 60_000);
      await eventually(() => x('search', '--name', 'Note').then((r) => r.stdout.trim() || undefined, () => undefined), 30_000);
      // The field fills the page: a click anywhere below the browser's toolbar lands in it. Typing more is
      // still one fill, so type until the recorder (listening a moment after the page is there) has it.
      await x('mousemove', '640', '600', 'click', '1');
      await eventually(async () => {
        await x('type', '--delay', '20', 'ab');
        return (await stepsIn(file)).some((s) => 'fill' in s) || undefined;
      }, 60_000, 500);
      child.kill('SIGINT');
      const res = await done;
      expect(res.code, res.stderr).toBe(0);
      const steps = await stepsIn(file);
      expect(steps).toEqual([{ goto: siteUrl.replace('form.html', 'note.html') }, { fill: { role: 'textbox', name: 'Note', value: expect.stringMatching(/^(ab)+$/) } }]);
    } finally {
      xvfb.kill();
    }
  });
});
