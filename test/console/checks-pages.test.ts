// The console's checks pages in real Chromium against the real service running monitors: two suites deployed
// through the API, whose unpaused checks ran once each as real `bcs run` processes (one passing against a small
// local page, one failing and alerting a local webhook receiver and one that refuses it). The service's clock is
// frozen, so nothing runs again on its schedule: every later run is one the test asked for.
// BCS_CONSOLE_SCREENSHOTS=1 also writes docs/console/{checks,check}.png.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MonitorAlertRecord, MonitorCheckState } from '../../src/api/types.js';
import { zipOf } from '../helpers/app-zip.js';
import { ROOT } from '../helpers/cli.js';
import * as steps from '../helpers/console.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const SHOP = 'console-shop';
const BLOG = 'console-blog';
/** The service's now, for good: a check is due once when deployed and then only when triggered. */
const T0 = Date.parse('2030-01-07T02:00:00Z');
/** How long a real check run may take on a busy machine (a runner process and a browser). */
const RUN_MS = 120_000;

let svc: TestService;
let site: Server;
let siteUrl: string;
let hooks: Server;
let hookUrl: string;
const received: string[] = [];
let browser: Browser;
let page: Page;
/** What the page said went wrong since the test began: errors, uncaught exceptions, policy violations. */
let problems: string[] = [];
let ids: Record<'home' | 'checkout' | 'nightly' | 'feed', string>;

const open = (route: string, heading: string) => steps.open(svc, page, route, heading);


const shot = (name: string, on: Page = page) => steps.shot(on, name);

/** A scenario named unlike its check (a check is its file): it expects the page's title to be `ok`. */
const scenario = (name: string, path: string) => `name: ${name}\nsteps:\n  - goto: "${siteUrl}${path}"\n  - expect: { title: ok, timeout: 500ms }\n`;

async function deploy(manifest: unknown, files: Record<string, string>): Promise<MonitorCheckState[]> {
  const form = new FormData();
  form.append('manifest', JSON.stringify(manifest));
  form.append('file', new Blob([new Uint8Array(await zipOf(files))]), 'suite.zip');
  const res = await fetch(`${svc.baseUrl}/monitors/deployments`, { method: 'POST', headers: { authorization: `Bearer ${svc.apiKey}` }, body: form });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { checks: MonitorCheckState[] }).checks;
}

const checks = async () => (await svc.call('GET', '/monitors/checks?recent=20')).body as MonitorCheckState[];
const check = async (id: string) => (await svc.call('GET', `/monitors/checks/${id}`)).body as MonitorCheckState;
/** The check once it has `n` runs recorded and none running. */
const ranTimes = (id: string, n: number) =>
  eventually(async () => {
    const c = await check(id);
    return c.recent.length >= n && !c.running ? c : undefined;
  }, RUN_MS);
const alertsOf = async (id: string) => (await svc.call('GET', `/monitors/alerts?check_id=${id}`)).body as MonitorAlertRecord[];

beforeAll(async () => {
  site = createServer((req, res) => {
    const title = req.url === '/ok' ? 'ok' : 'broken';
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>${title}</title><h1>${title}</h1>`);
  });
  hooks = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      // One channel's receiver takes alerts, the other's refuses them: a 4xx is not retried.
      if (req.url === '/reject') return void res.writeHead(400).end('no such hook');
      received.push(raw);
      res.end('ok');
    });
  });
  await Promise.all([new Promise<void>((r) => site.listen(0, '127.0.0.1', r)), new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r))]);
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;

  svc = await startTestService({ now: () => new Date(T0), monitorRunner: { packageDir: ROOT }, monitorTickMs: 50 });
  const shop = await deploy(
    {
      suite: SHOP,
      checks: [
        {
          name: 'home',
          file: 'home.yaml',
          group: 'storefront',
          schedule: { every_seconds: 60 },
          timeout_seconds: 120,
          retries: { count: 2, strategy: 'exponential', delay_seconds: 15 },
          tags: ['smoke'],
        },
        { name: 'checkout', file: 'checkout.yaml', group: 'storefront', schedule: { every_seconds: 300 }, alert: { after_failures: 1, remind_every: 3 }, channels: ['hook', 'rejecting'] },
        // Never run here: a failing run's kept browser is a setting to show, not to exercise.
        { name: 'nightly', file: 'home.yaml', schedule: { cron: '0 3 * * *', timezone: 'Europe/Paris' }, keep_on_failure_seconds: 600, paused: true },
      ],
      channels: { hook: { type: 'webhook', url: `${hookUrl}/alerts` }, rejecting: { type: 'webhook', url: `${hookUrl}/reject` } },
    },
    { 'home.yaml': scenario('home page', '/ok'), 'checkout.yaml': scenario('checkout flow', '/checkout') },
  );
  const blog = await deploy({ suite: BLOG, checks: [{ name: 'feed', file: 'feed.yaml', schedule: { every_seconds: 3600 }, paused: true }] }, { 'feed.yaml': scenario('feed', '/ok') });
  const idOf = (name: string) => [...shop, ...blog].find((c) => c.name === name)!.id;
  ids = { home: idOf('home'), checkout: idOf('checkout'), nightly: idOf('nightly'), feed: idOf('feed') };
  await ranTimes(ids.home, 1);
  await ranTimes(ids.checkout, 1);
  // The alert is recorded once its deliveries are done, just after the run.
  await eventually(async () => ((await alertsOf(ids.checkout)).length ? true : undefined), RUN_MS);

  ({ browser, page } = await steps.watchedPage(svc, (p) => problems.push(p)));
}, 3 * RUN_MS);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
  site?.close();
  hooks?.close();
});

beforeEach(() => {
  problems = [];
});

/** The ids of the checks listed, in order, once the list has loaded (an empty one says so). */
async function listed(): Promise<string[] | undefined> {
  if (await page.getByText(/^No checks/).count()) return [];
  const rows = await page.locator('tr[data-row]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row') ?? ''));
  return rows.length ? rows : undefined;
}

const row = (id: string) => page.locator(`tr[data-row="${id}"]`);
const cell = (id: string, column: number) => row(id).locator('td').nth(column);
/** A time as the page shows it (the browser's locale and zone), so nothing here depends on either. */
const shown = (iso: string) => page.evaluate((at) => new Date(at).toLocaleString(), iso);
const markLinks = (id: string) => row(id).locator('a.mark').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.className, a.getAttribute('title')]));

describe('the checks pages', () => {
  it('list every check by suite and group with its status, last and next run, failing streak and latest runs', async () => {
    await open('checks', 'Checks');
    await expect.poll(listed).toEqual([ids.feed, ids.nightly, ids.checkout, ids.home]);
    expect(await page.getByRole('link', { name: 'Checks', exact: true }).getAttribute('class')).toBe('current');
    expect(await page.locator('section.suite-checks h3').allTextContents()).toEqual([BLOG, SHOP]);
    const shop = page.getByRole('region', { name: `suite ${SHOP}` });
    expect(await shop.locator('tbody[data-group="storefront"] tr.group-head').textContent()).toBe('storefront');
    expect(await shop.locator('tbody[data-group="storefront"] tr[data-row]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row')))).toEqual([ids.checkout, ids.home]);

    const home = await check(ids.home);
    expect(await cell(ids.home, 0).textContent()).toBe('passing');
    expect(await cell(ids.home, 0).locator('.status').getAttribute('class')).toBe('status check-passing');
    expect(await cell(ids.home, 1).getByRole('link').getAttribute('href')).toBe(`#/checks/${ids.home}`);
    expect(await cell(ids.home, 2).getByRole('link').textContent()).toBe(await shown(home.last_run_at!));
    expect(await cell(ids.home, 2).getByRole('link').getAttribute('href')).toBe(`#/runs/${home.last_run_id}`);
    expect(await cell(ids.home, 2).textContent()).toMatch(/ in \d/);
    expect(await cell(ids.home, 3).textContent()).toBe(await shown(new Date(T0 + 60_000).toISOString()));
    expect(await cell(ids.home, 4).textContent()).toBe('0');

    const checkout = await check(ids.checkout);
    expect(await cell(ids.checkout, 0).textContent()).toBe('failing');
    expect(await cell(ids.checkout, 4).textContent()).toBe(`1 since ${await shown(checkout.failing_since!)}`);
    // Paused and never run: pending, paused, no next run.
    expect(await cell(ids.nightly, 0).textContent()).toBe('pendingpaused');
    expect(await cell(ids.nightly, 3).textContent()).toBe('paused');
    expect(await cell(ids.nightly, 5).textContent()).toBe('no runs yet');
    expect(await row(ids.nightly).getByRole('button', { name: 'Resume' }).count()).toBe(1);

    // One mark per run, each linking to its run, with what it was in its tooltip.
    const [passed] = home.recent;
    expect(await markLinks(ids.home)).toEqual([[`#/runs/${passed!.run_id}`, 'mark passed', expect.stringContaining('passed, attempt 1\n')]]);
    const [title] = (await markLinks(ids.home)).map(([, , t]) => t!);
    expect(title).toContain(`${await shown(passed!.started_at)}, took `);
    const [failed] = checkout.recent;
    expect(failed!.message).toBeTruthy();
    expect(await markLinks(ids.checkout)).toEqual([[`#/runs/${failed!.run_id}`, 'mark failed', expect.stringContaining(`failed, attempt 1\n`)]]);
    expect((await markLinks(ids.checkout))[0]![2]).toContain(failed!.message);
    await shot('checks');

    await row(ids.home).locator('a.mark').click();
    await page.getByRole('heading', { name: `Run of ${SHOP}` }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/runs/${passed!.run_id}`);
    await expect.poll(() => page.locator('dl.run-facts').textContent()).toContain('check:home');
    expect(problems).toEqual([]);
  });

  it('filter by suite and status, kept in the address', async () => {
    await open('checks', 'Checks');
    await expect.poll(listed).toHaveLength(4);
    const filters = page.getByRole('search', { name: 'Filter checks' });
    await filters.getByLabel('Status').selectOption('failing');
    await expect.poll(listed).toEqual([ids.checkout]);
    await filters.getByLabel('Status').selectOption('pending');
    await expect.poll(listed).toEqual([ids.feed, ids.nightly]);
    await filters.getByLabel('Suite').fill(SHOP);
    await expect.poll(listed).toEqual([ids.nightly]);
    await filters.getByLabel('Status').selectOption('');
    await filters.getByLabel('Suite').fill(BLOG);
    await expect.poll(listed).toEqual([ids.feed]);
    expect(new URL(page.url()).hash).toBe(`#/checks?suite=${BLOG}`);
    await filters.getByLabel('Suite').fill('no-such-suite');
    await expect.poll(listed).toEqual([]);
    expect(await page.getByText('No checks match.').count()).toBe(1);
    // A link to the list filtered opens it so.
    await open('checks?status=passing', 'Checks');
    await expect.poll(listed).toEqual([ids.home]);
    expect(await filters.getByLabel('Status').inputValue()).toBe('passing');
    expect(problems).toEqual([]);
  });

  it('pause, resume and run a check now, saying why the API refuses to run a paused one', async () => {
    await open(`checks?suite=${SHOP}`, 'Checks');
    await expect.poll(listed).toHaveLength(3);
    const home = row(ids.home);
    await home.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => cell(ids.home, 0).textContent()).toBe('passingpaused');
    expect(await cell(ids.home, 3).textContent()).toBe('paused');
    await home.getByRole('button', { name: 'Run now' }).click();
    await expect.poll(() => home.getByRole('alert').textContent()).toBe("check 'home' is paused; resume it first");
    expect((await check(ids.home)).recent).toHaveLength(1);

    await home.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => cell(ids.home, 0).textContent()).toBe('passing');
    expect(await home.getByRole('alert').count()).toBe(0);
    await home.getByRole('button', { name: 'Run now' }).click();
    // The list refreshes itself: the second run shows up as a second mark, the newest on the right.
    await expect.poll(() => home.locator('a.mark').count(), { timeout: RUN_MS }).toBe(2);
    const after = await ranTimes(ids.home, 2);
    expect((await markLinks(ids.home)).map(([href]) => href)).toEqual([`#/runs/${after.recent[1]!.run_id}`, `#/runs/${after.recent[0]!.run_id}`]);
    expect((await svc.call('GET', `/runs/${after.last_run_id}`)).body.trigger).toBe('manual');
    // The refusal was a 409 the browser logs as a failed load; nothing else went wrong.
    expect(problems).toEqual([expect.stringContaining('409')]);
  });

  it("show a check's settings, latest runs, its scenarios' histories and its alerts with each channel's delivery", async () => {
    await open('checks', 'Checks');
    await row(ids.checkout).getByRole('link', { name: 'checkout' }).click();
    await page.getByRole('heading', { name: `Check ${SHOP} / checkout` }).waitFor();
    const fact = (name: string) => page.locator(`dd[data-fact="${name}"]`).textContent();
    await expect.poll(() => fact('schedule')).toBe('every 5 min');
    expect(await fact('timeout')).toBe('5 min');
    expect(await fact('retries')).toBe('none');
    expect(await fact('alert')).toBe('alert after 1 failing run; remind every 3 failing runs; tell when it recovers');
    expect(await fact('channels')).toBe('hookrejecting');
    expect(await fact('keep')).toBe('no');
    expect(await page.locator('dl.check-facts').textContent()).toContain('failing');

    const checkout = await check(ids.checkout);
    const runs = page.locator('section.check-runs tbody tr');
    expect(await runs.count()).toBe(1);
    expect(await runs.first().textContent()).toContain('failed');
    expect(await runs.first().getByRole('link').getAttribute('href')).toBe(`#/runs/${checkout.last_run_id}`);
    await expect.poll(() => page.locator('p.scenario-links a').getAttribute('href')).toBe(`#/runs/history?suite=${SHOP}&name=checkout+flow`);

    // The alert: raised by the failing run, delivered to one channel, refused by the other.
    const [alert] = await alertsOf(ids.checkout);
    const alertRow = page.locator(`section.check-alerts tr[data-row="${alert!.id}"]`);
    await expect.poll(() => alertRow.locator('td').nth(1).textContent()).toBe('failing');
    expect(await alertRow.locator('td').nth(0).textContent()).toBe(await shown(alert!.at));
    expect(await alertRow.locator('td').nth(2).textContent()).toBe('no');
    expect(await alertRow.locator('td').nth(3).getByRole('link').getAttribute('href')).toBe(`#/runs/${checkout.last_run_id}`);
    expect(await alertRow.locator('li[data-channel="hook"]').textContent()).toBe('hook delivered (1 attempt)');
    const refused = await alertRow.locator('li[data-channel="rejecting"]').textContent();
    expect(refused).toMatch(/^rejecting failed \(1 attempt\): .*400/);
    expect(received).toHaveLength(1);
    await shot('check');

    // Every run of the check is tagged with it: the runs list so filtered is its whole history.
    await page.getByRole('link', { name: 'All runs of this check' }).click();
    await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/runs?suite=${SHOP}&tag=check%3Acheckout`);
    await expect.poll(() => page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row')))).toEqual([checkout.last_run_id]);
    expect(problems).toEqual([]);
  });

  it("show the settings a deploy left to defaults, and link a check to its scenario's history by the scenario's name", async () => {
    await open(`checks/${ids.home}`, `Check ${SHOP} / home`);
    const fact = (name: string) => page.locator(`dd[data-fact="${name}"]`).textContent();
    await expect.poll(() => fact('schedule')).toBe('every 1 min');
    expect(await fact('timeout')).toBe('2 min');
    expect(await fact('retries')).toBe('2 after the first, 15 s apart doubling each time, at most 10 min');
    expect(await fact('alert')).toBe('alert on the first failing run; tell when it recovers');
    expect(await fact('channels')).toBe('none: its alerts are only recorded');
    expect(await fact('keep')).toBe('no');
    expect(await fact('tags')).toBe('smoke');
    expect(await page.locator('dl.check-settings').textContent()).toContain('group storefront');
    expect(await page.locator('section.check-alerts').textContent()).toContain('No alerts raised.');
    await page.locator('p.scenario-links').getByRole('link', { name: 'home page' }).click();
    await page.getByRole('heading', { name: 'History of home page' }).waitFor();

    await open(`checks/${ids.nightly}`, `Check ${SHOP} / nightly`);
    await expect.poll(() => fact('schedule')).toBe('cron 0 3 * * * (Europe/Paris)');
    expect(await fact('keep')).toBe("a failing run's browser is kept 10 min");
    expect(await page.locator('section.check-runs').textContent()).toContain('No runs yet.');
    expect(await page.locator('p.scenario-links').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('say when a check is not there', async () => {
    await open('checks/no-such-check', 'Check no-such-check');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not found');
  });
});
