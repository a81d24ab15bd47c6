// Benchmark: what the scenario runner costs over the same work written by hand. The quickstart scenario
// (serve a folder, create a browser, goto, fill, click, expectations, a screenshot, delete) is compiled
// and executed by the runner, interleaved with a hand-written script doing the same calls with the API
// client and Playwright directly, both against one embedded service. Compile time is measured apart.
//   node dist/bench/runner-overhead.js [--runs 30] [--json]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { CloudClient } from '../src/api/client.js';
import { loadScenario } from '../src/scenario/index.js';
import { startService } from '../src/service/index.js';
import { executePlan } from '../runner/exec/execute.js';
import { combine } from '../runner/reporters/reporter.js';
import { serveFolder } from '../runner/exec/static-server.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { summarize } from './stats.js';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const runs = arg('--runs', 30);
const WARMUP = 3;
const QUICKSTART = resolve('scenarios/quickstart.yaml');
const SITE = resolve('scenarios/site');

const dataDir = await mkdtemp(join(tmpdir(), 'bcs-bench-'));
const outputDir = await mkdtemp(join(tmpdir(), 'bcs-bench-out-'));
const service = await startService({ dataDir, logLevel: 'silent', networkPolicy: 'local', standby: 0 });
const client = new CloudClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
const never = new AbortController().signal;

async function viaRunner(): Promise<void> {
  const { plan, functions } = await loadScenario(QUICKSTART, { env: {} });
  const result = await executePlan(plan, { client, outputDir, reporter: combine([]), signal: never, functions });
  if (result.status !== 'passed') throw new Error(`the scenario ${result.status}: ${JSON.stringify(result.steps.find((s) => s.error)?.error)}`);
}

/** The quickstart's steps, written directly against the API and Playwright. */
async function byHand(): Promise<void> {
  const server = await serveFolder(SITE);
  const { data: session } = await client.request<{ session_id: string; cdp_ws_url: string }>('POST', '/browsers', {
    body: { headless: true, viewport: { width: 1280, height: 800 } },
  });
  try {
    const browser = await chromium.connectOverCDP(session.cdp_ws_url);
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(`${server.url}/index.html`);
    if ((await page.title()) !== 'Quickstart') throw new Error('title');
    await page.getByLabel('Your name').fill('Ada');
    await page.getByRole('button', { name: 'Greet' }).click();
    await page.getByText('Hello, Ada!').waitFor();
    await page.getByLabel('Your name').fill('Grace');
    await page.getByLabel('Your name').press('Enter');
    await page.getByText('Hello, Grace!').waitFor();
    await writeFile(join(outputDir, 'by-hand.png'), await page.screenshot());
    await page.locator('#about').click();
    await page.waitForURL(/about\.html/);
    await page.getByRole('heading', { name: 'About this site' }).waitFor();
    await page.waitForTimeout(100);
    await browser.close();
  } finally {
    await client.request('DELETE', `/browsers/${session.session_id}`);
    await server.close();
  }
}

const runner: number[] = [];
const hand: number[] = [];
const compile: number[] = [];
for (let i = 0; i < WARMUP + runs; i++) {
  // Alternating which goes first keeps drift and cache effects from favouring one side.
  const order = i % 2 === 0 ? [viaRunner, byHand] : [byHand, viaRunner];
  const times = new Map<() => Promise<void>, number>();
  for (const work of order) times.set(work, await timeIt(work));
  const c = await timeIt(() => loadScenario(QUICKSTART, { env: {} }));
  if (i < WARMUP) continue;
  runner.push(times.get(viaRunner)!);
  hand.push(times.get(byHand)!);
  compile.push(c);
}

await service.close();
await rm(dataDir, { recursive: true, force: true });
await rm(outputDir, { recursive: true, force: true });

const r = summarize(runner);
const h = summarize(hand);
const result = {
  machine: machine(),
  runs,
  chromium: service.chromium.path,
  runner: r,
  by_hand: h,
  compile: summarize(compile),
  ratio_p50: ratio(r.p50, h.p50),
  ratio_p99: ratio(r.p99, h.p99),
};
printReport(
  result,
  `runner-overhead: the quickstart scenario through the runner vs the same calls by hand (${runs} interleaved runs)`,
  [
    ['by hand: API client + Playwright (baseline)', h],
    ['bcs: compile + execute the plan', r],
    ['compile only (YAML -> plan)', result.compile],
  ],
  `runner/by-hand: p50 ${result.ratio_p50}x, p99 ${result.ratio_p99}x`,
);
