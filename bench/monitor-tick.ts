// Benchmark: the monitor scheduler with 1,000 checks deployed (issue 28), on SQLite and on PostgreSQL. It measures
// the scheduler and the store, not Chromium: a check's attempt resolves at once as passed.
// (1) Steady state, nothing due: MonitorScheduler.tick() (claims given back: every claimed check read; the due
//     checks selected) against the same `due` SELECT alone and the `runningChecks` SELECT alone, interleaved.
// (2) 100 of the 1,000 due at once (an hourly cron at the top of the hour): from the first tick's start until all
//     100 are claimed, and until all 100 are recorded, at concurrency 100 and at the default 4 (the service's
//     1 s tick timer running, as in the service), against the same 100 claims made with repo.claim in a loop.
//     Attempts that resolve at once are recorded while the tick still claims; a third side holds every attempt
//     until all 100 are claimed, as attempts of seconds would, to time the claiming alone.
// (3) GET /monitors/checks?recent=20 on a real service with the 1,000 checks and 20 recorded runs each (--history:
//     more kept per check, the list still asks for 20), against GET /runs?limit=100 (100 stored runs) and
//     GET /monitors/checks?recent=0 on the same service, interleaved.
// Stores and sides alternate round by round. Without PostgreSQL installed it says so and exits 0.
//   node runner/build.mjs && node dist/bench/monitor-tick.js [--ticks 1000] [--rounds 20] [--requests 30] [--history 20] [--json]
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { startService, type RunningService } from '../src/service/index.js';
import { MonitorScheduler } from '../src/service/host/monitors/index.js';
import type { Database } from '../src/service/store/database.js';
import { MonitorsRepo, type CheckRow } from '../src/service/store/monitors-repo.js';
import { openPostgres } from '../src/service/store/pg/database.js';
import { RunsRepo } from '../src/service/store/runs-repo.js';
import { SqliteDatabase } from '../src/service/store/sqlite/database.js';
import { openDatabase } from '../src/service/store/sqlite/open.js';
import { deployChecks, makeDue, seedRecentRuns, SUITES, PER_SUITE } from './monitor-fixtures.js';
import { createDatabase, findPostgres, startPostgres } from './postgres-server.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { call } from './service-calls.js';
import { summarize, type Summary } from './stats.js';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const TICKS = arg('--ticks', 1000);
const ROUNDS = arg('--rounds', 20);
const REQUESTS = arg('--requests', 30);
const HISTORY = arg('--history', 20);
const WARMUP = 3;
const DUE_AT_ONCE = 100;
const RECENT = 20;
const STORED_RUNS = 100;
/** The service's default tick (ServiceOptions.monitorTickMs), running beside the ticks a finished run asks for. */
const TICK_MS = 1000;
const TOTAL = SUITES * PER_SUITE;
const load_at_start = loadavg().map((l) => Math.round(l * 100) / 100);

const found = findPostgres();
if ('missing' in found) {
  const reason = `monitor-tick: skipped, ${found.missing}`;
  process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify({ benchmark: 'monitor-tick', skipped: found.missing })}\n` : `${reason}\n`);
  process.exit(0);
}
const postgres = await startPostgres(found.bin);
const dirs: string[] = [];
const tempDir = async () => (dirs.push(await mkdtemp(join(tmpdir(), 'bcs-bench-monitors-'))), dirs.at(-1)!);

/** Counts what a pass did: a claim reaching the wanted number settles `expect`'s promise. */
class CountingRepo extends MonitorsRepo {
  private want = 0;
  private got = 0;
  private reached = () => {};
  /** Passes whose `due` found something to claim. */
  passes = 0;

  expect(claims: number): Promise<void> {
    [this.want, this.got, this.passes] = [claims, 0, 0];
    return new Promise((resolve) => (this.reached = resolve));
  }

  override async due(now: string, limit: number): Promise<CheckRow[]> {
    const rows = await super.due(now, limit);
    if (rows.length) this.passes++;
    return rows;
  }

  override async claim(check: CheckRow, owner: string, now: string): Promise<boolean> {
    const taken = await super.claim(check, owner, now);
    if (taken && ++this.got === this.want) this.reached();
    return taken;
  }
}

// A fixed clock a second past the top of the hour: the cron checks' due time is `TOP`, every other check's is
// later, so the steady state stays steady however long the benchmark runs.
const TOP = '2030-01-07T10:00:00.000Z';
const NOW = new Date(Date.parse(TOP) + 1000);
const quiet = { warn: () => {}, info: () => {} };

function scheduler(repo: MonitorsRepo, concurrency: number, owner: string, held?: Promise<void>): MonitorScheduler {
  return new MonitorScheduler({
    repo,
    attempt: async () => {
      await held;
      return { status: 'passed', run_id: null, started_at: NOW.toISOString(), duration_ms: 0 };
    },
    alert: async () => {},
    now: () => NOW,
    owner,
    concurrency,
    log: quiet,
  });
}

const sqliteDb = new SqliteDatabase(openDatabase(await tempDir()));
const pgDb = await openPostgres(await createDatabase(postgres.url));
const stores = [
  { name: 'sqlite', db: sqliteDb as Database, repo: new CountingRepo(sqliteDb) },
  { name: 'postgres', db: pgDb as Database, repo: new CountingRepo(pgDb) },
] as const;
type Side = (typeof stores)[number]['name'];
type Store = (typeof stores)[number];
const alternate = <T>(items: readonly T[], i: number): T[] => (i % 2 ? [...items].reverse() : [...items]);
const rotate = <T>(items: readonly T[], i: number): T[] => items.map((_, k) => items[(k + i) % items.length]!);
const samples = () => ({ sqlite: [] as number[], postgres: [] as number[] });

const deployed = { sqlite: await deployChecks(stores[0].repo, NOW), postgres: await deployChecks(stores[1].repo, NOW) };

// (1) Nothing due: a tick against its two SELECTs alone.
const tick = samples();
const dueAlone = samples();
const runningAlone = samples();
{
  const steady = { sqlite: scheduler(stores[0].repo, DUE_AT_ONCE, 'bench-steady'), postgres: scheduler(stores[1].repo, DUE_AT_ONCE, 'bench-steady') };
  const now = NOW.toISOString();
  for (let i = 0; i < WARMUP + TICKS; i++) {
    for (const { name, repo } of alternate(stores, i)) {
      const measures: [number[], () => Promise<unknown>][] = [
        [tick[name], () => steady[name].tick()],
        [dueAlone[name], () => repo.due(now, DUE_AT_ONCE)],
        [runningAlone[name], () => repo.runningChecks()],
      ];
      for (const [into, work] of rotate(measures, i)) {
        const t = await timeIt(work);
        if (i >= WARMUP) into.push(t);
      }
    }
  }
  await Promise.all([steady.sqlite.close(), steady.postgres.close()]);
}

// (2) 100 due at once: claimed by the scheduler (concurrency 100, then the default 4) or by a loop of claims.
const burst = { c100: samples(), c100Drained: samples(), c4: samples(), c4Drained: samples(), held: samples(), heldDrained: samples(), direct: samples() };
const passes = { c100: samples(), c4: samples(), held: samples() };

async function drain({ name, db, repo }: Store, concurrency: 100 | 4, hold = false): Promise<void> {
  await makeDue(db, deployed[name].cron, TOP);
  const claimed = repo.expect(DUE_AT_ONCE);
  const s = scheduler(repo, concurrency, `bench-c${concurrency}`, hold ? claimed : undefined);
  // A scheduler that stops claiming would leave the promise pending and the benchmark silent: fail it loudly.
  const stuck = setTimeout(() => {
    throw new Error(`${name}: concurrency ${concurrency} claimed fewer than ${DUE_AT_ONCE} in 120 s`);
  }, 120_000);
  const started = performance.now();
  s.start(TICK_MS);
  await claimed;
  const allClaimed = performance.now() - started;
  await s.idle();
  const allDone = performance.now() - started;
  clearTimeout(stuck);
  await s.close();
  const side = hold ? 'held' : (`c${concurrency}` as const);
  burst[side][name].push(allClaimed);
  burst[`${side}Drained`][name].push(allDone);
  passes[side][name].push(repo.passes);
}

async function direct({ name, db, repo }: Store): Promise<void> {
  await makeDue(db, deployed[name].cron, TOP);
  const due = await repo.due(NOW.toISOString(), DUE_AT_ONCE);
  if (due.length !== DUE_AT_ONCE) throw new Error(`${name}: ${due.length} due, expected ${DUE_AT_ONCE}`);
  const t = await timeIt(async () => {
    for (const c of due) if (!(await repo.claim(c, 'bench-direct', NOW.toISOString()))) throw new Error(`${name}: lost the claim of ${c.id}`);
  });
  burst.direct[name].push(t);
}

for (let i = 0; i < 1 + ROUNDS; i++) {
  for (const store of alternate(stores, i)) {
    for (const run of rotate([() => drain(store, 100), () => drain(store, 4), () => drain(store, 100, true), () => direct(store)], i)) await run();
  }
  // The warm-up round is dropped.
  if (i === 0) for (const m of [...Object.values(burst), ...Object.values(passes)]) for (const side of stores) m[side.name].length = 0;
}
await Promise.all(stores.map((s) => s.db.close()));

// (3) The check list with 20 recent runs each, through a real service on each store.
async function seededService(side: Side): Promise<{ svc: RunningService; seeded: number }> {
  const dataDir = await tempDir();
  const databaseUrl = side === 'postgres' ? await createDatabase(postgres.url) : undefined;
  const db = databaseUrl ? await openPostgres(databaseUrl) : new SqliteDatabase(openDatabase(dataDir));
  // Due a day from now on the real clock the service runs on, so its scheduler starts nothing meanwhile.
  await deployChecks(new MonitorsRepo(db), new Date(Date.now() + 86_400_000));
  const seeded = await seedRecentRuns(new MonitorsRepo(db), HISTORY, 8, new Date());
  const runs = new RunsRepo(db);
  for (let r = 0; r < STORED_RUNS; r++) {
    const at = new Date(Date.now() - r * 60_000).toISOString();
    await runs.insertRun({
      id: `run-${r}`, project_id: null, suite: 'nightly', branch: 'main', commit_sha: 'a1b2c3d', tags: ['nightly'], run_trigger: 'schedule',
      shard_index: null, shard_total: null, status: 'passed', summary: { total: 40, passed: 39, failed: 1, errored: 0, flaky: 0 },
      started_at: at, finished_at: at, created_at: at, run_key: null, request_hash: null, active_at: at,
    });
  }
  await db.close();
  return { svc: await startService({ logLevel: 'silent', networkPolicy: 'local', standby: 0, dataDir, databaseUrl }), seeded };
}

const services = { sqlite: await seededService('sqlite'), postgres: await seededService('postgres') };
for (const { svc } of Object.values(services)) {
  const checks = await call(svc, 'GET', `/monitors/checks?recent=${RECENT}`);
  const recent = checks.reduce((n: number, c: { recent: unknown[] }) => n + c.recent.length, 0);
  if (checks.length !== TOTAL || recent !== TOTAL * Math.min(RECENT, HISTORY)) throw new Error(`the service lists ${checks.length} checks with ${recent} recent runs`);
}

/** The whole body read, not parsed: the client's JSON.parse of megabytes is not the service's time. */
async function fetchBody(svc: RunningService, path: string): Promise<number> {
  const res = await fetch(`${svc.baseUrl}${path}`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
  const body = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
  return body.byteLength;
}

const lists = { recent: samples(), bare: samples(), runs: samples() };
const paths = { recent: `/monitors/checks?recent=${RECENT}`, bare: '/monitors/checks?recent=0', runs: `/runs?limit=${STORED_RUNS}` };
const bytes = {} as Record<keyof typeof paths, number>;
for (let i = 0; i < WARMUP + REQUESTS; i++) {
  for (const side of alternate(['sqlite', 'postgres'] as const, i)) {
    for (const key of rotate(Object.keys(paths) as (keyof typeof paths)[], i)) {
      const started = performance.now();
      bytes[key] = await fetchBody(services[side].svc, paths[key]);
      if (i >= WARMUP) lists[key][side].push(performance.now() - started);
    }
  }
}
const databases = { sqlite: services.sqlite.svc.database, postgres: services.postgres.svc.database };
await Promise.all(Object.values(services).map(({ svc }) => svc.close()));
await postgres.stop();
await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));

/** Ticks take microseconds: summarized in microseconds, shown in ms with the digits that needs. */
function fine(ms: number[]): Summary {
  const s = summarize(ms.map((v) => v * 1000));
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === 'n' ? v : Math.round(v * 10) / 10_000])) as unknown as Summary;
}
const both = <T>(f: (side: Side) => T) => ({ sqlite: f('sqlite'), postgres: f('postgres') });
const part1 = both((side) => ({ tick_ms: fine(tick[side]), due_select_ms: fine(dueAlone[side]), running_select_ms: fine(runningAlone[side]) }));
const part2 = both((side) => ({
  c100_claimed_ms: summarize(burst.c100[side]),
  c100_recorded_ms: summarize(burst.c100Drained[side]),
  c100_passes: summarize(passes.c100[side]),
  c4_claimed_ms: summarize(burst.c4[side]),
  c4_recorded_ms: summarize(burst.c4Drained[side]),
  c4_passes: summarize(passes.c4[side]),
  held_claimed_ms: summarize(burst.held[side]),
  held_recorded_ms: summarize(burst.heldDrained[side]),
  direct_claims_ms: summarize(burst.direct[side]),
}));
const part3 = both((side) => ({ checks_recent_ms: summarize(lists.recent[side]), checks_bare_ms: summarize(lists.bare[side]), runs_ms: summarize(lists.runs[side]) }));
const r = (a: Summary, b: Summary) => `p50 ${ratio(a.p50, b.p50)}x, p99 ${ratio(a.p99, b.p99)}x`;

const result = {
  benchmark: 'monitor-tick',
  date: new Date().toISOString(),
  machine: { ...machine(), load_at_start },
  postgres: { version: basename(dirname(found.bin)), bin: found.bin },
  databases,
  note: 'a check attempt resolves at once as passed: the scheduler and the store are measured, not Chromium',
  checks: TOTAL,
  suites: SUITES,
  ticks: TICKS,
  rounds: ROUNDS,
  requests: REQUESTS,
  runs_kept_per_check: HISTORY,
  seeded_runs: services.sqlite.seeded,
  response_bytes: bytes,
  steady_tick: part1,
  due_at_once: part2,
  check_list: part3,
};

printReport(
  result,
  `monitor-tick: ${TOTAL} checks (${SUITES} suites of ${PER_SUITE}), SQLite and PostgreSQL ${result.postgres.version}; attempts resolve at once ` +
    `(the scheduler and the store, not Chromium); ${TICKS} ticks, ${ROUNDS} rounds of ${DUE_AT_ONCE} due, ${REQUESTS} requests over ${HISTORY} runs kept per check; load at start ${load_at_start.join(' ')}`,
  (['sqlite', 'postgres'] as const).flatMap((side): [string, Summary][] => [
    [`${side}: tick, none due`, part1[side].tick_ms],
    [`${side}: due SELECT alone`, part1[side].due_select_ms],
    [`${side}: runningChecks SELECT alone`, part1[side].running_select_ms],
    [`${side}: ${DUE_AT_ONCE} due, concurrency 100: all claimed`, part2[side].c100_claimed_ms],
    [`${side}: ${DUE_AT_ONCE} due, concurrency 100: all recorded`, part2[side].c100_recorded_ms],
    [`${side}: ${DUE_AT_ONCE} due, concurrency 4: all claimed`, part2[side].c4_claimed_ms],
    [`${side}: ${DUE_AT_ONCE} due, concurrency 4: all recorded`, part2[side].c4_recorded_ms],
    [`${side}: ${DUE_AT_ONCE} due, concurrency 100, attempts held: all claimed`, part2[side].held_claimed_ms],
    [`${side}: ${DUE_AT_ONCE} repo.claim in a loop`, part2[side].direct_claims_ms],
    [`${side}: GET /monitors/checks?recent=${RECENT}`, part3[side].checks_recent_ms],
    [`${side}: GET /monitors/checks?recent=0`, part3[side].checks_bare_ms],
    [`${side}: GET /runs?limit=${STORED_RUNS}`, part3[side].runs_ms],
  ]),
  (['sqlite', 'postgres'] as const)
    .map((side) => {
      const [a, b, c] = [part1[side], part2[side], part3[side]];
      return (
        `${side}: tick / due SELECT ${r(a.tick_ms, a.due_select_ms)}, / due + runningChecks p50 ${ratio(a.tick_ms.p50, a.due_select_ms.p50 + a.running_select_ms.p50)}x; ` +
        `${DUE_AT_ONCE} claimed by a tick (concurrency 100) / the loop of claims ${r(b.c100_claimed_ms, b.direct_claims_ms)}, attempts held ${r(b.held_claimed_ms, b.direct_claims_ms)}, ` +
        `concurrency 4 / the loop ${r(b.c4_claimed_ms, b.direct_claims_ms)} (passes that claimed: p50 ${b.c4_passes.p50}); ` +
        `checks?recent=${RECENT} / runs?limit=${STORED_RUNS} ${r(c.checks_recent_ms, c.runs_ms)}, / checks?recent=0 ${r(c.checks_recent_ms, c.checks_bare_ms)}`
      );
    })
    .join('. ') + `. Bodies: ${Object.entries(bytes).map(([k, v]) => `${k} ${Math.round(v / 1024)} KiB`).join(', ')}.`,
);
