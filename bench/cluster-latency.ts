// Benchmark: the cluster (API replicas in front of a browser host, all on one PostgreSQL) against a single
// `bcs serve --database-url` (one process, its own database on the same PostgreSQL server). The cluster's host
// (the leader) and the single node run in this process, the two replicas as `bcs serve --role api` processes
// (--in-process-replicas: in this process). Interleaved pair by pair (the order alternating), warm-ups first,
// in this order (pools last: a pool's size counts against the admission limit):
// (1) routing overhead on one session created through replica 1: a CDP round trip (Runtime.evaluate 1 + 1 over
//     a raw WebSocket) on cdp_ws_url as answered (through the replica) vs the same URL pointed at the host
//     itself; the same for POST .../computer/click_mouse and a plain GET /browsers/{id}. Hosts answer loopback
//     without the cluster key, so "direct" is exactly the same host without the replica's hop and lookup.
// (2) POST /browsers {} + DELETE through a replica vs on the single node (standby 0 on both, cold launches).
// (4) 100 parallel creates under max_concurrent_sessions 10: half through each replica vs all on the single
//     node, and (to tell the replicas' share) straight to the cluster's host; per-request latency of the 200s and
//     the 429s, and the wall time of the burst.
// (3) acquire -> release (reuse) cycles on a pool of 4 (--pool-size), K workers for a fixed time, half through each
//     replica vs the single node; ABBA blocks; cycles per second. Then the lease path without the reset:
//     16 parallel acquires (--burst) on a full pool of that size, timed to the last answer (acquires per second),
//     sent from a worker thread so that the client's work is not on the host's event loop.
// Without PostgreSQL installed it says so and exits 0.
//   node dist/bench/cluster-latency.js [--runs 1000] [--creates 30] [--rounds 5] [--seconds 6] [--pool-size 4] [--workers 4] [--burst 16] [--burst-rounds 10]
//     [--in-process-replicas] [--json]
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import WebSocket from 'ws';
import { startReplica, startService } from '../src/service/index.js';
import { createDatabase, findPostgres, startPostgres } from './postgres-server.js';
import { machine, printReport, ratio } from './report.js';
import { summarize, type Summary } from './stats.js';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const runs = arg('--runs', 1000);
const clickRuns = Math.max(50, Math.round(runs / 2));
const creates = arg('--creates', 30);
const rounds = arg('--rounds', 5);
const burstRounds = arg('--burst-rounds', rounds * 2);
const seconds = arg('--seconds', 6);
const POOL_SIZE = arg('--pool-size', 4);
const ACQUIRE_BURST = arg('--burst', 16);
const workers = arg('--workers', POOL_SIZE);
const BURST = 100;
const LIMIT = 10;

const found = findPostgres();
if ('missing' in found) {
  process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify({ benchmark: 'cluster-latency', skipped: found.missing })}\n` : `cluster-latency: skipped, ${found.missing}\n`);
  process.exit(0);
}
const load_at_start = loadavg().map((l) => Math.round(l * 100) / 100);
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: 'pipe' }).toString().trim();
} catch {
  // not a git checkout
}
const postgres = await startPostgres(found.bin);
const [clusterDb, singleDb] = [await createDatabase(postgres.url), await createDatabase(postgres.url)];
const dir = await mkdtemp(join(tmpdir(), 'bcs-bench-cluster-'));
const clusterKeyFile = join(dir, 'cluster.key');
await writeFile(clusterKeyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
const apiKey = `bench-${randomBytes(16).toString('hex')}`;
const common = { apiKey, logLevel: 'silent', standby: 0, networkPolicy: 'local' } as const;

// Replicas: by default two `bcs serve --role api` processes, as a cluster runs them; with --in-process-replicas,
// startReplica in this process (as test/service/cluster.test.ts does), sharing the host's event loop.
const inProcessReplicas = process.argv.includes('--in-process-replicas');
async function replicaProcess(): Promise<{ baseUrl: string; close(): Promise<unknown> }> {
  const bcs = fileURLToPath(new URL('../../runner/bcs.js', import.meta.url));
  const args = ['serve', '--role', 'api', '--port', '0', '--database-url', clusterDb, '--cluster-key-file', clusterKeyFile, '--log-level', 'error'];
  const child = spawn(process.execPath, [bcs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  process.once('exit', () => child.kill()); // a run that fails leaves no replica behind
  let said = '';
  child.stderr!.on('data', (d: Buffer) => (said = (said + d.toString()).slice(-2000)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      const found = /BCS_BASE_URL=(\S+)/.exec((out += d.toString()));
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`a replica exited (${code}): ${said}`)));
  });
  return { baseUrl, close: () => new Promise((resolve) => (child.exitCode !== null ? resolve(0) : (child.once('exit', resolve), child.kill('SIGTERM')))) };
}
const replicas = inProcessReplicas
  ? [await startReplica({ databaseUrl: clusterDb, clusterKeyFile, refreshMs: 100, logLevel: 'error' }), await startReplica({ databaseUrl: clusterDb, clusterKeyFile, refreshMs: 100, logLevel: 'error' })]
  : [await replicaProcess(), await replicaProcess()];
const [r1, r2] = replicas.map((r) => r.baseUrl) as [string, string];
const host = await startService({
  ...common,
  dataDir: join(dir, 'host-1'),
  databaseUrl: clusterDb,
  cluster: { clusterKeyFile, hostId: 'host-1', heartbeatMs: 200 },
  blobDir: join(dir, 'blobs'),
  publicUrl: r1,
});
const single = await startService({ ...common, dataDir: join(dir, 'single'), databaseUrl: singleDb });
if (host.chromium.path !== single.chromium.path || host.headlessShell?.path !== single.headlessShell?.path) {
  throw new Error(`the two services found different browsers: ${host.chromium.path} / ${single.chromium.path}`);
}
// Ready when the host leads and both replicas route to it (a page of pools is the leader's to answer).
const deadline = Date.now() + 15_000;
const routed = async (base: string) => (await call(base, 'GET', '/browser_pools')).status === 200;
while (!(host.cluster?.isLeader() && (await routed(r1)) && (await routed(r2)))) {
  if (Date.now() > deadline) throw new Error('the host did not join the cluster as its leader within 15 s');
  await new Promise((r) => setTimeout(r, 100));
}
await new Promise((r) => setTimeout(r, 1000));

/** One API call with the admin key; answers status and parsed body (the body is always read). */
async function call(base: string, method: string, path: string, body?: object): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
async function ok(base: string, method: string, path: string, body?: object): Promise<any> {
  const res = await call(base, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
async function timed(base: string, method: string, path: string, body?: object): Promise<{ ms: number; status: number; body: any }> {
  const started = performance.now();
  const res = await call(base, method, path, body);
  return { ms: performance.now() - started, ...res };
}

/** A raw CDP client on one WebSocket (flat sessions), enough for round trips. */
async function rawCdp(url: string) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const pending = new Map<number, (msg: any) => void>();
  let next = 1;
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    if (msg.id !== undefined) pending.get(msg.id)?.(msg), pending.delete(msg.id);
  });
  const send = (method: string, params: object = {}, sessionId?: string) =>
    new Promise<any>((resolve, reject) => {
      const id = next++;
      pending.set(id, (msg) => (msg.error ? reject(new Error(`${method}: ${msg.error.message}`)) : resolve(msg.result)));
      ws.send(JSON.stringify({ id, method, params, sessionId }));
    });
  const { targetInfos } = await send('Target.getTargets');
  const { sessionId } = await send('Target.attachToTarget', { targetId: targetInfos.find((t: { type: string }) => t.type === 'page').targetId, flatten: true });
  return { evaluate: () => send('Runtime.evaluate', { expression: '1 + 1' }, sessionId), close: () => ws.close() };
}

/** Interleaved pairs (the order alternating), after `warm` unrecorded ones. */
async function pairs(n: number, warm: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number[], number[]]> {
  const as: number[] = [];
  const bs: number[] = [];
  const time = async (work: () => Promise<unknown>) => {
    const t = performance.now();
    await work();
    return performance.now() - t;
  };
  for (let i = 0; i < warm + n; i++) {
    const [ta, tb] = i % 2 === 0 ? [await time(a), await time(b)] : [await time(b), await time(a)].reverse();
    if (i >= warm) as.push(ta!), bs.push(tb!);
  }
  return [as, bs];
}
const settle = (ms = 50) => new Promise((r) => setTimeout(r, ms));

// (1) Routing overhead: one session on host-1, created through replica 1.
const session = await ok(r1, 'POST', '/browsers', { viewport: { width: 1280, height: 800 }, start_url: 'data:text/html,<body style="height:2000px">bench</body>' });
const sid: string = session.session_id;
const direct = new URL(session.cdp_ws_url);
direct.host = new URL(host.baseUrl).host;
if (new URL(session.cdp_ws_url).host !== new URL(r1).host) throw new Error(`cdp_ws_url does not point at the replica: ${session.cdp_ws_url}`);
const [viaCdp, hostCdp] = [await rawCdp(session.cdp_ws_url), await rawCdp(direct.toString())];
await settle(1000); // the new session's own start-up work (its page, the service's CDP connection) is done
const [cdpReplica, cdpHost] = await pairs(runs, 30, viaCdp.evaluate, hostCdp.evaluate);
viaCdp.close();
hostCdp.close();
const expect200 = async (p: Promise<{ status: number; body: any }>) => {
  const res = await p;
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
};
const click = (base: string, i: number) => expect200(call(base, 'POST', `/browsers/${sid}/computer/click_mouse`, { x: 100 + (i % 500), y: 300 }));
let k = 0;
const [clickReplica, clickHost] = await pairs(clickRuns, 10, () => click(r1, k++), () => click(host.baseUrl, k++));
const [getReplica, getHost] = await pairs(runs, 30, () => expect200(call(r1, 'GET', `/browsers/${sid}`)), () => expect200(call(host.baseUrl, 'GET', `/browsers/${sid}`)));
await ok(r2, 'DELETE', `/browsers/${sid}`);

// (2) Cold create + delete: through a replica (alternating 1 and 2) vs the single node.
const createCluster: number[] = [];
const createSingle: number[] = [];
const cycleCluster: number[] = [];
const cycleSingle: number[] = [];
for (let i = 0; i < 3 + creates; i++) {
  const sides = [
    { base: i % 2 ? r2 : r1, c: createCluster, cd: cycleCluster },
    { base: single.baseUrl, c: createSingle, cd: cycleSingle },
  ];
  for (const side of i % 2 ? sides.reverse() : sides) {
    await settle();
    const started = performance.now();
    const made = await ok(side.base, 'POST', '/browsers', {});
    const c = performance.now() - started;
    await ok(side.base, 'DELETE', `/browsers/${made.session_id}`);
    if (i >= 3) side.c.push(c), side.cd.push(performance.now() - started);
  }
}

// (4) Admission: 100 parallel creates under a limit of 10.
// A third side tells the replicas' share from the host's: the same burst sent to the cluster's host directly.
const burstSide = () => ({ admitted: [] as number[], refused: [] as number[], wall: [] as number[], counts: [] as string[] });
const admission = { cluster: burstSide(), host: burstSide(), single: burstSide() };
await ok(r1, 'PATCH', '/org/limits', { max_concurrent_sessions: LIMIT });
await ok(single.baseUrl, 'PATCH', '/org/limits', { max_concurrent_sessions: LIMIT });
for (let i = 0; i < 1 + rounds; i++) {
  const sides = [
    { name: 'cluster' as const, base: (k: number) => (k % 2 ? r2 : r1) },
    { name: 'host' as const, base: () => host.baseUrl },
    { name: 'single' as const, base: () => single.baseUrl },
  ];
  for (const side of [...sides.slice(i % 3), ...sides.slice(0, i % 3)]) {
    await settle(300);
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: BURST }, (_, k) => timed(side.base(k), 'POST', '/browsers', {})));
    const wall = performance.now() - started;
    const made = answers.filter((a) => a.status === 200);
    await Promise.all(made.map((a) => ok(side.base(0), 'DELETE', `/browsers/${a.body.session_id}`)));
    const other = answers.filter((a) => a.status !== 200 && a.status !== 429);
    if (other.length) throw new Error(`admission: ${other.length} answers neither 200 nor 429, e.g. ${other[0]!.status} ${JSON.stringify(other[0]!.body)}`);
    if (i === 0) continue;
    const into = admission[side.name];
    into.wall.push(wall);
    into.counts.push(`${made.length}/${BURST - made.length}`);
    for (const a of answers) (a.status === 200 ? into.admitted : into.refused).push(a.ms);
  }
}
await ok(r1, 'PATCH', '/org/limits', { max_concurrent_sessions: null });
await ok(single.baseUrl, 'PATCH', '/org/limits', { max_concurrent_sessions: null });

// (3) Pool cycles: K workers (default: one per browser, so an acquire finds one idle) loop acquire -> release
// (reuse: the release answers once the browser is reset) for a fixed time; ABBA blocks.
type Side = 'cluster' | 'single';
const basesOf = (name: Side) => (name === 'cluster' ? [r1, r2] : [single.baseUrl]);
async function fullPool(name: Side, size: number): Promise<string> {
  const id = (await ok(basesOf(name)[0]!, 'POST', '/browser_pools', { name: `bench-${size}`, size, fill_rate_per_minute: Math.min(100, 400 / size) })).id;
  while ((await ok(basesOf(name)[0]!, 'GET', `/browser_pools/${id}`)).available_count !== size) await settle(20);
  return id;
}
const pools = { cluster: await fullPool('cluster', POOL_SIZE), single: await fullPool('single', POOL_SIZE) };
const loops = {
  cluster: { cycles: 0, ms: 0, acquire: [] as number[], release: [] as number[] },
  single: { cycles: 0, ms: 0, acquire: [] as number[], release: [] as number[] },
};
async function poolLoop(name: Side, ms: number, keep: boolean): Promise<void> {
  const path = `/browser_pools/${pools[name]}`;
  const into = loops[name];
  const started = performance.now();
  const end = started + ms;
  let cycles = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      const base = basesOf(name)[w % basesOf(name).length]!;
      while (performance.now() < end) {
        const a = await timed(base, 'POST', `${path}/acquire`, { acquire_timeout_seconds: 30 });
        if (a.status !== 200) throw new Error(`acquire: ${a.status} ${JSON.stringify(a.body)}`);
        const r = await timed(base, 'POST', `${path}/release`, { session_id: a.body.session_id, reuse: true });
        if (r.status !== 204) throw new Error(`release: ${r.status} ${JSON.stringify(r.body)}`);
        if (keep) into.acquire.push(a.ms), into.release.push(r.ms);
        cycles++;
      }
    }),
  );
  if (keep) (into.cycles += cycles), (into.ms += performance.now() - started);
}
await poolLoop('cluster', 1000, false);
await poolLoop('single', 1000, false);
for (const name of ['cluster', 'single', 'single', 'cluster'] as const) await poolLoop(name, (seconds * 1000) / 2, true);
const perSecond = (name: Side) => Math.round((loops[name].cycles / loops[name].ms) * 1000 * 10) / 10;
for (const name of ['cluster', 'single'] as const) await ok(basesOf(name)[0]!, 'DELETE', `/browser_pools/${pools[name]}`);

/**
 * The burst's requests, sent from a worker thread: the client's own work (fetch) stays off the event loop
 * of the host and the single node, which run in this thread, as it would be on a client's machine.
 */
const burstClient = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', async ({ urls, apiKey }) => {
  const started = performance.now();
  const leases = await Promise.all(urls.map(async (url) => {
    const t = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + apiKey, 'content-type': 'application/json' }, body: '{"acquire_timeout_seconds":30}' });
    const text = await res.text();
    return { ms: performance.now() - t, status: res.status, body: text ? JSON.parse(text) : undefined };
  }));
  parentPort.postMessage({ wall: performance.now() - started, leases });
});`;
const client = new Worker(burstClient, { eval: true });
client.unref();
function burstElsewhere(urls: string[]): Promise<{ wall: number; leases: { ms: number; status: number; body: any }[] }> {
  return new Promise((resolve) => {
    client.once('message', resolve);
    client.postMessage({ urls, apiKey });
  });
}

// (3b) The lease path without the reset: ACQUIRE_BURST parallel acquires on a full pool of that size (half
// through each replica), timed to the last answer; the releases (and their resets) are untimed.
const burstPools = { cluster: await fullPool('cluster', ACQUIRE_BURST), single: await fullPool('single', ACQUIRE_BURST) };
const bursts = { cluster: { wall: [] as number[], each: [] as number[] }, single: { wall: [] as number[], each: [] as number[] } };
for (let i = 0; i < 2 + burstRounds; i++) {
  for (const name of (i % 2 ? ['single', 'cluster'] : ['cluster', 'single']) as Side[]) {
    const path = `/browser_pools/${burstPools[name]}`;
    const bases = basesOf(name);
    await settle(100);
    const { wall, leases } = await burstElsewhere(Array.from({ length: ACQUIRE_BURST }, (_, k) => `${bases[k % bases.length]!}${path}/acquire`));
    if (leases.some((l) => l.status !== 200)) throw new Error(`burst acquire: ${leases.map((l) => l.status).join(',')}`);
    if (i >= 2) bursts[name].wall.push(wall), bursts[name].each.push(...leases.map((l) => l.ms));
    await Promise.all(leases.map((l) => ok(bases[0]!, 'POST', `${path}/release`, { session_id: l.body.session_id, reuse: true })));
    while ((await ok(bases[0]!, 'GET', path)).available_count !== ACQUIRE_BURST) await settle(20);
  }
}
for (const name of ['cluster', 'single'] as const) await ok(basesOf(name)[0]!, 'DELETE', `/browser_pools/${burstPools[name]}`);

const chromium = { path: host.chromium.path, source: host.chromium.source, headless_shell: host.headlessShell?.path ?? null };
const sandboxed = host.sandbox !== null;
await Promise.all(replicas.map((r) => r.close()));
await Promise.all([host.close(), single.close()]);
await postgres.stop();
await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const s = {
  cdpReplica: summarize(cdpReplica), cdpHost: summarize(cdpHost),
  clickReplica: summarize(clickReplica), clickHost: summarize(clickHost),
  getReplica: summarize(getReplica), getHost: summarize(getHost),
  createCluster: summarize(createCluster), createSingle: summarize(createSingle),
  cycleCluster: summarize(cycleCluster), cycleSingle: summarize(cycleSingle),
  admitCluster: summarize(admission.cluster.admitted), admitSingle: summarize(admission.single.admitted),
  refuseCluster: summarize(admission.cluster.refused), refuseSingle: summarize(admission.single.refused),
  wallCluster: summarize(admission.cluster.wall), wallSingle: summarize(admission.single.wall),
  admitHost: summarize(admission.host.admitted), refuseHost: summarize(admission.host.refused), wallHost: summarize(admission.host.wall),
  acquireCluster: summarize(loops.cluster.acquire), acquireSingle: summarize(loops.single.acquire),
  releaseCluster: summarize(loops.cluster.release), releaseSingle: summarize(loops.single.release),
  burstCluster: summarize(bursts.cluster.wall), burstSingle: summarize(bursts.single.wall),
  burstEachCluster: summarize(bursts.cluster.each), burstEachSingle: summarize(bursts.single.each),
};
const leasesPerSecond = (wall: Summary) => Math.round((ACQUIRE_BURST / wall.p50) * 1000);
const diff = (a: Summary, b: Summary, p: 'p50' | 'p99') => Math.round((a[p] - b[p]) * 10) / 10;
const result = {
  benchmark: 'cluster-latency',
  date: new Date().toISOString(),
  commit,
  machine: { ...machine(), load_at_start },
  chromium,
  sandboxed,
  postgres: { version: basename(dirname(found.bin)), bin: found.bin },
  topology: `one browser host (host-1, the leader) in this process and two API replicas ${inProcessReplicas ? 'in this process' : 'as bcs serve --role api processes'}, on one PostgreSQL; single node: startService in this process on its own database of the same server`,
  routing: {
    runs, click_runs: clickRuns,
    cdp_replica_ms: s.cdpReplica, cdp_host_ms: s.cdpHost, cdp_overhead_p50_ms: diff(s.cdpReplica, s.cdpHost, 'p50'), cdp_overhead_p99_ms: diff(s.cdpReplica, s.cdpHost, 'p99'),
    click_replica_ms: s.clickReplica, click_host_ms: s.clickHost, click_overhead_p50_ms: diff(s.clickReplica, s.clickHost, 'p50'), click_overhead_p99_ms: diff(s.clickReplica, s.clickHost, 'p99'),
    get_replica_ms: s.getReplica, get_host_ms: s.getHost, get_overhead_p50_ms: diff(s.getReplica, s.getHost, 'p50'), get_overhead_p99_ms: diff(s.getReplica, s.getHost, 'p99'),
  },
  create: {
    runs: creates,
    cluster_ms: s.createCluster, single_ms: s.createSingle, ratio_p50: ratio(s.createCluster.p50, s.createSingle.p50), ratio_p99: ratio(s.createCluster.p99, s.createSingle.p99),
    cluster_with_delete_ms: s.cycleCluster, single_with_delete_ms: s.cycleSingle, with_delete_ratio_p50: ratio(s.cycleCluster.p50, s.cycleSingle.p50),
  },
  admission: {
    rounds, burst: BURST, limit: LIMIT, admitted_refused: { cluster: admission.cluster.counts, host_direct: admission.host.counts, single: admission.single.counts },
    cluster_200_ms: s.admitCluster, single_200_ms: s.admitSingle, cluster_429_ms: s.refuseCluster, single_429_ms: s.refuseSingle,
    cluster_wall_ms: s.wallCluster, single_wall_ms: s.wallSingle,
    host_direct_200_ms: s.admitHost, host_direct_429_ms: s.refuseHost, host_direct_wall_ms: s.wallHost,
    ratio_429_p50: ratio(s.refuseCluster.p50, s.refuseSingle.p50), ratio_200_p50: ratio(s.admitCluster.p50, s.admitSingle.p50), ratio_wall_p50: ratio(s.wallCluster.p50, s.wallSingle.p50),
  },
  pool_cycles: {
    pool_size: POOL_SIZE, workers, seconds_per_side: seconds,
    cluster: { cycles: loops.cluster.cycles, per_s: perSecond('cluster'), acquire_ms: s.acquireCluster, release_ms: s.releaseCluster },
    single: { cycles: loops.single.cycles, per_s: perSecond('single'), acquire_ms: s.acquireSingle, release_ms: s.releaseSingle },
    ratio: ratio(perSecond('cluster'), perSecond('single')),
  },
  acquire_burst: {
    pool_size: ACQUIRE_BURST, rounds: burstRounds,
    cluster_wall_ms: s.burstCluster, single_wall_ms: s.burstSingle, cluster_each_ms: s.burstEachCluster, single_each_ms: s.burstEachSingle,
    cluster_acquires_per_s_p50: leasesPerSecond(s.burstCluster), single_acquires_per_s_p50: leasesPerSecond(s.burstSingle),
    ratio_wall_p50: ratio(s.burstCluster.p50, s.burstSingle.p50),
  },
};

const r = result;
const met = (yes: boolean) => (yes ? 'met' : 'MISSED');
printReport(
  result,
  `cluster-latency at ${commit} (replicas ${inProcessReplicas ? 'in this process' : 'as bcs serve --role api processes'}): ${runs} CDP and GET pairs, ${clickRuns} click pairs, ${creates} creates, ${rounds} admission rounds, ${seconds} s of pool cycles each; ` +
    `chromium ${chromium.source} (${chromium.path}, shell ${chromium.headless_shell}), sandboxed ${sandboxed}, PostgreSQL ${r.postgres.version}, load at start ${load_at_start.join(' ')}`,
  [
    ['replica: CDP Runtime.evaluate', s.cdpReplica], ['host direct: CDP Runtime.evaluate', s.cdpHost],
    ['replica: computer click_mouse', s.clickReplica], ['host direct: computer click_mouse', s.clickHost],
    ['replica: GET /browsers/{id}', s.getReplica], ['host direct: GET /browsers/{id}', s.getHost],
    ['cluster: POST /browsers {}', s.createCluster], ['single: POST /browsers {}', s.createSingle],
    ['cluster: POST /browsers {} + DELETE', s.cycleCluster], ['single: POST /browsers {} + DELETE', s.cycleSingle],
    [`cluster: ${BURST} parallel creates, limit ${LIMIT}: the 200s`, s.admitCluster], [`single: ${BURST} parallel creates: the 200s`, s.admitSingle],
    [`cluster: ${BURST} parallel creates: the 429s`, s.refuseCluster], [`single: ${BURST} parallel creates: the 429s`, s.refuseSingle],
    [`cluster: ${BURST} parallel creates, wall`, s.wallCluster], [`single: ${BURST} parallel creates, wall`, s.wallSingle],
    [`cluster host direct: ${BURST} parallel creates: the 200s`, s.admitHost], [`cluster host direct: the 429s`, s.refuseHost],
    [`cluster host direct: ${BURST} parallel creates, wall`, s.wallHost],
    ['cluster: pool acquire (in the loop)', s.acquireCluster], ['single: pool acquire (in the loop)', s.acquireSingle],
    ['cluster: pool release, reuse (in the loop)', s.releaseCluster], ['single: pool release, reuse (in the loop)', s.releaseSingle],
    [`cluster: ${ACQUIRE_BURST} parallel acquires, wall`, s.burstCluster], [`single: ${ACQUIRE_BURST} parallel acquires, wall`, s.burstSingle],
    [`cluster: ${ACQUIRE_BURST} parallel acquires, each`, s.burstEachCluster], [`single: ${ACQUIRE_BURST} parallel acquires, each`, s.burstEachSingle],
  ],
  `Routing overhead p50/p99: CDP +${r.routing.cdp_overhead_p50_ms}/+${r.routing.cdp_overhead_p99_ms} ms (goal <= +1 ms p50: ${met(r.routing.cdp_overhead_p50_ms <= 1)}), ` +
    `click +${r.routing.click_overhead_p50_ms}/+${r.routing.click_overhead_p99_ms} ms (${met(r.routing.click_overhead_p50_ms <= 1)}), GET +${r.routing.get_overhead_p50_ms}/+${r.routing.get_overhead_p99_ms} ms. ` +
    `Create cluster / single p50 ${r.create.ratio_p50}x, p99 ${r.create.ratio_p99}x (goal <= 1.1x: ${met(r.create.ratio_p50 <= 1.1)}); with DELETE ${r.create.with_delete_ratio_p50}x. ` +
    `Admission (admitted/refused per round: cluster ${admission.cluster.counts.join(' ')}, host direct ${admission.host.counts.join(' ')}, single ${admission.single.counts.join(' ')}): 429 p50 ${r.admission.ratio_429_p50}x (host direct / single ${ratio(s.refuseHost.p50, s.refuseSingle.p50)}x), 200 p50 ${r.admission.ratio_200_p50}x, wall ${r.admission.ratio_wall_p50}x. ` +
    `Pool cycles (pool ${POOL_SIZE}, ${workers} workers): cluster ${r.pool_cycles.cluster.per_s}/s (${loops.cluster.cycles}), single ${r.pool_cycles.single.per_s}/s (${loops.single.cycles}), ` +
    `${r.pool_cycles.ratio}x (goal >= 500/s: ${met(r.pool_cycles.cluster.per_s >= 500)}). ` +
    `${ACQUIRE_BURST} parallel acquires (no reset): cluster ${r.acquire_burst.cluster_acquires_per_s_p50}/s, single ${r.acquire_burst.single_acquires_per_s_p50}/s at the p50 wall (${r.acquire_burst.ratio_wall_p50}x)`,
);
