// Benchmark: what `bcs run --report-to` costs a run. The same 20-scenario suite (bench/report-to-cost/suite:
// goto a local page, fill, click, expect; every fifth scenario fails its last expectation, so its failure
// screenshot is uploaded) run by a real `bcs run` process without and with `--report-to`
// one real service started here, which keeps every run as a team's would. Same Chromium for both sides (the
// run's embedded service launches it); which side goes first alternates round by round, after one warm-up
// each. Measured: wall time from spawn to exit; the run's tail (from its last scenario's end, as results.json
// has it, to the process's exit), where waiting for uploads would show; and CPU time, which other work on the
// machine moves far less than wall time: the `bcs run` process's own (where the reporter, the embedded service
// and the Playwright client run; Chromium's processes are not in it) and this process's (the service the runs
// are reported to, and the page).
//   node runner/build.mjs && node dist/bench/report-to-cost.js [--rounds 8] [--workers 1] [--json]
// Chromium: BCS_CHROMIUM, else the headless shell beside the system Chromium, else the system's.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serveFolder } from '../runner/exec/static-server.js';
import { findChromium, findHeadlessShell } from '../src/service/host/browser/chromium-path.js';
import { startService } from '../src/service/index.js';
import { machine, printReport, ratio } from './report.js';
import { summarize } from './stats.js';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const ROUNDS = arg('--rounds', 8);
const WORKERS = arg('--workers', 1);
const WARMUP = 1;
const ROOT = resolve('.');
const SUITE = join(ROOT, 'bench/report-to-cost/suite');
const load = () => loadavg().map((l) => Math.round(l * 100) / 100);
const load_at_start = load();

const full = await findChromium(process.env.BCS_CHROMIUM);
const chromium = (await findHeadlessShell(full, process.env.BCS_HEADLESS_SHELL)) ?? full;
const site = await serveFolder(join(ROOT, 'bench/report-to-cost/site'));
const work = await mkdtemp(join(tmpdir(), 'bcs-bench-report-to-'));
// The service runs are reported to: in this process, idle between requests; no browser of its own.
const service = await startService({ dataDir: join(work, 'service'), logLevel: 'silent', standby: 0, networkPolicy: 'local' });
const env: NodeJS.ProcessEnv = { ...process.env, BCS_CHROMIUM: chromium.path, BCS_API_KEY: service.apiKey, BENCH_URL: site.url, NO_COLOR: '1', CI: '1' };
delete env.BCS_BASE_URL;

interface Sample {
  wall_ms: number;
  /** From the run's end as results.json says it to the process's exit. */
  tail_ms: number;
  /** CPU of the `bcs run` process itself (cpu-at-exit.cjs). */
  run_cpu_ms: number;
  /** CPU of this process meanwhile: the service taking the report (and the page, for both sides). */
  service_cpu_ms: number;
  stderr: string;
}

const CPU_AT_EXIT = join(ROOT, 'bench/report-to-cost/cpu-at-exit.cjs');

/** One `bcs run` of the suite; exit 1 is the failing scenarios, anything else stops the benchmark. */
function runSuite(side: 'plain' | 'report', round: number): Promise<Sample> {
  const out = join(work, `out-${side}-${round}`);
  const args = ['runner/bcs.js', 'run', SUITE, '--workers', String(WORKERS), '--reporter', 'json', '--output-dir', out];
  if (side === 'report') args.push('--report-to', service.baseUrl, '--suite', 'report-to-cost');
  const started = performance.now();
  const cpu = process.cpuUsage();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--require', CPU_AT_EXIT, ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-8000)));
    child.on('close', (code) => {
      const wall = performance.now() - started;
      const exited = Date.now();
      const own = process.cpuUsage(cpu);
      if (code !== 1) return fail(new Error(`bcs run (${side}) exited ${code}, expected 1 (the failing scenarios): ${stderr}`));
      void readFile(join(out, 'results.json'), 'utf8').then((text) => {
        const result = JSON.parse(text) as { started_at: string; duration_ms: number; summary: { total: number; failed: number } };
        if (result.summary.total !== 20 || result.summary.failed !== 4) return fail(new Error(`unexpected summary: ${JSON.stringify(result.summary)}`));
        done({
          wall_ms: wall,
          tail_ms: exited - (Date.parse(result.started_at) + result.duration_ms),
          run_cpu_ms: Number(/CPU_AT_EXIT_MS (\d+)/.exec(stderr)?.[1] ?? NaN),
          service_cpu_ms: (own.user + own.system) / 1000,
          stderr,
        });
      }, fail);
    });
  });
}

const samples = { plain: [] as Sample[], report: [] as Sample[] };
for (let i = 0; i < WARMUP + ROUNDS; i++) {
  const order = i % 2 === 0 ? (['plain', 'report'] as const) : (['report', 'plain'] as const);
  for (const side of order) {
    const s = await runSuite(side, i);
    if (side === 'report' && !/--report-to: run \w+ stored: 20 results, [1-9]\d* artifacts/.test(s.stderr)) {
      throw new Error(`the run was not stored whole: ${s.stderr.split('\n').filter((l) => l.includes('--report-to')).join(' | ')}`);
    }
    if (i >= WARMUP) samples[side].push(s);
  }
  const last = (side: 'plain' | 'report') => Math.round(samples[side].at(-1)!.wall_ms);
  if (i >= WARMUP && !process.argv.includes('--json')) process.stderr.write(`round ${i + 1 - WARMUP}/${ROUNDS}: without ${last('plain')} ms, with --report-to ${last('report')} ms\n`);
}
const stored = (await fetch(`${service.baseUrl}/runs?suite=report-to-cost&limit=100`, { headers: { authorization: `Bearer ${service.apiKey}` } }).then((r) => r.json())) as { status: string }[];
await service.close();
await site.close();
await rm(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const wall = { plain: summarize(samples.plain.map((s) => s.wall_ms)), report: summarize(samples.report.map((s) => s.wall_ms)) };
const tail = { plain: summarize(samples.plain.map((s) => s.tail_ms)), report: summarize(samples.report.map((s) => s.tail_ms)) };
const cpu = { plain: summarize(samples.plain.map((s) => s.run_cpu_ms)), report: summarize(samples.report.map((s) => s.run_cpu_ms)) };
const serviceCpu = summarize(samples.report.map((s) => s.service_cpu_ms));
const result = {
  benchmark: 'report-to-cost',
  date: new Date().toISOString(),
  machine: { ...machine(), load_at_start, load_at_end: load() },
  chromium: chromium.path,
  rounds: ROUNDS,
  workers: WORKERS,
  runs_stored: stored.length,
  wall_without_ms: wall.plain,
  wall_with_ms: wall.report,
  tail_without_ms: tail.plain,
  tail_with_ms: tail.report,
  run_cpu_without_ms: cpu.plain,
  run_cpu_with_ms: cpu.report,
  service_cpu_with_ms: serviceCpu,
  cpu_ratio_p50: ratio(cpu.report.p50, cpu.plain.p50),
  ratio_p50: ratio(wall.report.p50, wall.plain.p50),
  ratio_p99: ratio(wall.report.p99, wall.plain.p99),
};
const pct = (r: number) => `${r >= 1 ? '+' : ''}${Math.round((r - 1) * 1000) / 10}%`;
printReport(
  result,
  `report-to-cost: 20 scenarios (4 failing, their failure screenshots uploaded), bcs run with and without --report-to one service, workers ${WORKERS}, ${ROUNDS} interleaved rounds after ${WARMUP} warm-up; Chromium ${chromium.path}; load ${load_at_start.join(' ')} at the start, ${result.machine.load_at_end.join(' ')} at the end`,
  [
    ['bcs run (baseline), wall', wall.plain],
    ['bcs run --report-to, wall', wall.report],
    ['tail without: last scenario end -> exit', tail.plain],
    ['tail with: last scenario end -> exit', tail.report],
    ['CPU without: the bcs run process', cpu.plain],
    ['CPU with: the bcs run process', cpu.report],
    ['CPU with: the service taking the report', serviceCpu],
  ],
  `with/without wall: p50 ${result.ratio_p50}x (${pct(wall.report.p50 / wall.plain.p50)}), p99 ${result.ratio_p99}x; bcs run's CPU p50 ${result.cpu_ratio_p50}x (${pct(cpu.report.p50 / cpu.plain.p50)}); ${stored.length} runs stored (goal: wall <= 1.05x).`,
);
