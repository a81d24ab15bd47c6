// Benchmark: the service on PostgreSQL against the same service on SQLite. Two services in this process, same
// Chromium, standby off; one keeps its state in a PostgreSQL server the benchmark starts (bench/postgres-server.ts),
// the other in SQLite in its data dir. Each round measures, on both, SQLite then PostgreSQL with the order
// alternating round by round: (1) GET /browsers?limit=20 over ~50 stored sessions (HTTP, auth, one list query),
// (2) POST /browsers {} and its DELETE (a cold launch plus the store's writes), (3) acquire + release (reuse) on
// a pool of 2, (4) a burst of 100 parallel POST /org/projects, each followed by a list (wall time). After the
// rounds, back-to-back acquire + release cycles on each (ABBA blocks) give cycles per second.
// Without PostgreSQL installed it says so and exits 0.
//   node dist/bench/store-latency.js [--runs 30] [--cycles 100] [--json]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { startService, type RunningService } from '../src/service/index.js';
import { createDatabase, findPostgres, startPostgres } from './postgres-server.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { summarize, type Summary } from './stats.js';
import { call, until } from './service-calls.js';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const runs = arg('--runs', 30);
const cycles = arg('--cycles', 100);
const WARMUP = 3;
const STORED_SESSIONS = 50;
const READS_PER_ROUND = 10;
const POOL_SIZE = 2;
const BURST = 100;

const found = findPostgres();
if ('missing' in found) {
  const reason = `store-latency: skipped, ${found.missing}`;
  process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify({ benchmark: 'store-latency', skipped: found.missing })}\n` : `${reason}\n`);
  process.exit(0);
}
const postgres = await startPostgres(found.bin);
const databaseUrl = await createDatabase(postgres.url);

const dataDirs = [await mkdtemp(join(tmpdir(), 'bcs-bench-')), await mkdtemp(join(tmpdir(), 'bcs-bench-'))];
const common = { logLevel: 'silent', networkPolicy: 'local', standby: 0 } as const;
const sqlite = await startService({ ...common, dataDir: dataDirs[0]! });
const pgsql = await startService({ ...common, dataDir: dataDirs[1]!, databaseUrl });
if (sqlite.chromium.path !== pgsql.chromium.path || sqlite.headlessShell?.path !== pgsql.headlessShell?.path) {
  throw new Error(`the two services found different browsers: ${sqlite.chromium.path} / ${pgsql.chromium.path}`);
}
const sides = [
  { name: 'sqlite', svc: sqlite },
  { name: 'postgres', svc: pgsql },
] as const;
type Side = (typeof sides)[number]['name'];

const settle = () => new Promise((r) => setTimeout(r, 50));

// Untimed set-up: ~50 stored (ended) sessions for the list to page over, and a full pool of 2, on each.
const pools = {} as Record<Side, string>;
for (const { name, svc } of sides) {
  for (let made = 0; made < STORED_SESSIONS; made += 5) {
    const batch = await Promise.all(Array.from({ length: 5 }, () => call(svc, 'POST', '/browsers', {})));
    await Promise.all(batch.map((s: { session_id: string }) => call(svc, 'DELETE', `/browsers/${s.session_id}`)));
  }
  pools[name] = (await call(svc, 'POST', '/browser_pools', { name: 'bench', size: POOL_SIZE })).id;
  await until(async () => (await call(svc, 'GET', `/browser_pools/${pools[name]}`)).available_count === POOL_SIZE);
}

const samples = () => ({ sqlite: [] as number[], postgres: [] as number[] });
const list = samples();
const create = samples();
const createDelete = samples();
const acquire = samples();
const cycle = samples();
const burst = samples();

async function poolCycle(side: Side, svc: RunningService): Promise<{ acquire: number; cycle: number }> {
  const started = performance.now();
  const lease = await call(svc, 'POST', `/browser_pools/${pools[side]}/acquire`, {});
  const acquired = performance.now() - started;
  await call(svc, 'POST', `/browser_pools/${pools[side]}/release`, { session_id: lease.session_id, reuse: true });
  return { acquire: acquired, cycle: performance.now() - started };
}

for (let i = 0; i < WARMUP + runs; i++) {
  const order = i % 2 === 0 ? sides : ([...sides].reverse() as typeof sides[number][]);
  const keep = i >= WARMUP;
  // (1) The read floor: one list query over the stored sessions (ended ones included, so a page is full).
  for (let r = 0; r < READS_PER_ROUND; r++) {
    for (const { name, svc } of order) {
      const t = await timeIt(() => call(svc, 'GET', '/browsers?limit=20&include_deleted=true'));
      if (keep) list[name].push(t);
    }
  }
  // (2) A cold create and its delete.
  for (const { name, svc } of order) {
    await settle();
    const started = performance.now();
    const session = await call(svc, 'POST', '/browsers', {});
    const c = performance.now() - started;
    await call(svc, 'DELETE', `/browsers/${session.session_id}`);
    const cd = performance.now() - started;
    if (keep) {
      create[name].push(c);
      createDelete[name].push(cd);
    }
  }
  // (3) Acquire + release with reuse on the pool of 2.
  for (const { name, svc } of order) {
    const p = await poolCycle(name, svc);
    if (keep) {
      acquire[name].push(p.acquire);
      cycle[name].push(p.cycle);
    }
  }
  // (4) 100 parallel project creates, each followed by a list; the projects are deleted afterwards, untimed.
  for (const { name, svc } of order) {
    await settle();
    const ids: string[] = [];
    const t = await timeIt(() =>
      Promise.all(
        Array.from({ length: BURST }, async (_, k) => {
          ids.push((await call(svc, 'POST', '/org/projects', { name: `burst-${i}-${k}` })).id);
          await call(svc, 'GET', '/org/projects?limit=20');
        }),
      ),
    );
    for (const id of ids) await call(svc, 'DELETE', `/org/projects/${id}`);
    if (keep) burst[name].push(t);
  }
}

// Back-to-back pool cycles: ABBA blocks of half the cycles each, cycles per second over each side's total.
const loop = { sqlite: { n: 0, ms: 0 }, postgres: { n: 0, ms: 0 } };
for (const { name, svc } of [sides[0], sides[1], sides[1], sides[0]]) {
  const n = Math.ceil(cycles / 2);
  loop[name].ms += await timeIt(async () => {
    for (let k = 0; k < n; k++) await poolCycle(name, svc);
  });
  loop[name].n += n;
}
const perSecond = (side: Side) => Math.round((loop[side].n / loop[side].ms) * 1000 * 10) / 10;

const databases = { sqlite: sqlite.database, postgres: pgsql.database };
await Promise.all([sqlite.close(), pgsql.close()]);
await postgres.stop();
await Promise.all(dataDirs.map((d) => rm(d, { recursive: true, force: true })));

const measures = {
  list: { title: 'GET /browsers?limit=20, ~50 stored', s: list },
  create: { title: 'POST /browsers {} (cold)', s: create },
  create_delete: { title: 'POST /browsers {} + DELETE', s: createDelete },
  pool_acquire: { title: 'pool acquire', s: acquire },
  pool_cycle: { title: 'pool acquire + release (reuse)', s: cycle },
  burst: { title: `${BURST} parallel POST /org/projects + list, wall`, s: burst },
};
const summaries = Object.fromEntries(
  Object.entries(measures).map(([key, m]) => {
    const sq = summarize(m.s.sqlite);
    const pg = summarize(m.s.postgres);
    return [key, { sqlite_ms: sq, postgres_ms: pg, ratio_p50: ratio(pg.p50, sq.p50), ratio_p99: ratio(pg.p99, sq.p99) }];
  }),
) as Record<keyof typeof measures, { sqlite_ms: Summary; postgres_ms: Summary; ratio_p50: number; ratio_p99: number }>;

const result = {
  benchmark: 'store-latency',
  date: new Date().toISOString(),
  machine: machine(),
  chromium: { path: sqlite.chromium.path, source: sqlite.chromium.source },
  headless_shell: sqlite.headlessShell?.path ?? null,
  sandboxed: sqlite.sandbox !== null,
  postgres: { version: basename(dirname(found.bin)), bin: found.bin },
  databases,
  runs,
  reads_per_round: READS_PER_ROUND,
  ...summaries,
  pool_cycles: {
    cycles_per_side: loop.sqlite.n,
    sqlite_per_s: perSecond('sqlite'),
    postgres_per_s: perSecond('postgres'),
    ratio: ratio(perSecond('postgres'), perSecond('sqlite')),
  },
};

printReport(
  result,
  `store-latency: ${runs} interleaved rounds (${READS_PER_ROUND} reads each), PostgreSQL ${result.postgres.version} vs SQLite; ` +
    `chromium ${result.chromium.source} (${result.chromium.path}), sandboxed ${result.sandboxed}`,
  Object.entries(measures).flatMap(([key, m]): [string, Summary][] => [
    [`sqlite: ${m.title}`, summaries[key as keyof typeof measures].sqlite_ms],
    [`postgres: ${m.title}`, summaries[key as keyof typeof measures].postgres_ms],
  ]),
  'postgres / sqlite: ' +
    Object.entries(measures)
      .map(([key, m]) => `${m.title} p50 ${summaries[key as keyof typeof measures].ratio_p50}x, p99 ${summaries[key as keyof typeof measures].ratio_p99}x`)
      .join('; ') +
    `. Back-to-back pool cycles (${result.pool_cycles.cycles_per_side} each): sqlite ${result.pool_cycles.sqlite_per_s}/s, ` +
    `postgres ${result.pool_cycles.postgres_per_s}/s (${result.pool_cycles.ratio}x)`,
);
