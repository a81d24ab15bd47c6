// Benchmark: a plain headless session on the headless shell (the default where chromium-headless-shell is
// installed beside the system Chromium) against the same session on the full Chromium (--headless-shell
// off), two services side by side, runs interleaved. Each run: POST /browsers, Playwright connects, two
// fresh contexts each open a page, set content and click (what a scenario in a shared session costs),
// DELETE.
//   node runner/build.mjs && node dist/bench/headless-shell.js [--runs 20] [--json]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startService, type RunningService } from '../src/service/index.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { summarize } from './stats.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 20;
const WARMUP = 2;

const dirs = [await mkdtemp(join(tmpdir(), 'bcs-bench-shell-')), await mkdtemp(join(tmpdir(), 'bcs-bench-full-'))];
const shell = await startService({ dataDir: dirs[0]!, logLevel: 'silent', networkPolicy: 'local', standby: 0 });
const full = await startService({ dataDir: dirs[1]!, logLevel: 'silent', networkPolicy: 'local', standby: 0, headlessShell: 'off' });
if (!shell.headlessShell) {
  process.stderr.write('headless-shell: no chromium-headless-shell beside the system Chromium here (apt-get install chromium-headless-shell)\n');
  await Promise.all([shell.close(), full.close()]);
  process.exit(2);
}

interface Sample {
  create: number;
  context: number;
  cycle: number;
}

async function cycle(service: RunningService): Promise<Sample> {
  const headers = { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' };
  const started = performance.now();
  const res = await fetch(`${service.baseUrl}/browsers`, { method: 'POST', headers, body: '{"headless":true}' });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  const { session_id, cdp_ws_url } = (await res.json()) as { session_id: string; cdp_ws_url: string };
  const create = performance.now() - started;
  const browser: Browser = await chromium.connectOverCDP(cdp_ws_url);
  const contexts: number[] = [];
  for (let i = 0; i < 2; i++) {
    contexts.push(
      await timeIt(async () => {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.setContent('<button onclick="this.textContent=\'done\'">go</button>');
        await page.click('button');
        await context.close();
      }),
    );
  }
  await browser.close();
  const del = await fetch(`${service.baseUrl}/browsers/${session_id}`, { method: 'DELETE', headers });
  if (del.status !== 204) throw new Error(`delete failed: ${del.status}`);
  return { create, context: contexts[1]!, cycle: performance.now() - started };
}

const samples = { shell: [] as Sample[], full: [] as Sample[] };
for (let i = 0; i < WARMUP + runs; i++) {
  // Which goes first alternates, so drift and a warm cache favour neither.
  const order = i % 2 === 0 ? (['shell', 'full'] as const) : (['full', 'shell'] as const);
  for (const which of order) {
    const sample = await cycle(which === 'shell' ? shell : full);
    if (i >= WARMUP) samples[which].push(sample);
  }
}
await Promise.all([shell.close(), full.close()]);
await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));

const of = (which: 'shell' | 'full', key: keyof Sample) => summarize(samples[which].map((s) => s[key]));
const result = {
  benchmark: 'headless-shell',
  date: new Date().toISOString(),
  machine: machine(),
  shell: shell.headlessShell.path,
  full: full.chromium.path,
  runs,
  shell_create_ms: of('shell', 'create'),
  full_create_ms: of('full', 'create'),
  shell_context_ms: of('shell', 'context'),
  full_context_ms: of('full', 'context'),
  shell_cycle_ms: of('shell', 'cycle'),
  full_cycle_ms: of('full', 'cycle'),
  ratio_create_p50: ratio(of('shell', 'create').p50, of('full', 'create').p50),
  ratio_context_p50: ratio(of('shell', 'context').p50, of('full', 'context').p50),
  ratio_cycle_p50: ratio(of('shell', 'cycle').p50, of('full', 'cycle').p50),
  ratio_cycle_p99: ratio(of('shell', 'cycle').p99, of('full', 'cycle').p99),
};

printReport(
  result,
  `headless-shell: ${runs} interleaved runs, ${result.shell} against ${result.full}`,
  [
    ['shell: POST /browsers', result.shell_create_ms],
    ['full: POST /browsers', result.full_create_ms],
    ['shell: a context, its page, content, click', result.shell_context_ms],
    ['full: a context, its page, content, click', result.full_context_ms],
    ['shell: create to DELETE, two contexts', result.shell_cycle_ms],
    ['full: create to DELETE, two contexts', result.full_cycle_ms],
  ],
  `shell / full: create p50 ${result.ratio_create_p50}x, context p50 ${result.ratio_context_p50}x, cycle p50 ${result.ratio_cycle_p50}x (p99 ${result.ratio_cycle_p99}x)`,
);
