// The floor for bench/vs-playwright.ts: the same trivial flows with playwright-core and no runner at all.
// Each worker is its own process with one browser (as a Playwright Test worker is) and runs its share of the
// flows, each in a fresh context (the isolation bcs and Playwright Test keep): newContext, newPage, goto,
// text visible, click, text visible, close. What bcs or Playwright Test spends above this is the runner's.
//   node bench/vs-playwright/floor.mjs [--workers N]   (BCS_CHROMIUM, BENCH_URL, BENCH_FLOWS from the env)
import { fork } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const argValue = (name) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const flows = Number(process.env.BENCH_FLOWS ?? 20);
const workers = Number(argValue('--workers')) || 1;
const worker = argValue('--worker');

/**
 * With BENCH_FLOOR_TIMES set, each flow's time (newContext to close) and the time from the process start
 * to the first flow go there as JSON lines, for the benchmark's side-by-side breakdown.
 */
const record = (entry) => process.env.BENCH_FLOOR_TIMES && appendFileSync(process.env.BENCH_FLOOR_TIMES, `${JSON.stringify(entry)}\n`);

async function runShare(index) {
  const browser = await chromium.launch({ executablePath: process.env.BCS_CHROMIUM, headless: true });
  record({ startup: performance.now() });
  try {
    // Flows dealt round-robin, so each worker gets its share as a runner's queue would hand them out.
    for (let i = 1 + index; i <= flows; i += workers) {
      const started = performance.now();
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${process.env.BENCH_URL}/index.html`);
      await page.getByText('Welcome').waitFor({ state: 'visible' });
      await page.getByRole('button', { name: 'Go' }).click();
      await page.getByText('Clicked').waitFor({ state: 'visible' });
      await context.close();
      record({ flow: performance.now() - started });
    }
  } finally {
    await browser.close();
  }
}

if (worker !== undefined) await runShare(Number(worker));
else if (workers === 1) await runShare(0);
else {
  const url = new URL(import.meta.url);
  const codes = await Promise.all(
    Array.from({ length: workers }, (_, w) => new Promise((done) => fork(url.pathname, ['--workers', String(workers), '--worker', String(w)]).on('exit', done))),
  );
  if (codes.some((c) => c !== 0)) process.exit(1);
}
