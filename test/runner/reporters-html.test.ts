// report.html from a real run, opened in real Chromium: a recorded scenario that passes on its retry (so
// the report has an earlier attempt) and one that fails with a screenshot. The report must list every
// step with its details, embed the screenshot and the video, seek the video when a step is clicked, keep
// the scenarios' strings as text, and load nothing from anywhere.
import { chromium, type Browser, type Page } from 'playwright-core';
import { createServer, type Server } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlReport } from '../../runner/reporters/html.js';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

type Json = Record<string, any>;

let svc: TestService;
let site: Server;
let browser: Browser;
let pageLoads = 0;
let results: Json;

const RECORDED = `name: "<img src=x onerror=window.__xss=1> recorded"
vars: { site: "http://127.0.0.1:1" }
replay: { record: true, framerate: 10 }
telemetry: { console: true }
steps:
  - goto: "{{ site }}/"
  - name: "<script>window.__xss=2</script> press the button"
    click: "#oops"
  - sleep: 600ms
  - marker: halfway
  - sleep: 600ms
  - name: greeting
    expect: { text: Hello, timeout: 800ms }
`;

const FAILING = `name: failing with a screenshot
steps:
  - goto: "data:text/html,<h1>Nope</h1>"
  - screenshot: before
  - name: look for what is not there
    expect: { text: Never, timeout: 300ms }
  - goto: "data:text/html,skipped"
`;

const project = await inlineFiles({ 'recorded.yaml': RECORDED, 'failing.yaml': FAILING });
const out = project.path('out');

beforeAll(async () => {
  // The first load says the wrong thing: the recorded scenario fails once, then passes on the retry.
  site = createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    pageLoads++;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>html</title><h1 style="font-size:80px">${pageLoads === 1 ? 'Goodbye' : 'Hello'}</h1>
<button id="oops" onclick="console.error('boom <b>from</b> the page')">oops</button>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  svc = await startTestService();
  const vars = { site: `http://127.0.0.1:${(site.address() as AddressInfo).port}` };
  const code = await runReported([project.path('recorded.yaml'), project.path('failing.yaml')], 'json,html', vars, 1);
  expect(code).toBe(1);
  results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  browser = await chromium.launch({ executablePath: (await findChromium(process.env.BCS_CHROMIUM)).path });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  site?.close();
});

/** `bcs run` with these reporters and retries, against the test service. */
async function runReported(paths: string[], names: string, vars: Record<string, string>, retries: number): Promise<number | null> {
  const args = ['run', ...paths, '--reporter', names, '--output-dir', out, '--retries', String(retries)];
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}=${v}`);
  return (await runCli(args, { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey })).code;
}

interface Opened {
  page: Page;
  /** Console errors, page errors and CSP violations. */
  problems: string[];
  /** Every request the page made that is not the report itself or a data: URI. */
  requests: string[];
}

async function open(file: string): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const opened: Opened = { page, problems: [], requests: [] };
  page.on('console', (m) => m.type() === 'error' && opened.problems.push(m.text()));
  page.on('pageerror', (e) => opened.problems.push(e.message));
  page.on('request', (r) => !r.url().startsWith('data:') && r.url() !== pathToFileURL(file).href && opened.requests.push(r.url()));
  await page.goto(pathToFileURL(file).href);
  return opened;
}

const videoState = (page: Page, id: string) =>
  page.evaluate((vid) => {
    const v = document.getElementById(vid) as HTMLVideoElement;
    return { time: v.currentTime, ready: v.readyState, duration: v.duration, src: v.getAttribute('src') ?? '' };
  }, id);

describe('the html reporter', () => {
  let report: Opened;
  let recorded: Json;
  let failing: Json;

  beforeAll(async () => {
    [recorded, failing] = results.scenarios;
    report = await open(join(out, 'report.html'));
  });

  it('lists every step of every scenario in order, with status, kind and location', async () => {
    expect(recorded).toMatchObject({ status: 'passed', flaky: true, attempt: 2 });
    for (const [i, scenario] of [recorded, failing].entries()) {
      const rows = report.page.locator(`#s${i} > details > .body > ol.steps > li`);
      expect(await rows.locator('.name').allTextContents()).toEqual(scenario.steps.map((s: Json) => s.name));
      expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).toEqual(scenario.steps.map((s: Json) => s.status));
      const locs = await rows.locator('.line .loc').allTextContents();
      expect(locs).toEqual(scenario.steps.map((s: Json) => `${s.source.file}:${s.source.line}:${s.source.col}`));
    }
    // The scenario's own name stayed text: nothing a scenario writes runs in the report.
    await expect.poll(() => report.page.locator('#s0 .sname').textContent()).toBe('<img src=x onerror=window.__xss=1> recorded');
    expect(await report.page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
  });

  it('shows the failure with its message and file:line:col, up front and at the step', async () => {
    const step = failing.steps.find((s: Json) => s.status === 'failed');
    expect(step.error.location).toBe(`${project.path('failing.yaml')}:5:5`);
    const row = report.page.locator(`#s1 > details > .body > ol.steps > li[data-status="failed"]`);
    expect(await row.locator('.error pre').first().textContent()).toContain('expected text "Never" to be visible');
    // The scenario's lines around the step, its own line marked.
    expect(await row.locator('.error pre.source mark').textContent()).toMatch(/^> 5 \| /);
    expect(await row.locator('.error .loc').textContent()).toBe(`at ${step.error.location}`);
    const upFront = await report.page.locator('ol.failures li').allTextContents();
    expect(upFront).toHaveLength(1);
    expect(upFront[0]).toContain('failing with a screenshot › look for what is not there');
    expect(upFront[0]).toContain(step.error.location);
  });

  it('shows request ids, telemetry notes, the earlier attempt, and the screenshot embedded', async () => {
    const ids = await report.page.locator('#s0 > details > .body > ol.steps .reqs code').allTextContents();
    expect(ids).toEqual(recorded.steps.flatMap((s: Json) => s.request_ids));
    expect(await report.page.locator('#s0 > details > .body > table.logs').textContent()).toContain('boom <b>from</b> the page');
    const earlier = report.page.locator('#s0 details.attempt');
    expect(await earlier.count()).toBe(1);
    expect(await earlier.locator('summary').textContent()).toMatch(/^attempt 1: failed in .* at 'greeting': (expected text "Hello" to be visible|step timed out after 800 ms)/);
    const shot = failing.steps.find((s: Json) => s.kind === 'screenshot');
    const img = report.page.locator(`#s1-a${failing.attempt}-${failing.steps.indexOf(shot)} img.shot`);
    expect(await img.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
  });

  it('embeds the replay and seeks it to a step when the step is clicked', async () => {
    const page = report.page;
    const id = 'v0-a2';
    expect((await videoState(page, id)).src).toMatch(/^data:video\/mp4;base64,/);
    await expect.poll(async () => (await videoState(page, id)).ready, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    // Markers from the recording's WebVTT, the `marker` step's among them.
    expect(await page.locator('#s0 > details > .body .markers button').allTextContents()).toContainEqual(expect.stringContaining('halfway'));

    const main = recorded.steps.filter((s: Json) => s.replay_offset_ms !== undefined);
    const greeting = main.find((s: Json) => s.name === 'greeting');
    const press = main.find((s: Json) => s.kind === 'click');
    expect(greeting.replay_offset_ms).toBeGreaterThan(press.replay_offset_ms + 1000);
    for (const step of [greeting, press]) {
      const index = recorded.steps.indexOf(step);
      await page.locator(`#s0-a2-${index} > .line`).click();
      await expect.poll(async () => (await videoState(page, id)).time, { timeout: 5000 }).toBeCloseTo(step.replay_offset_ms / 1000, 1);
    }
    // The step the video is at is highlighted as it plays.
    await expect.poll(() => page.locator(`#s0-a2-${recorded.steps.indexOf(press)}`).getAttribute('class')).toContain('playing');
  });

  it('needs nothing outside the file and breaks no rule of its own policy', async () => {
    expect(report.requests).toEqual([]);
    expect(report.problems).toEqual([]);
  });

  it('links artifacts past the embedding limit, with a note, and they still play beside the report', async () => {
    const linked = join(out, 'report-linked.html');
    await writeFile(linked, await htmlReport(results as never, out, { maxEmbedBytes: 1 }));
    const opened = await open(linked);
    const id = 'v0-a2';
    expect((await videoState(opened.page, id)).src).toBe(recorded.replay.video);
    expect(await opened.page.locator('#s0 > details > .body > .replay .note').textContent()).toMatch(/^not embedded: .* would pass the report's 1 B limit/);
    await expect.poll(async () => (await videoState(opened.page, id)).ready, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    const shot = failing.steps.find((s: Json) => s.kind === 'screenshot');
    const shotLink = opened.page.locator(`#s1-a${failing.attempt}-${failing.steps.indexOf(shot)} .artifacts a`);
    expect(await shotLink.getAttribute('href')).toBe(shot.artifacts[0].path);
    expect(await opened.page.locator('img.shot').count()).toBe(0);
    expect(opened.problems).toEqual([]);
    await opened.page.close();
  });
});
