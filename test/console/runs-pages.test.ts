// The console's pages for runs kept by the service, in real Chromium against the real service: the runs list
// and its filters, a run with its scenarios, steps, failure, screenshot, trace and replay, and a scenario's
// history with its uPlot charts, under the console's content security policy. The runs are reported through
// the HTTP API as `bcs run --report-to` reports them; their times are the client's, so fixed days serve.
// BCS_CONSOLE_SCREENSHOTS=1 also writes docs/console/{runs,run,scenario-history}.png.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findFfmpeg } from '../../src/service/host/recording/ffmpeg.js';
import * as steps from '../helpers/console.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SUITE = 'console-shop';
const COMMIT = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const FAILURE = 'expected the title "Thank you" but it was "Payment declined"';
/** The failing step's marker in the replay: where "play from the failing step" seeks. */
const FAILING_OFFSET_MS = 1500;

let svc: TestService;
let browser: Browser;
let page: Page;
/** What the page said went wrong since the test began: errors, uncaught exceptions, policy violations. */
let problems: string[] = [];
/** Made before the tests are collected: the replay test is skipped without it. */
const video = await webm();
let runs: { failed: string; flaky: string; checkoutFailed: string };

const open = (route: string, heading: string) => steps.open(svc, page, route, heading);


const shot = (name: string, on: Page = page) => steps.shot(on, name);

beforeAll(async () => {
  svc = await startTestService();
  ({ browser, page } = await steps.watchedPage(svc, (p) => problems.push(p)));
  runs = await reportRuns(await screenshotPng());
});

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

beforeEach(() => {
  problems = [];
});

/** A real PNG, as a failing step's screenshot is: Chromium's picture of a small page. */
async function screenshotPng(): Promise<Buffer> {
  const p = await browser.newPage({ viewport: { width: 320, height: 200 } });
  try {
    await p.setContent('<body style="margin:0;background:#fde8e8;font:28px sans-serif"><p>Payment declined</p></body>');
    return await p.screenshot({ type: 'png' });
  } finally {
    await p.close();
  }
}

/** A four-second WebM (VP8 plays in every Chromium build), or undefined without an ffmpeg that makes one. */
async function webm(): Promise<Buffer | undefined> {
  const found = await findFfmpeg();
  if (!found.ffmpeg) return void console.warn(`skipping the replay check: ${found.reason}`);
  const dir = await mkdtemp(join(tmpdir(), 'bcs-runs-video-'));
  try {
    const file = join(dir, 'replay.webm');
    await promisify(execFile)(found.ffmpeg.path, ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=4:size=160x120:rate=10', '-c:v', 'libvpx', '-b:v', '200k', file]);
    return await readFile(file);
  } catch (err) {
    return void console.warn(`skipping the replay check: ffmpeg made no WebM (${(err as Error).message})`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const step = (index: number, name: string, over: Record<string, unknown> = {}) => ({ index, phase: 'main', kind: 'goto', name, status: 'passed', duration_ms: 120, ...over });

async function upload(runId: string, resultId: string, query: Record<string, string>, bytes: Buffer): Promise<void> {
  const res = await fetch(`${svc.baseUrl}/runs/${runId}/results/${resultId}/artifacts?${new URLSearchParams(query)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

/**
 * Two runs on two days, as a runner reports them: on the 10th `checkout` fails at its third step (with a
 * screenshot of that step, a trace and a replay) and `login` passes; on the 11th, on another branch and in a
 * shard, `checkout` passes on its retry (flaky).
 */
async function reportRuns(png: Buffer) {
  const call = (path: string, body: unknown) => steps.created(svc, path, body);
  const first = await call('/runs', { suite: SUITE, branch: 'main', commit: COMMIT, tags: ['nightly'], trigger: 'schedule', started_at: '2026-02-10T09:00:00Z' });
  const replay = video ? { replay: { video: 'checkout/replay.webm', duration_ms: 4000, markers: [{ name: 'open the cart', offset_ms: 200 }, { name: 'pay', offset_ms: FAILING_OFFSET_MS }] } } : {};
  const checkout = await call(`/runs/${first.id}/results`, {
    name: 'checkout',
    file: 'scenarios/checkout.yaml',
    status: 'failed',
    started_at: '2026-02-10T09:00:01Z',
    duration_ms: 2400,
    trace: 'checkout/trace.zip',
    ...replay,
    steps: [
      step(0, 'open the cart', { replay_offset_ms: 200 }),
      step(1, 'fill the card', { kind: 'fill', depth: 1 }),
      step(2, 'pay', {
        kind: 'expect',
        status: 'failed',
        duration_ms: 900,
        replay_offset_ms: FAILING_OFFSET_MS,
        error: { kind: 'assertion', message: FAILURE, location: 'scenarios/checkout.yaml:12:7' },
        artifacts: ['checkout/failure.png'],
      }),
      step(3, 'see the receipt', { status: 'skipped', duration_ms: 0 }),
    ],
  });
  await upload(first.id, checkout.id, { kind: 'screenshot', name: 'checkout/failure.png', step_index: '2' }, png);
  await upload(first.id, checkout.id, { kind: 'trace', name: 'checkout/trace.zip' }, Buffer.from('PK\u0005\u0006'.padEnd(22, '\0')));
  if (video) await upload(first.id, checkout.id, { kind: 'video', name: 'checkout/replay.webm' }, video);
  await call(`/runs/${first.id}/results`, { name: 'login', file: 'scenarios/login.yaml', status: 'passed', started_at: '2026-02-10T09:00:01Z', duration_ms: 800, steps: [step(0, 'sign in')] });
  await call(`/runs/${first.id}/finish`, { status: 'failed', summary: { total: 2, passed: 1, failed: 1, errored: 0, flaky: 0 }, finished_at: '2026-02-10T09:02:00Z' });

  const second = await call('/runs', { suite: SUITE, branch: 'dev', commit: 'feedbeef', trigger: 'ci', shard: { index: 1, total: 2 }, started_at: '2026-02-11T09:00:00Z' });
  await call(`/runs/${second.id}/results`, {
    name: 'checkout',
    file: 'scenarios/checkout.yaml',
    status: 'passed',
    flaky: true,
    attempt: 2,
    started_at: '2026-02-11T09:00:05Z',
    duration_ms: 1600,
    steps: [step(0, 'open the cart'), step(1, 'pay', { kind: 'expect' })],
    previous_attempts: [
      { status: 'failed', attempt: 1, started_at: '2026-02-11T09:00:01Z', duration_ms: 3000, steps: [step(0, 'pay', { status: 'failed', error: { kind: 'timeout', message: 'no answer in time' } })] },
    ],
  });
  await call(`/runs/${second.id}/results`, { name: 'login', file: 'scenarios/login.yaml', status: 'passed', started_at: '2026-02-11T09:00:01Z', duration_ms: 700, steps: [step(0, 'sign in')] });
  await call(`/runs/${second.id}/finish`, { status: 'passed', summary: { total: 2, passed: 1, failed: 0, errored: 0, flaky: 1 }, finished_at: '2026-02-11T09:01:00Z' });
  return { failed: first.id as string, flaky: second.id as string, checkoutFailed: checkout.id as string };
}

/** The ids of the runs listed, once the list has loaded (an empty one says so). */
async function listed(): Promise<string[] | undefined> {
  if (await page.getByText('No runs.').count()) return [];
  const rows = await page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row') ?? ''));
  return rows.length ? rows : undefined;
}

describe('the runs pages', () => {
  it('list runs newest first with what each ran and how it ended, filtered by suite, branch, tag, status and trigger', async () => {
    await open(`runs?suite=${SUITE}`, 'Runs');
    await expect.poll(listed).toEqual([runs.flaky, runs.failed]);
    const failed = await page.locator(`tr[data-row="${runs.failed}"]`).textContent();
    for (const text of ['failed', SUITE, 'main', COMMIT.slice(0, 7), 'schedule', '1 passed', '1 failed', '0 flaky', '2m 00s']) expect(failed).toContain(text);
    expect(failed).not.toContain(COMMIT.slice(0, 8));
    const flaky = await page.locator(`tr[data-row="${runs.flaky}"]`).textContent();
    for (const text of ['passed', 'dev', 'ci', '1/2', '0 failed', '1 flaky']) expect(flaky).toContain(text);
    expect(await page.getByRole('link', { name: 'Runs', exact: true }).getAttribute('class')).toBe('current');
    await shot('runs');

    const filters = page.getByRole('search', { name: 'Filter runs' });
    await filters.getByLabel('Status').selectOption('failed');
    await expect.poll(listed).toEqual([runs.failed]);
    await filters.getByLabel('Status').selectOption('');
    await filters.getByLabel('Trigger').selectOption('ci');
    await expect.poll(listed).toEqual([runs.flaky]);
    await filters.getByLabel('Trigger').selectOption('');
    await filters.getByLabel('Tag').fill('nightly');
    await expect.poll(listed).toEqual([runs.failed]);
    await filters.getByLabel('Tag').fill('');
    await filters.getByLabel('Branch').fill('dev');
    await expect.poll(listed).toEqual([runs.flaky]);
    await filters.getByLabel('Suite').fill('no-such-suite');
    await expect.poll(listed).toEqual([]);

    // The filters are in the address: a run opened from the filtered list comes Back to it filtered.
    await filters.getByLabel('Suite').fill(SUITE);
    await expect.poll(listed).toEqual([runs.flaky]);
    await page.getByRole('link', { name: runs.flaky }).click();
    await page.getByRole('heading', { name: `Run of ${SUITE}` }).waitFor();
    await page.goBack();
    await expect.poll(listed).toEqual([runs.flaky]);
    expect(await filters.getByLabel('Branch').inputValue()).toBe('dev');
    // The nav's plain link is the whole list again.
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await expect.poll(() => filters.getByLabel('Branch').inputValue()).toBe('');
    expect(problems).toEqual([]);
  });

  it('page a list longer than a page, newest first', async () => {
    const suite = 'console-paged';
    for (let hour = 1; hour <= 51; hour++) {
      await steps.created(svc, '/runs', { suite, trigger: 'manual', started_at: new Date(Date.UTC(2026, 0, 1, hour)).toISOString() });
    }
    await open(`runs?suite=${suite}`, 'Runs');
    const pager = page.getByRole('navigation', { name: 'Runs pages' });
    await expect.poll(() => pager.textContent()).toContain('Rows 1–50, more follow');
    expect(await pager.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Older' }).click();
    await expect.poll(() => pager.textContent()).toContain('Rows 51–51');
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody').textContent()).toContain('running');
  });

  it("show a run's header and each scenario as the report does: steps, the failing message, the screenshot, the trace", async () => {
    await open(`runs/${runs.failed}`, `Run of ${SUITE}`);
    const facts = page.locator('dl.run-facts');
    await expect.poll(() => facts.textContent()).toContain('nightly');
    for (const text of ['failed', 'main', COMMIT.slice(0, 7), 'schedule', '2 scenarios', '1 passed', '1 failed']) expect(await facts.textContent()).toContain(text);

    const checkout = page.locator(`section[data-result="${runs.checkoutFailed}"]`);
    // A failed scenario is open, a passing one closed (and loads nothing until opened).
    expect(await checkout.locator('details').first().getAttribute('open')).not.toBeNull();
    const login = page.locator('section.scenario:not(.failed)');
    expect(await login.locator('details').first().getAttribute('open')).toBeNull();
    const stepsShown = checkout.locator('ol.steps > li');
    expect(await stepsShown.evaluateAll((lis) => lis.map((li) => [li.querySelector('.name')?.textContent, li.getAttribute('data-status')]))).toEqual([
      ['open the cart', 'passed'],
      ['fill the card', 'passed'],
      ['pay', 'failed'],
      ['see the receipt', 'skipped'],
    ]);
    const failing = stepsShown.nth(2);
    expect(await failing.locator('.step-error').textContent()).toContain(FAILURE);
    expect(await failing.locator('.step-error').textContent()).toContain('scenarios/checkout.yaml:12:7');
    expect(await stepsShown.nth(1).evaluate((li) => getComputedStyle(li).marginLeft)).toBe('16px');

    // The screenshot is fetched with the key and shown from a blob: URL, and it decodes.
    const img = failing.locator('figure.shot img');
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(320);
    expect(await img.getAttribute('src')).toMatch(/^blob:/);
    await shot('run');

    const download = page.waitForEvent('download');
    await checkout.getByRole('button', { name: 'Download the trace' }).click();
    expect((await download).suggestedFilename()).toBe('trace.zip');

    await login.locator('summary').click();
    await expect.poll(() => login.locator('ol.steps').textContent()).toContain('sign in');

    // The flaky run's retried scenario says so, with its earlier attempt's failure.
    await open(`runs/${runs.flaky}`, `Run of ${SUITE}`);
    const retried = page.locator('section.scenario.flaky');
    await expect.poll(() => retried.locator('summary').first().textContent()).toContain('flaky');
    const earlier = retried.locator('details.attempt');
    expect(await earlier.locator('summary').textContent()).toBe("attempt 1: failed in 3.0 s, at 'pay': no answer in time");
    await earlier.locator('summary').click();
    await expect.poll(() => earlier.locator('.step-error').textContent()).toContain('no answer in time');
    expect(problems).toEqual([]);
  });

  it.skipIf(!video)("play a scenario's replay from its failing step's marker", async () => {
    await open(`runs/${runs.failed}`, `Run of ${SUITE}`);
    const checkout = page.locator(`section[data-result="${runs.checkoutFailed}"]`);
    await checkout.getByRole('button', { name: 'Play the replay from the failing step (1.5 s)' }).click();
    const player = checkout.locator('video');
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeCloseTo(FAILING_OFFSET_MS / 1000, 1);
    await checkout.getByRole('button', { name: /open the cart/ }).click();
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeCloseTo(0.2, 1);
    expect(problems).toEqual([]);
  });

  it("show a scenario's history: rates, durations, the last failure, and two uPlot charts within the policy", async () => {
    await open(`runs/${runs.failed}`, `Run of ${SUITE}`);
    await page.locator(`section[data-result="${runs.checkoutFailed}"]`).getByRole('link', { name: 'History of this scenario' }).click();
    await page.getByRole('heading', { name: 'History of checkout' }).waitFor();
    const fact = (name: string) => page.locator(`dd[data-fact="${name}"]`).textContent();
    await expect.poll(() => fact('pass-rate')).toBe('50.0 %');
    expect(await fact('flaky-rate')).toBe('50.0 %');
    expect(await fact('duration')).toBe('p50 1.6 s, p95 2.4 s');

    const failure = page.locator('section.last-failure');
    expect(await failure.textContent()).toContain('pay');
    expect(await failure.locator('pre.failure-message').textContent()).toBe(FAILURE);
    const failureShot = failure.locator('figure.shot img');
    await expect.poll(() => failureShot.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(320);
    expect(await failure.getByRole('button', { name: 'Download the trace' }).count()).toBe(1);
    if (video) expect(await failure.getByRole('button', { name: 'Play the replay from the failing step (1.5 s)' }).count()).toBe(1);

    // Two charts, each one canvas that uPlot drew on: the results chart has the 10th's failure (red) and the
    // 11th's flaky pass (amber), and no green: neither day passed first time.
    const charts = page.locator('figure.chart');
    await expect.poll(() => charts.locator('.uplot canvas').count()).toBe(2);
    expect(await charts.locator('figcaption').allTextContents()).toEqual(['Duration per day (p50, p95)', 'Results per day']);
    const hasColour = (rgb: number[]) =>
      charts
        .nth(1)
        .locator('canvas')
        .evaluate((c: HTMLCanvasElement, [r, g, b]) => {
          const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          for (let i = 0; i < d.length; i += 4) if (d[i] === r && d[i + 1] === g && d[i + 2] === b) return true;
          return false;
        }, rgb);
    await expect.poll(() => hasColour([0xb3, 0x26, 0x1e])).toBe(true);
    expect(await hasColour([0xd9, 0x9a, 0x00])).toBe(true);
    expect(await hasColour([0x1e, 0x7a, 0x3c])).toBe(false);
    await shot('scenario-history');
    // The charts are as wide as the page gives them, and follow it.
    const width = () => charts.first().locator('.uplot').evaluate((el) => el.getBoundingClientRect().width);
    const wide = await width();
    await page.setViewportSize({ width: 1000, height: 900 });
    await expect.poll(width).toBeLessThan(wide);
    await page.setViewportSize({ width: 1280, height: 900 });

    // On one branch: the flaky day alone.
    await page.getByRole('search', { name: 'Filter the history' }).getByLabel('Branch').fill('dev');
    await expect.poll(() => fact('pass-rate')).toBe('100 %');
    expect(await page.locator('section.last-failure').count()).toBe(0);
    expect(problems).toEqual([]);

    // The watch would have seen one: an inline <style> is refused by the policy, and said.
    await page.evaluate(() => document.head.append(Object.assign(document.createElement('style'), { textContent: 'b { color: red }' })));
    await expect.poll(() => problems.join('\n')).toContain('CSP violation: style-src-elem');
  });

  it("link each result of a history to it in its run, opened", async () => {
    await open(`runs/history?suite=${SUITE}&name=login`, 'History of login');
    await page.getByText('Every result counted (2)').click();
    // The newest first: the second run's login, which passed and so is closed unless asked for.
    await page.locator('details.points tbody tr').first().getByRole('link').click();
    await page.getByRole('heading', { name: `Run of ${SUITE}` }).waitFor();
    expect(page.url()).toContain(`#/runs/${runs.flaky}?result=`);
    const login = page.locator('section.scenario', { hasText: 'login' });
    await expect.poll(() => login.locator('ol.steps').textContent()).toContain('sign in');
    expect(await login.locator('details').first().getAttribute('open')).not.toBeNull();
    expect(problems).toEqual([]);
  });

  it('say what is missing when a history names no scenario, and when a run is not there', async () => {
    await open('runs/history', 'Scenario history');
    expect(await page.getByRole('alert').textContent()).toContain('No scenario named');
    await open('runs/no-such-run', 'Run no-such-run');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not found');
  });
});
