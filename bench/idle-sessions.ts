// Benchmark: how many idle headless sessions one `bcs serve` holds, and what each costs. Sessions are
// created one by one on a real `bcs serve` (its own process, as a team runs it) until --max, or until the
// machine's available memory falls under --reserve-mib. Every --step sessions the benchmark reads the
// proportional set size (PSS: shared pages divided among their users, so the sum is what the sessions
// really take) of every process below the service, and the service's own RSS. Baseline, in the same run:
// the same Chromium launched directly, idle, measured the same way (what one browser costs by itself).
//   node dist/bench/idle-sessions.js [--max 300] [--step 25] [--reserve-mib 2048] [--json]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { CloudClient } from '../src/api/client.js';
import { chromiumArgs } from '../src/service/host/browser/chromium.js';
import { findChromium } from '../src/service/host/browser/chromium-path.js';
import { machine } from './report.js';

const argValue = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const max = argValue('--max', 300);
const step = argValue('--step', 25);
const reserveMib = argValue('--reserve-mib', 2048);
const json = process.argv.includes('--json');

/** Every process below `root` (not `root` itself), from /proc's parent links. */
async function descendants(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The command name may hold spaces and parentheses: the fields after its last ')' are reliable.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(entry), ppid);
  }
  const below = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  return [...parents.keys()].filter(below);
}

async function kib(pid: number, file: 'smaps_rollup' | 'status', field: string): Promise<number> {
  const text = await readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => '');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

const pssOf = async (pids: number[]) => (await Promise.all(pids.map((p) => kib(p, 'smaps_rollup', 'Pss')))).reduce((a, b) => a + b, 0);
const availableMib = async () => Math.floor(Number(/MemAvailable:\s+(\d+)/.exec(await readFile('/proc/meminfo', 'utf8'))![1]) / 1024);
const mib = (k: number) => Math.round((k / 1024) * 10) / 10;
const settle = () => new Promise((r) => setTimeout(r, 2000));

// Baseline: one idle Chromium of our own, same binary and flags, no service.
const chromium = await findChromium(process.env.BCS_CHROMIUM);
const baseDir = await mkdtemp(join(tmpdir(), 'bcs-idle-base-'));
const base = spawn(chromium.path, chromiumArgs(chromium, { userDataDir: baseDir, headless: true, viewport: { width: 1920, height: 1080 } } as Parameters<typeof chromiumArgs>[1]), { stdio: 'ignore', detached: true });
await settle();
const basePss = await pssOf([base.pid!, ...(await descendants(base.pid!))]);
process.kill(-base.pid!, 'SIGKILL');
await rm(baseDir, { recursive: true, force: true });

// The service, as `bcs serve` runs it.
const dataDir = await mkdtemp(join(tmpdir(), 'bcs-idle-'));
const apiKey = `bcs_${randomBytes(32).toString('base64url')}`;
const serve: ChildProcess = spawn(process.execPath, ['runner/bcs.js', 'serve', '--port', '0', '--data-dir', dataDir, '--standby', '0', '--log-level', 'silent'], {
  env: { ...process.env, BCS_API_KEY: apiKey },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const baseUrl = await new Promise<string>((resolve, reject) => {
  serve.once('exit', (code) => reject(new Error(`bcs serve exited ${code}`)));
  createInterface({ input: serve.stdout! }).on('line', (line) => {
    if (line.startsWith('BCS_BASE_URL=')) resolve(line.slice('BCS_BASE_URL='.length));
  });
});
const client = new CloudClient({ baseUrl, apiKey });
const serviceRss = async () => kib(serve.pid!, 'status', 'VmRSS');

const points: { sessions: number; pss_per_session_mib: number; sessions_pss_mib: number; service_rss_mib: number; available_mib: number }[] = [];
const idle = { service_rss_mib: mib(await serviceRss()) };
let count = 0;
let stopped = `reached --max ${max}`;
try {
  while (count < max) {
    if ((await availableMib()) < reserveMib) {
      stopped = `available memory under ${reserveMib} MiB`;
      break;
    }
    await client.request('POST', '/browsers', { body: { headless: true, timeout_seconds: 259200 } });
    count++;
    if (count % step === 0 || count === max) {
      await settle();
      const pss = await pssOf(await descendants(serve.pid!));
      points.push({ sessions: count, pss_per_session_mib: mib(pss / count), sessions_pss_mib: mib(pss), service_rss_mib: mib(await serviceRss()), available_mib: await availableMib() });
      if (!json) process.stderr.write(`${JSON.stringify(points.at(-1))}\n`);
    }
  }
} catch (err) {
  stopped = `a create failed: ${(err as Error).message}`;
} finally {
  serve.kill('SIGTERM');
  await new Promise((r) => serve.once('exit', r));
  await rm(dataDir, { recursive: true, force: true });
}

const result = { machine: machine(), chromium: chromium.path, baseline_chromium_pss_mib: mib(basePss), idle_service: idle, sessions: count, stopped, points };
if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  const lines = [
    `idle-sessions: ${count} idle sessions on one bcs serve (${stopped}); Chromium ${chromium.path}`,
    `baseline: one idle Chromium launched directly, ${result.baseline_chromium_pss_mib} MiB PSS; the service alone ${idle.service_rss_mib} MiB RSS`,
    '',
    '| sessions | PSS per session (MiB) | all sessions (MiB) | service RSS (MiB) | available (MiB) |',
    '|---|---|---|---|---|',
    ...points.map((p) => `| ${p.sessions} | ${p.pss_per_session_mib} | ${p.sessions_pss_mib} | ${p.service_rss_mib} | ${p.available_mib} |`),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
