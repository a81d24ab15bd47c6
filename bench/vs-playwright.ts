// Benchmark: a suite's wall time with `bcs run` against `npx playwright test`, same flows, same Chromium,
// same machine, runs interleaved (which goes first alternates). Three suites:
//  - trivial: N flows (goto, expect text, click, expect text) on one static page, at each --workers;
//  - shop: the example shop suite (scenarios/shop) against its Playwright twin (bench/playwright-shop);
//  - todomvc: Playwright's TodoMVC flows, as YAML (bench/todomvc/scenarios) and as Playwright Test specs;
//  - cold: one trivial flow, end to end (process start to exit).
// bcs's own results.json also gives a per-scenario breakdown: waiting for the browser, steps, giving it
// back, and the runner's bookkeeping between and around them.
//   node dist/bench/vs-playwright.js [--runs 5] [--flows 20] [--workers 1,2] [--suites trivial,shop,todomvc,cold] [--json]
// Chromium: BCS_CHROMIUM, else what the service would run these headless flows on: the headless shell beside
// the system Chromium (which Playwright Test also runs headless tests on), else the system's, else the packaged
// headless shell.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findChromium, findHeadlessShell } from '../src/service/host/browser/chromium-path.js';
import { serveFolder } from '../runner/exec/static-server.js';
import { machine, ratio } from './report.js';
import { summarize, type Summary } from './stats.js';

const argValue = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const runs = Number(argValue('--runs')) || 5;
const flows = Number(argValue('--flows')) || 20;
const workerCounts = (argValue('--workers') ?? '1,2').split(',').map(Number);
const suites = (argValue('--suites') ?? 'trivial,shop,todomvc,cold').split(',');
const json = process.argv.includes('--json');
const ROOT = resolve('.');

const full = await findChromium(process.env.BCS_CHROMIUM);
const chromium = (await findHeadlessShell(full, process.env.BCS_HEADLESS_SHELL)) ?? full;
const site = await serveFolder(join(ROOT, 'bench/vs-playwright/site'));
const work = await mkdtemp(join(tmpdir(), 'bcs-vs-pw-'));
const flowDir = join(work, 'flows');
await mkdir(flowDir);
for (let i = 1; i <= flows; i++) {
  await writeFile(
    join(flowDir, `flow-${String(i).padStart(2, '0')}.yaml`),
    `name: flow ${i}\nsteps:\n  - goto: "{{ env.BENCH_URL }}/index.html"\n  - expect: { text: Welcome }\n  - click: { role: button, name: Go }\n  - expect: { text: Clicked }\n`,
  );
}
const env = { ...process.env, BCS_CHROMIUM: chromium.path, BENCH_URL: site.url, BENCH_FLOWS: String(flows), BENCH_PW_OUTPUT: join(work, 'pw-results'), NO_COLOR: '1', CI: '1' };

/** Wall time of one command, from spawn to exit; a failing run stops the benchmark (its times would mean nothing). */
function timed(cmd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    child.on('close', (code) => (code === 0 ? done(performance.now() - started) : fail(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

const bcsOut = join(work, 'bcs-results');
const bcs = (paths: string[], workers: number) => timed(process.execPath, ['runner/bcs.js', 'run', ...paths, '--workers', String(workers), '--reporter', 'json', '--output-dir', bcsOut]);
const floorTimes = join(work, 'floor-times.jsonl');
const floor = (workers: number, count = flows) => timed(process.execPath, ['bench/vs-playwright/floor.mjs', '--workers', String(workers)], { BENCH_FLOWS: String(count), BENCH_FLOOR_TIMES: floorTimes });
const playwright = (config: string, workers: number, extra: string[] = []) => timed('npx', ['playwright', 'test', '-c', config, '--workers', String(workers), ...extra]);

interface Case {
  name: string;
  bcs: () => Promise<number>;
  playwright: () => Promise<number>;
  /** The same flows with playwright-core alone (bench/vs-playwright/floor.mjs), where the suite has one. */
  floor?: () => Promise<number>;
  /** Read bcs's results.json after each bcs run for the per-scenario breakdown. */
  breakdown?: boolean;
}

const cases: Case[] = [];
for (const w of workerCounts) {
  if (suites.includes('trivial')) {
    cases.push({ name: `${flows} trivial flows, workers ${w}`, bcs: () => bcs([flowDir], w), playwright: () => playwright('bench/vs-playwright/playwright', w), floor: () => floor(w), breakdown: true });
  }
  if (suites.includes('shop')) {
    cases.push({ name: `shop suite, workers ${w}`, bcs: () => bcs(['scenarios/shop'], w), playwright: () => playwright('bench/playwright-shop', w) });
  }
  if (suites.includes('todomvc')) {
    cases.push({ name: `TodoMVC suite, workers ${w}`, bcs: () => bcs(['bench/todomvc/scenarios'], w), playwright: () => playwright('bench/todomvc/playwright', w) });
  }
}
if (suites.includes('cold')) {
  cases.push({
    name: 'cold start: one trivial flow',
    bcs: () => bcs([join(flowDir, 'flow-01.yaml')], 1),
    playwright: () => playwright('bench/vs-playwright/playwright', 1, ['--grep', 'flow 1$']),
    floor: () => floor(1, 1),
  });
}

interface Breakdown {
  startup: number[];
  browser_wait: number[];
  steps: number[];
  release: number[];
  bookkeeping: number[];
}
const breakdowns = new Map<string, Breakdown>();
/** The floor's own: process start to its first flow (per worker), and each flow's time. */
const floorParts = new Map<string, { startup: number[]; flow: number[] }>();

async function recordFloor(name: string): Promise<void> {
  const lines = (await readFile(floorTimes, 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { startup?: number; flow?: number });
  await rm(floorTimes, { force: true });
  const parts = floorParts.get(name) ?? { startup: [], flow: [] };
  floorParts.set(name, parts);
  for (const l of lines) {
    if (l.startup !== undefined) parts.startup.push(l.startup);
    if (l.flow !== undefined) parts.flow.push(l.flow);
  }
}

/** Splits a bcs run (its results.json) into where the time went. */
async function recordBreakdown(name: string, wallStart: number): Promise<void> {
  const result = JSON.parse(await readFile(join(bcsOut, 'results.json'), 'utf8')) as {
    scenarios: { started_at: string; duration_ms: number; steps: { phase: string; kind: string; duration_ms: number }[] }[];
  };
  const b = breakdowns.get(name) ?? { startup: [], browser_wait: [], steps: [], release: [], bookkeeping: [] };
  breakdowns.set(name, b);
  const first = Math.min(...result.scenarios.map((s) => Date.parse(s.started_at)));
  b.startup.push(first - wallStart);
  for (const s of result.scenarios) {
    const sum = (pick: (step: { phase: string; kind: string }) => boolean) => s.steps.filter(pick).reduce((t, step) => t + step.duration_ms, 0);
    const wait = sum((st) => st.kind === 'browser');
    const main = sum((st) => st.phase === 'main');
    const release = sum((st) => st.phase === 'teardown');
    b.browser_wait.push(wait);
    b.steps.push(main);
    b.release.push(release);
    b.bookkeeping.push(s.duration_ms - sum(() => true));
  }
}

const WARMUP = 1;
type Tool = 'bcs' | 'playwright' | 'floor';
const samples = new Map<string, Record<Tool, number[]>>();
for (let i = 0; i < WARMUP + runs; i++) {
  for (const c of cases) {
    // Which tool goes first rotates run by run, so none always runs on a warmer (or busier) machine.
    const tools: Tool[] = c.floor ? ['bcs', 'playwright', 'floor'] : ['bcs', 'playwright'];
    const order = tools.map((_, k) => tools[(k + i) % tools.length]!);
    const entry = samples.get(c.name) ?? { bcs: [], playwright: [], floor: [] };
    samples.set(c.name, entry);
    for (const tool of order) {
      const wallStart = Date.now();
      const ms = await c[tool]!();
      if (i < WARMUP) continue;
      entry[tool].push(ms);
      if (tool === 'bcs' && c.breakdown) await recordBreakdown(c.name, wallStart);
      if (tool === 'floor') await recordFloor(c.name);
    }
    if (!json) process.stderr.write(`run ${i + 1 - WARMUP}/${runs} ${c.name}: bcs ${Math.round(entry.bcs.at(-1) ?? 0)} ms, playwright ${Math.round(entry.playwright.at(-1) ?? 0)} ms${entry.floor.length ? `, floor ${Math.round(entry.floor.at(-1)!)} ms` : ''}\n`);
  }
}
await site.close();
await rm(work, { recursive: true, force: true });

const rows = [...samples].map(([name, s]) => {
  const b = summarize(s.bcs);
  const p = summarize(s.playwright);
  const f = s.floor.length ? summarize(s.floor) : undefined;
  return {
    name, bcs: b, playwright: p, floor: f, ratio_p50: ratio(b.p50, p.p50), ratio_p99: ratio(b.p99, p.p99),
    floor_ratio_p50: f ? ratio(b.p50, f.p50) : undefined, floor_ratio_p99: f ? ratio(b.p99, f.p99) : undefined,
    playwright_floor_ratio_p50: f ? ratio(p.p50, f.p50) : undefined,
  };
});
const perScenario = Object.fromEntries([...breakdowns].map(([name, b]) => [name, Object.fromEntries(Object.entries(b).map(([k, v]) => [k, summarize(v)]))]));
const floorPerFlow = Object.fromEntries([...floorParts].map(([name, f]) => [name, { startup: summarize(f.startup), flow: summarize(f.flow) }]));
const result = { machine: machine(), chromium: chromium.path, runs, flows, rows, per_scenario: perScenario, floor: floorPerFlow };

if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  const fmt = (s: Summary) => `${s.p50} | ${s.p99}`;
  const lines = [
    `vs-playwright: wall time (ms) of bcs run against npx playwright test, ${runs} interleaved runs after ${WARMUP} warm-up, Chromium ${chromium.path}`,
    '',
    '| suite | bcs p50 | bcs p99 | Playwright p50 | Playwright p99 | ratio p50 | ratio p99 | floor p50 | floor p99 | bcs/floor p50 | bcs/floor p99 | Playwright/floor p50 |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.name} | ${fmt(r.bcs)} | ${fmt(r.playwright)} | **${r.ratio_p50}x** | ${r.ratio_p99}x | ${r.floor ? fmt(r.floor) : '- | -'} | ${r.floor_ratio_p50 ?? '-'}x | ${r.floor_ratio_p99 ?? '-'}x | ${r.playwright_floor_ratio_p50 ?? '-'}x |`),
    '',
  ];
  for (const [name, parts] of Object.entries(perScenario)) {
    lines.push(`bcs per scenario, ${name} (ms; startup is process start to the first scenario, once per run):`, '', '| part | p50 | p90 | p99 | max |', '|---|---|---|---|---|');
    for (const [part, s] of Object.entries(parts)) lines.push(`| ${part.replace('_', ' ')} | ${s.p50} | ${s.p90} | ${s.p99} | ${s.max} |`);
    const f = floorPerFlow[name];
    if (f) {
      lines.push(`| floor: startup (to its first flow, per worker) | ${f.startup.p50} | ${f.startup.p90} | ${f.startup.p99} | ${f.startup.max} |`);
      lines.push(`| floor: a flow (newContext to close) | ${f.flow.p50} | ${f.flow.p90} | ${f.flow.p99} | ${f.flow.max} |`);
    }
    lines.push('');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
