// Benchmark: what a pool release costs the machine. A release with `reuse: true` resets the browser for the
// next holder (a fresh tab, contexts, cookies, storage, cache, permissions and the window size); the baseline
// is the same release with `reuse: false`, which ends the browser and launches a new one. Same service, same
// pool, alternating rounds: all N browsers acquired, then all N released at once, timed until the pool has N
// idle again. CPU is the whole machine's (/proc/stat: Chromium's processes, the service, everything), divided
// by N: a reset's cost wherever it lands. It bounds full acquire/release cycles on any machine: at most
// (cores x 1000 / CPU ms per reset) a second, whatever coordinates the leases.
//   node dist/bench/pool-reset-cost.js [--size 8] [--rounds 8] [--json]
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../src/service/index.js';
import { machine, printReport, ratio } from './report.js';
import { summarize } from './stats.js';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const SIZE = arg('--size', 8);
const ROUNDS = arg('--rounds', 8);
const load_at_start = loadavg().map((l) => Math.round(l * 100) / 100);

/**
 * Busy CPU time of the whole machine so far, in ms (user, nice, system, irq, softirq, steal). The whole
 * machine, not this process tree: a browser ended by a release has its processes reaped outside the tree
 * (its sandbox is killed first), so their time would be lost. Run it on a quiet machine: both sides are
 * measured alike and interleaved, but anything else running is counted in both.
 */
async function machineBusyMs(): Promise<number> {
  const fields = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields as number[];
  // /proc/stat counts in USER_HZ, 100 a second on Linux.
  return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 1000) / 100;
}

const dir = await mkdtemp(join(tmpdir(), 'bcs-bench-reset-'));
const apiKey = 'bench-reset-0123456789abcdef';
const service = await startService({ apiKey, logLevel: 'silent', standby: 0, networkPolicy: 'local', dataDir: dir });
async function call(method: string, path: string, body?: object): Promise<any> {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
const pool = await call('POST', '/browser_pools', { name: 'reset-cost', size: SIZE, fill_rate_per_minute: 100 });
const full = async () => {
  while ((await call('GET', `/browser_pools/${pool.id}`)).available_count !== SIZE) await new Promise((r) => setTimeout(r, 5));
};
await full();
await new Promise((r) => setTimeout(r, 2000)); // the launches' own start-up work is over

const sides = { reset: { cpu: [] as number[], wall: [] as number[] }, relaunch: { cpu: [] as number[], wall: [] as number[] } };
for (let i = 0; i < 2 + ROUNDS * 2; i++) {
  const side = (i % 4 === 0 || i % 4 === 3 ? 'reset' : 'relaunch') as keyof typeof sides;
  const leases = await Promise.all(Array.from({ length: SIZE }, () => call('POST', `/browser_pools/${pool.id}/acquire`, {})));
  await new Promise((r) => setTimeout(r, 500)); // quiet before the measure
  const [cpu0, t0] = [await machineBusyMs(), performance.now()];
  await Promise.all(leases.map((l) => call('POST', `/browser_pools/${pool.id}/release`, { session_id: l.session_id, reuse: side === 'reset' })));
  await full();
  const [wall, cpu] = [performance.now() - t0, (await machineBusyMs()) - cpu0];
  if (i >= 2) sides[side].cpu.push(cpu / SIZE), sides[side].wall.push(wall);
  // A relaunched browser's first seconds are its own start-up: let them pass before the next round.
  await new Promise((r) => setTimeout(r, 1500));
}
const chromium = { path: service.chromium.path, headless_shell: service.headlessShell?.path ?? null, sandboxed: service.sandbox !== null };
await service.close();
await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const s = {
  resetCpu: summarize(sides.reset.cpu), relaunchCpu: summarize(sides.relaunch.cpu),
  resetWall: summarize(sides.reset.wall), relaunchWall: summarize(sides.relaunch.wall),
};
const cores = cpus().length;
const ceiling = Math.round((cores * 1000) / s.resetCpu.p50);
const result = {
  benchmark: 'pool-reset-cost',
  date: new Date().toISOString(),
  machine: { ...machine(), load_at_start },
  chromium,
  pool_size: SIZE,
  rounds: ROUNDS,
  reset_cpu_ms_per_release: s.resetCpu,
  relaunch_cpu_ms_per_release: s.relaunchCpu,
  reset_round_wall_ms: s.resetWall,
  relaunch_round_wall_ms: s.relaunchWall,
  reset_vs_relaunch_cpu_p50: ratio(s.resetCpu.p50, s.relaunchCpu.p50),
  full_cycles_per_second_ceiling: ceiling,
};
printReport(
  result,
  `pool-reset-cost: a pool of ${SIZE}, ${ROUNDS} rounds a side, ${cores} cores, chromium ${chromium.path} (shell ${chromium.headless_shell}), sandboxed ${chromium.sandboxed}, load at start ${load_at_start.join(' ')}`,
  [
    ['CPU per release, reuse: true (reset)', s.resetCpu],
    ['CPU per release, reuse: false (end + launch)', s.relaunchCpu],
    [`${SIZE} releases at once until all idle, reset`, s.resetWall],
    [`${SIZE} releases at once until all idle, end + launch`, s.relaunchWall],
  ],
  `A reset costs ${result.reset_vs_relaunch_cpu_p50}x a relaunch's CPU (p50 ${s.resetCpu.p50} vs ${s.relaunchCpu.p50} ms). ` +
    `Full acquire/release cycles on this machine are capped by resets at ~${ceiling}/s (${cores} cores x 1000 / ${s.resetCpu.p50} ms).`,
);
