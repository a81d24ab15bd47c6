// Benchmark: `bcs merge-reports` of a run cut into 10 shards of 100 scenarios (issue 28), against the same
// 1,000 scenarios in one blob (a `1-of-1` shard): the cost of the shards themselves (ten archives to open,
// check and order) over what writing the reports of 1,000 scenarios costs anyway. Each scenario has three
// steps and a 30 KB screenshot; the blobs are written once with the blob reporter's own writer, then each
// side is merged into a fresh output directory by a real `bcs merge-reports` process (html, junit and json),
// the sides alternating, after one warm-up each.
//   node runner/build.mjs && node dist/bench/merge-reports.js [--shards 10] [--per-shard 100] [--rounds 5] [--json]
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pkg from '../package.json' with { type: 'json' };
import { blobFileName, fingerprintOf, writeBlob, type BlobManifest, type BlobRef } from '../runner/reporters/blob-archive.js';
import type { ScenarioResult } from '../runner/reporters/results.js';
import { compileScenario, loadScenarioSource } from '../src/scenario/index.js';
import { machine, printReport, ratio } from './report.js';
import { summarize } from './stats.js';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const SHARDS = arg('--shards', 10);
const PER_SHARD = arg('--per-shard', 100);
const ROUNDS = arg('--rounds', 5);
const TOTAL = SHARDS * PER_SHARD;
const load_at_start = loadavg().map((l) => Math.round(l * 100) / 100);
const bcs = fileURLToPath(new URL('../../runner/bcs.js', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'bcs-bench-merge-'));

const names = Array.from({ length: TOTAL }, (_, i) => `scenario ${String(i).padStart(4, '0')}`);
const fileOf = (i: number) => `suite/s${String(i).padStart(4, '0')}.yaml`;
const selection: BlobRef[] = names.map((name, i) => ({ file: fileOf(i), path: fileOf(i), name }));
const suite = { selection, before: [], after: [] };
const plans = names.map((name, i) =>
  compileScenario(loadScenarioSource(fileOf(i), `name: "${name}"\nsteps:\n  - goto: "data:text/html,<h1>${i}</h1>"\n  - screenshot: page\n  - expect: { text: "${i}" }\n`)),
);

function resultOf(i: number): ScenarioResult {
  const artifactDir = `s${String(i).padStart(4, '0')}`;
  const file = fileOf(i);
  const step = (index: number, kind: string, line: number) => ({
    index, phase: 'main', kind, name: kind, source: { file, line, col: 5 }, status: 'passed', duration_ms: 20, request_ids: [], artifacts: [],
  });
  const steps = [step(0, 'goto', 3), { ...step(1, 'screenshot', 4), artifacts: [{ type: 'screenshot', path: `${artifactDir}/page.png` }] }, step(2, 'expect', 5)];
  return {
    name: names[i]!, file, tags: [], status: i % 50 === 7 ? 'failed' : 'passed', interrupted: false,
    started_at: '2030-01-01T00:00:00.000Z', duration_ms: 300, artifact_dir: artifactDir, steps,
  } as unknown as ScenarioResult;
}

/** Writes the blob of scenarios [from, to) as shard index/total, with each scenario's artifact files. */
async function blob(into: string, index: number, total: number, from: number, to: number): Promise<void> {
  const out = join(into, `out-${index}`);
  const scenarios: ScenarioResult[] = [];
  const files: string[] = [];
  for (let i = from; i < to; i++) {
    const r = resultOf(i);
    await mkdir(join(out, r.artifact_dir!), { recursive: true });
    await writeFile(join(out, r.artifact_dir!, '.bcs-artifacts'), '');
    await writeFile(join(out, r.artifact_dir!, 'page.png'), randomBytes(30_000));
    files.push(`${r.artifact_dir}/.bcs-artifacts`, `${r.artifact_dir}/page.png`);
    scenarios.push(r);
  }
  const manifest: BlobManifest = {
    format: 'bcs-blob', format_version: 1, bcs_version: pkg.version,
    run: { id: 'bench-merge', from: 'BCS_RUN_ID' }, shard: { index, total }, fingerprint: fingerprintOf(suite), suite,
    plans: plans.slice(from, to), workers: 4, retries: 0,
    result: {
      version: 1, started_at: '2030-01-01T00:00:00.000Z', duration_ms: 60_000, target: { kind: 'remote', base_url: 'http://127.0.0.1:9' },
      scenarios, summary: { total: 0, passed: 0, failed: 0, errored: 0, flaky: 0, timed_out: 0, skipped: 0 }, shard: { index, total },
    },
    files,
  };
  await writeBlob(join(into, blobFileName({ index, total })), manifest, out);
  await rm(out, { recursive: true, force: true });
}

const sharded = join(dir, 'sharded');
const whole = join(dir, 'whole');
for (let s = 0; s < SHARDS; s++) await blob(sharded, s + 1, SHARDS, s * PER_SHARD, (s + 1) * PER_SHARD);
await blob(whole, 1, 1, 0, TOTAL);

const run = promisify(execFile);
async function merge(from: string, round: number): Promise<number> {
  const out = join(dir, `merged-${round}-${from === sharded ? 'sharded' : 'whole'}`);
  const started = performance.now();
  // Exit 1: the scenarios made to fail (the report is written either way).
  await run(process.execPath, [bcs, 'merge-reports', from, '--reporter', 'html,junit,json', '--output-dir', out], { cwd: dir, maxBuffer: 64 * 2 ** 20 }).catch((err: { code?: number; stderr?: string }) => {
    if (err.code !== 1) throw new Error(`merge-reports exited ${err.code}: ${err.stderr}`);
  });
  const ms = performance.now() - started;
  await rm(out, { recursive: true, force: true });
  return ms;
}
const times = { sharded: [] as number[], whole: [] as number[] };
for (let i = 0; i < ROUNDS + 1; i++) {
  const order = i % 2 ? (['whole', 'sharded'] as const) : (['sharded', 'whole'] as const);
  for (const side of order) {
    const ms = await merge(side === 'sharded' ? sharded : whole, i);
    if (i > 0) times[side].push(ms);
  }
}
await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const s = { sharded: summarize(times.sharded), whole: summarize(times.whole) };
const result = {
  benchmark: 'merge-reports',
  date: new Date().toISOString(),
  machine: { ...machine(), load_at_start },
  shards: SHARDS,
  scenarios_per_shard: PER_SHARD,
  rounds: ROUNDS,
  sharded_ms: s.sharded,
  one_blob_ms: s.whole,
  ratio_p50: ratio(s.sharded.p50, s.whole.p50),
};
printReport(
  result,
  `merge-reports: ${SHARDS} shards of ${PER_SHARD} scenarios (3 steps, a 30 KB screenshot each) vs the same ${TOTAL} in one blob; html, junit and json; ${ROUNDS} rounds a side; load at start ${load_at_start.join(' ')}`,
  [
    [`bcs merge-reports, ${SHARDS} blobs`, s.sharded],
    ['bcs merge-reports, 1 blob', s.whole],
  ],
  `${SHARDS} shards / one blob p50 ${result.ratio_p50}x (${s.sharded.p50} vs ${s.whole.p50} ms, the process's start included).`,
);
