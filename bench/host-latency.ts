// Benchmark: the process and file APIs against doing the same thing directly on the host.
// - exec: POST .../process/exec of `true` against spawning the very command line the service runs
//   (the same sandbox, identity and environment, from Launcher.plan), so the difference is the API.
// - read_file: GET .../fs/read_file of a 100 MB file against `cat` of the same file, both read to the end.
//   node dist/bench/host-latency.js [--runs 100] [--json]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Accounts } from '../src/service/host/process/accounts.js';
import { Launcher } from '../src/service/host/process/launch.js';
import { startService } from '../src/service/index.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { summarize } from './stats.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 100;
const FILE_MB = 100;
const fileRuns = 7;

const dataDir = await mkdtemp(join(tmpdir(), 'bcs-bench-'));
const service = await startService({ dataDir, logLevel: 'silent', networkPolicy: 'local' });
const headers = { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' };
const { session_id } = (await (await fetch(`${service.baseUrl}/browsers`, { method: 'POST', headers, body: '{}' })).json()) as { session_id: string };
const view = service.sessions.get(session_id)!.view;
const base = `${service.baseUrl}/browsers/${session_id}`;

const run = (file: string, args: string[], opts: object) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    child.stdout!.resume();
    child.stderr!.resume();
    child.once('error', reject);
    child.once('close', () => resolve());
  });

// exec
const plan = await new Launcher(service.sandbox, Accounts.fromHost()).plan(view, { command: 'true' }, false, 'body');
const direct = () => run(plan.file, plan.args, { env: plan.env, cwd: plan.cwd, uid: plan.uid, gid: plan.gid });
const apiExec = async () => {
  const res = await fetch(`${base}/process/exec`, { method: 'POST', headers, body: '{"command":"true"}' });
  if (res.status !== 200) throw new Error(`exec: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
};
const execApi: number[] = [];
const execDirect: number[] = [];
for (let i = 0; i < runs + 5; i++) {
  const a = await timeIt(apiExec);
  const d = await timeIt(direct);
  if (i >= 5) execApi.push(a), execDirect.push(d);
}

// read_file
const hostFile = view.hostPath('/home/kernel/big.bin');
await writeFile(hostFile, randomBytes(FILE_MB * 1024 * 1024));
const readApi: number[] = [];
const readCat: number[] = [];
for (let i = 0; i < fileRuns + 1; i++) {
  // Each side is a producer and a consumer in separate processes, the consumer discarding the bytes:
  // curl reading the API against one cat piping into another. (`cat > /dev/null` alone would be special:
  // it never copies the bytes anywhere.)
  const a = await timeIt(() => run('curl', ['-sf', '-o', '/dev/null', '-H', `authorization: Bearer ${service.apiKey}`, `${base}/fs/read_file?path=/home/kernel/big.bin`], {}));
  const d = await timeIt(() => run('sh', ['-c', `cat '${hostFile}' | cat > /dev/null`], {}));
  if (i >= 1) readApi.push(a), readCat.push(d);
}

await service.close();
await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const mbps = (ms: number) => Math.round((FILE_MB / (ms / 1000)) * 10) / 10;
const s = { execApi: summarize(execApi), execDirect: summarize(execDirect), readApi: summarize(readApi), readCat: summarize(readCat) };
const result = {
  benchmark: 'host-latency',
  date: new Date().toISOString(),
  machine: machine(),
  sandboxed: plan.sandboxed,
  runs,
  exec_api_ms: s.execApi,
  exec_direct_ms: s.execDirect,
  exec_overhead_p50_ms: Math.round((s.execApi.p50 - s.execDirect.p50) * 10) / 10,
  read_file_api_ms: s.readApi,
  read_file_cat_ms: s.readCat,
  read_file_api_mb_per_s_p50: mbps(s.readApi.p50),
  read_file_cat_mb_per_s_p50: mbps(s.readCat.p50),
  read_file_throughput_ratio_p50: ratio(s.readCat.p50, s.readApi.p50),
};
printReport(
  result,
  `host-latency: ${runs} interleaved execs (${plan.sandboxed ? 'sandboxed' : 'unsandboxed'}), ${fileRuns} interleaved reads of ${FILE_MB} MB`,
  [
    ['API process/exec `true`', s.execApi],
    ['direct spawn of the same command line', s.execDirect],
    [`API fs/read_file ${FILE_MB} MB (curl)`, s.readApi],
    [`cat | cat of the same ${FILE_MB} MB`, s.readCat],
  ],
  `exec overhead p50: +${result.exec_overhead_p50_ms} ms (goal <= +5 ms); read_file ${result.read_file_api_mb_per_s_p50} MB/s vs cat ${result.read_file_cat_mb_per_s_p50} MB/s: ${Math.round(result.read_file_throughput_ratio_p50 * 100)}% (goal >= 80%)`,
);
