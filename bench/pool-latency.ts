// Benchmark: what a warm browser saves. (1) POST /browser_pools/{id}/acquire from a full pool, against a
// plain read of the same pool (GET /browser_pools/{id}: the HTTP, auth and SQLite floor), and the release
// with reuse that follows (the reset). (2) POST /browsers with default options handed off from the
// standby, against the same create launched cold (a second service with the standby off). Runs are
// interleaved so drift hits both sides alike; refills are waited for outside the timed part.
//   node dist/bench/pool-latency.js [--runs 30] [--acquires 200] [--json]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../src/service/index.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { summarize } from './stats.js';
import { call, until } from './service-calls.js';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const runs = arg('--runs', 30);
const acquires = arg('--acquires', 200);
const WARMUP = 3;
const POOL_SIZE = 4;

const dataDirs = [await mkdtemp(join(tmpdir(), 'bcs-bench-')), await mkdtemp(join(tmpdir(), 'bcs-bench-'))];
const warm = await startService({ dataDir: dataDirs[0]!, logLevel: 'silent', networkPolicy: 'local', standby: 1 });
const cold = await startService({ dataDir: dataDirs[1]!, logLevel: 'silent', networkPolicy: 'local', standby: 0 });

// (1) acquire / release on a full pool.
const pool = await call(warm, 'POST', '/browser_pools', { name: 'bench', size: POOL_SIZE });
await until(async () => (await call(warm, 'GET', '/browser_pools/bench')).available_count === POOL_SIZE);
const read: number[] = [];
const acquire: number[] = [];
const release: number[] = [];
for (let i = 0; i < WARMUP + acquires; i++) {
  const r = await timeIt(() => call(warm, 'GET', `/browser_pools/${pool.id}`));
  let session: { session_id: string } | undefined;
  const a = await timeIt(async () => (session = await call(warm, 'POST', `/browser_pools/${pool.id}/acquire`, {})));
  const rel = await timeIt(() => call(warm, 'POST', `/browser_pools/${pool.id}/release`, { session_id: session!.session_id }));
  if (i < WARMUP) continue;
  read.push(r);
  acquire.push(a);
  release.push(rel);
}
await call(warm, 'DELETE', `/browser_pools/${pool.id}`);

// (2) create with the standby against a cold create, interleaved.
const handoff: number[] = [];
const launch: number[] = [];
for (let i = 0; i < WARMUP + runs; i++) {
  await until(() => warm.standby.available === 1);
  // The last iteration's browsers are still being removed (files, processes): let that settle first.
  await new Promise((r) => setTimeout(r, 50));
  let a: { session_id: string } | undefined;
  let b: { session_id: string } | undefined;
  const h = await timeIt(async () => (a = await call(warm, 'POST', '/browsers', {})));
  const c = await timeIt(async () => (b = await call(cold, 'POST', '/browsers', {})));
  await call(warm, 'DELETE', `/browsers/${a!.session_id}`);
  await call(cold, 'DELETE', `/browsers/${b!.session_id}`);
  if (i < WARMUP) continue;
  handoff.push(h);
  launch.push(c);
}
const handoffs = warm.standby.handoffs;
await Promise.all([warm.close(), cold.close()]);
await Promise.all(dataDirs.map((d) => rm(d, { recursive: true, force: true })));
if (handoffs !== WARMUP + runs) throw new Error(`expected every warm create to be a handoff, got ${handoffs} of ${WARMUP + runs}`);

const result = {
  benchmark: 'pool-latency',
  date: new Date().toISOString(),
  machine: machine(),
  chromium: { path: warm.chromium.path, source: warm.chromium.source },
  sandboxed: warm.sandbox !== null,
  acquires,
  runs,
  pool_read_ms: summarize(read),
  pool_acquire_ms: summarize(acquire),
  pool_release_reuse_ms: summarize(release),
  create_standby_ms: summarize(handoff),
  create_cold_ms: summarize(launch),
  ratio_acquire_vs_read_p50: ratio(summarize(acquire).p50, summarize(read).p50),
  speedup_cold_over_standby_p50: ratio(summarize(launch).p50, summarize(handoff).p50),
  speedup_cold_over_standby_p99: ratio(summarize(launch).p99, summarize(handoff).p99),
};

printReport(
  result,
  `pool-latency: ${acquires} acquires from a pool of ${POOL_SIZE}, ${runs} interleaved creates; chromium ${result.chromium.source} (${result.chromium.path}), sandboxed ${result.sandboxed}`,
  [
    ['GET /browser_pools/{id} (baseline)', result.pool_read_ms],
    ['POST /browser_pools/{id}/acquire', result.pool_acquire_ms],
    ['POST /browser_pools/{id}/release (reuse: reset)', result.pool_release_reuse_ms],
    ['POST /browsers, standby handoff', result.create_standby_ms],
    ['POST /browsers, cold launch', result.create_cold_ms],
  ],
  `acquire p50 ${result.pool_acquire_ms.p50} ms (${result.ratio_acquire_vs_read_p50}x a read); create with standby p50 ${result.create_standby_ms.p50} ms / p99 ${result.create_standby_ms.p99} ms, ` +
    `a cold create takes ${result.speedup_cold_over_standby_p50}x as long at p50, ${result.speedup_cold_over_standby_p99}x at p99`,
);
