// Benchmark: what one PostgreSQL carries for a cluster, measured on the queries the cluster runs against it
// (the store's own code, no service): for each number of active sessions (--sessions), spread over hosts of
// --per-host sessions each, with --history ended sessions kept as the API keeps them:
//   1. Heartbeats: --workers loops, each beating hosts in turn as a non-leader host does every second (its
//      load UPDATE, the reap of silent hosts, a try for the leader lock on a connection of its own).
//   2. A replica's refresh of the live hosts (every 500 ms per replica), one call at a time.
//   3. Creates: --workers loops, each admitting an on-demand session the way every host does (the
//      `bcs.admission` advisory lock, the counts, the insert) and ending the one it made before (so the
//      active count holds). The lock serialises every create of the cluster: this is their ceiling.
// For each: operations per second at saturation, latency, and the CPU the PostgreSQL processes spent per
// operation (what a dedicated server's cores divide by). Without PostgreSQL installed it says so and exits 0.
//   node runner/build.mjs && node dist/bench/cluster-capacity.js [--sessions 1000,10000,30000,100000]
//     [--per-host 300] [--history 200000] [--seconds 5] [--workers 16] [--json]
import { readFile, readdir } from 'node:fs/promises';
import { openPostgres, type PgDatabase } from '../src/service/store/pg/database.js';
import { HostsRepo } from '../src/service/store/hosts-repo.js';
import { BrowsersRepo, type BrowserRow } from '../src/service/store/browsers-repo.js';
import { LimitsRepo } from '../src/service/store/limits-repo.js';
import { sql } from '../src/service/store/sql.js';
import { ClusterAdmission } from '../src/service/host/session/cluster-admission.js';
import { LEADER_LOCK } from '../src/service/cluster/host-role.js';
import { createDatabase, findPostgres, startPostgres } from './postgres-server.js';
import { machine } from './report.js';
import { summarize, type Summary } from './stats.js';

const argList = (name: string, fallback: number[]) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]!.split(',').map(Number) : fallback;
};
const argValue = (name: string, fallback: number) => argList(name, [fallback])[0] || fallback;
const levels = argList('--sessions', [1000, 10000, 30000, 100000]);
const perHost = argValue('--per-host', 300);
const history = argValue('--history', 200_000);
const seconds = argValue('--seconds', 5);
const workers = argValue('--workers', 16);
const json = process.argv.includes('--json');
/** Never reached while the benchmark runs: its hosts beat in turn, not each every second. */
const SILENT_MS = 3_600_000;

const found = findPostgres();
if ('missing' in found) {
  process.stdout.write(json ? `${JSON.stringify({ benchmark: 'cluster-capacity', skipped: found.missing })}\n` : `cluster-capacity: skipped, ${found.missing}\n`);
  process.exit(0);
}
const server = await startPostgres(found.bin);
const url = await createDatabase(server.url);
const db = await openPostgres(url, { maxConnections: workers + 4 });
const hosts = new HostsRepo(db);
const browsers = new BrowsersRepo(db);
const admission = new ClusterAdmission(db, new LimitsRepo(db));

/** CPU (ms) of the PostgreSQL server: its live processes, and those that exited (a connection's backend), reaped by it. */
async function postgresCpuMs(): Promise<number> {
  const stats = new Map<string, string[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const text = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (text.includes('(postgres)')) stats.set(entry, text.slice(text.lastIndexOf(')') + 2).split(' '));
  }
  let ticks = 0;
  for (const f of stats.values()) {
    // Fields from the state on: utime and stime are 12 and 13, the reaped children's 14 and 15.
    ticks += Number(f[11]) + Number(f[12]);
    if (Number(f[1]) === process.pid) ticks += Number(f[13]) + Number(f[14]);
  }
  return (ticks * 1000) / 100;
}

let made = 0;
function row(hostId: string, deletedAt: string | null = null): BrowserRow {
  const at = new Date().toISOString();
  return {
    id: `bench${(made++).toString(36).padStart(8, '0')}`, project_id: null, name: null, tags: {}, headless: true, stealth: false,
    kiosk_mode: false, timeout_seconds: 60, viewport: { width: 1920, height: 1080 }, start_url: null, created_at: at,
    deleted_at: deletedAt, end_reason: deletedAt ? 'deleted' : null, end_detail: null, pid: null, user_data_dir: null, sandboxed: true,
    pool_id: null, profile_id: null, profile_save_changes: false, invocation_id: null, private_hosts: null, chrome_policy: null, host_id: hostId,
  };
}

/** Rows in bulk, straight into the table (set-up, untimed): `count` of them over `hostIds`, ended or not. */
async function fill(count: number, hostIds: string[], ended: boolean): Promise<void> {
  for (let done = 0; done < count; done += 500) {
    const batch = Array.from({ length: Math.min(500, count - done) }, (_, i) => row(hostIds[(done + i) % hostIds.length]!, ended ? new Date().toISOString() : null));
    await db.pool.query(
      `INSERT INTO browsers (id, tags, headless, stealth, kiosk_mode, timeout_seconds, viewport, created_at, deleted_at, end_reason, sandboxed, host_id)
       SELECT id, '{}', 1, 0, 0, 60, '{"width":1920,"height":1080}', created_at, deleted_at, end_reason, 1, host_id
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS t(id, created_at, deleted_at, end_reason, host_id)`,
      [batch.map((r) => r.id), batch.map((r) => r.created_at), batch.map((r) => r.deleted_at), batch.map((r) => r.end_reason), batch.map((r) => r.host_id)],
    );
  }
}

interface Measure {
  per_second: number;
  latency_ms: Summary;
  /** CPU of the PostgreSQL processes per operation (ms). */
  postgres_cpu_ms: number;
}

/** `loops` copies of `op` back to back for --seconds: throughput, latency, the server's CPU per operation. */
async function saturate(loops: number, op: (loop: number) => Promise<void>): Promise<Measure> {
  const latencies: number[] = [];
  const cpu0 = await postgresCpuMs();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await op(loop);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const wall = (performance.now() - start) / 1000;
  const cpu = (await postgresCpuMs()) - cpu0;
  return { per_second: Math.round(latencies.length / wall), latency_ms: summarize(latencies), postgres_cpu_ms: Math.round((cpu / latencies.length) * 1000) / 1000 };
}

// The leader lock is held, as in a running cluster: every other host's try fails (and costs a connection).
if (!(await db.holdLock(LEADER_LOCK))) throw new Error('could not take the leader lock on a fresh database');
await db.run(sql`UPDATE org_limits SET max_concurrent_sessions = NULL, default_project_max_concurrent_sessions = NULL`);

const hostIds: string[] = [];
await fill(history, ['host-0'], true);
let active = 0;
const results = [];
for (const sessions of levels) {
  while (hostIds.length < Math.ceil(sessions / perHost)) {
    const id = `host-${hostIds.length}`;
    await hosts.register(id, `http://10.0.${Math.floor(hostIds.length / 250)}.${hostIds.length % 250}:8340`, perHost);
    hostIds.push(id);
  }
  await fill(sessions - active, hostIds, false);
  active = sessions;
  await db.pool.query('VACUUM ANALYZE browsers');
  await db.pool.query('VACUUM ANALYZE hosts');
  let turn = 0;
  const beat = async (tryLead: boolean) => {
    const id = hostIds[turn++ % hostIds.length]!;
    await hosts.heartbeat(id, { sessions: perHost, queued: 0, standbyReady: 1, draining: false, leader: false });
    await hosts.reapSilent(SILENT_MS, new Date());
    if (tryLead && (await db.holdLock(LEADER_LOCK))) throw new Error('a second holder of the leader lock');
  };
  const heartbeat = await saturate(workers, () => beat(true));
  // The same beat without the leader try, whose connection of its own is most of a beat's cost.
  const heartbeatNoTry = await saturate(workers, () => beat(false));
  const live = await saturate(1, async () => {
    if ((await hosts.live(SILENT_MS)).length !== hostIds.length) throw new Error('live() lost hosts');
  });
  // What the admission lock is held for that grows with the cluster: counting the active sessions.
  const count = await saturate(1, async () => void (await browsers.onDemandCounts(null)));
  const previous: (string | undefined)[] = [];
  const creates = await saturate(workers, async (loop) => {
    const next = row(hostIds[Math.floor(Math.random() * hostIds.length)]!);
    await admission.insert(next);
    const before = previous[loop];
    if (before) await browsers.end(before, 'deleted', null, new Date());
    previous[loop] = next.id;
  });
  for (const id of previous) if (id) await browsers.end(id, 'deleted', null, new Date());
  const point = { sessions, hosts: hostIds.length, heartbeat, heartbeat_without_leader_try: heartbeatNoTry, live, admission_count: count, creates };
  results.push(point);
  if (!json) process.stderr.write(`${JSON.stringify({ sessions, hosts: hostIds.length, heartbeat_per_s: heartbeat.per_second, live_p50: live.latency_ms.p50, creates_per_s: creates.per_second })}\n`);
}
await db.close();
await server.stop();

const result = { benchmark: 'cluster-capacity', machine: machine(), per_host: perHost, history, seconds, workers, results };
if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  const cell = (m: Measure) => `${m.per_second}/s, ${m.latency_ms.p50} / ${m.latency_ms.p99} ms, ${m.postgres_cpu_ms} ms CPU`;
  process.stdout.write(
    [
      `cluster-capacity: one PostgreSQL, ${history} ended sessions kept, ${perHost} active sessions per host, ${workers} loops, ${seconds} s each`,
      '',
      'Each cell: operations per second, latency p50 / p99, PostgreSQL CPU per operation.',
      '',
      '| active sessions | hosts | heartbeats | heartbeats without the leader try | a replica\'s live-hosts read (one at a time) | the admission\'s count (one at a time) | creates + ends under the admission lock |',
      '|---|---|---|---|---|---|---|',
      ...results.map(
        (r) => `| ${r.sessions} | ${r.hosts} | ${cell(r.heartbeat)} | ${cell(r.heartbeat_without_leader_try)} | ${cell(r.live)} | ${cell(r.admission_count)} | ${cell(r.creates)} |`,
      ),
      '',
    ].join('\n'),
  );
}
