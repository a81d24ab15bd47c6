// Benchmark: the service's POST /browsers (and the full create -> DELETE cycle) against a raw launch of the
// same Chromium with the same flags, spawn to DevTools URL. Runs are interleaved so drift hits both alike.
//   npm run bench -- [--runs 30] [--json]
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumArgs } from '../src/service/host/browser/chromium.js';
import { startService } from '../src/service/index.js';
import { machine, printReport, ratio } from './report.js';
import { summarize } from './stats.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30;
const WARMUP = 3;
const VIEWPORT = { width: 1920, height: 1080 };

const dataDir = await mkdtemp(join(tmpdir(), 'bcs-bench-'));
// Cold creates are what this measures; the standby's handoffs are measured by pool-latency.ts.
const service = await startService({ dataDir, logLevel: 'silent', networkPolicy: 'local', standby: 0 });
const headers = { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' };

/** Spawn to "DevTools listening", then kill and wait for exit: what any launcher must at least pay. */
async function rawLaunch(): Promise<{ ready: number; cycle: number }> {
  const userDataDir = await mkdtemp(join(dataDir, 'raw-'));
  const started = performance.now();
  const child = spawn(service.chromium.path, chromiumArgs(service.chromium, { userDataDir, headless: true, viewport: VIEWPORT }), {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let ready = 0;
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (d) => {
      text += d;
      if (!ready && text.includes('DevTools listening on ws://')) {
        ready = performance.now() - started;
        resolve();
      }
    });
    child.once('exit', () => reject(new Error('chromium exited early')));
  });
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
  const cycle = performance.now() - started;
  await rm(userDataDir, { recursive: true, force: true });
  return { ready, cycle };
}

async function serviceCycle(): Promise<{ create: number; cycle: number }> {
  const started = performance.now();
  const res = await fetch(`${service.baseUrl}/browsers`, { method: 'POST', headers, body: '{"headless":true}' });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  const { session_id } = (await res.json()) as { session_id: string };
  const create = performance.now() - started;
  const del = await fetch(`${service.baseUrl}/browsers/${session_id}`, { method: 'DELETE', headers });
  if (del.status !== 204) throw new Error(`delete failed: ${del.status}`);
  return { create, cycle: performance.now() - started };
}

const raw = { ready: [] as number[], cycle: [] as number[] };
const svc = { create: [] as number[], cycle: [] as number[] };
for (let i = 0; i < WARMUP + runs; i++) {
  const r = await rawLaunch();
  const s = await serviceCycle();
  if (i < WARMUP) continue;
  raw.ready.push(r.ready);
  raw.cycle.push(r.cycle);
  svc.create.push(s.create);
  svc.cycle.push(s.cycle);
}
await service.close();
await rm(dataDir, { recursive: true, force: true });

const result = {
  benchmark: 'create-latency',
  date: new Date().toISOString(),
  machine: machine(),
  chromium: { path: service.chromium.path, source: service.chromium.source },
  runs,
  raw_launch_ms: summarize(raw.ready),
  raw_launch_and_kill_ms: summarize(raw.cycle),
  service_create_ms: summarize(svc.create),
  service_create_delete_ms: summarize(svc.cycle),
  ratio_create_vs_raw_p50: ratio(summarize(svc.create).p50, summarize(raw.ready).p50),
  ratio_create_vs_raw_p99: ratio(summarize(svc.create).p99, summarize(raw.ready).p99),
  ratio_cycle_vs_raw_cycle_p50: ratio(summarize(svc.cycle).p50, summarize(raw.cycle).p50),
};

printReport(
  result,
  `create-latency: ${runs} interleaved runs, chromium ${result.chromium.source} (${result.chromium.path})`,
  [
    ['raw launch: spawn -> DevTools URL', result.raw_launch_ms],
    ['service: POST /browsers', result.service_create_ms],
    ['raw launch + kill', result.raw_launch_and_kill_ms],
    ['service: POST /browsers + DELETE', result.service_create_delete_ms],
  ],
  `create / raw launch: p50 ${result.ratio_create_vs_raw_p50}x, p99 ${result.ratio_create_vs_raw_p99}x; cycle / raw cycle p50 ${result.ratio_cycle_vs_raw_cycle_p50}x`,
);
