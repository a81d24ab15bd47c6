// Benchmark: how many idle headless sessions one `bcs serve` holds, and what each costs. Sessions are
// created one by one on a real `bcs serve` (its own process, as a team runs it) until --max, or until the
// machine's available memory falls under --reserve-mib. Every --step sessions the benchmark reads the
// proportional set size (PSS: shared pages divided among their users, so the sum is what the sessions
// really take) of every process below the service, each session's browser apart, and the service's own
// RSS. Baseline, in the same run and interleaved with it: the executable the service runs a plain headless
// session on (the headless shell when there is one, executables.ts), launched directly with the same flags,
// idle: once alone before the service starts, then at every step next to the sessions, measured in the
// same snapshot as they are (so both split their shared pages among the same number of users).
// PSS leaves out what the kernel keeps for each session (page tables, kernel stacks, namespaces, sockets):
// the machine's available memory is what runs out, so each step also reads how much of it the sessions
// took, and from that how many would fit on the machine leaving --headroom-mib free.
//   node dist/bench/idle-sessions.js [--max 300] [--step 25] [--reserve-mib 2048] [--headroom-mib 1024] [--json]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { CloudClient } from '../src/api/client.js';
import { chromiumArgs } from '../src/service/host/browser/chromium.js';
import { findChromium, findHeadlessShell } from '../src/service/host/browser/chromium-path.js';
import { machine, ratio } from './report.js';
import { summarize } from './stats.js';

const argValue = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const max = argValue('--max', 300);
const step = argValue('--step', 25);
const reserveMib = argValue('--reserve-mib', 2048);
const headroomMib = argValue('--headroom-mib', 1024);
const json = process.argv.includes('--json');

/** Every process's parent, from /proc. */
async function parentLinks(): Promise<Map<number, number>> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The command name may hold spaces and parentheses: the fields after its last ')' are reliable.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(entry), ppid);
  }
  return parents;
}

/** Every process below `root` (not `root` itself). */
function descendants(parents: Map<number, number>, root: number): number[] {
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
/** /proc/meminfo: what is available, and what the kernel keeps for processes outside their own pages (KiB). */
async function memInfo(): Promise<{ available: number; kernel: number }> {
  const text = await readFile('/proc/meminfo', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { available: field('MemAvailable'), kernel: field('PageTables') + field('KernelStack') + field('SUnreclaim') };
}
const availableMib = async () => Math.floor((await memInfo()).available / 1024);
const mib = (k: number) => Math.round((k / 1024) * 10) / 10;
const settle = () => new Promise((r) => setTimeout(r, 2000));
const exeOf = (pid: number) => readlink(`/proc/${pid}/exe`).catch(() => '');

// What the service launches for `POST /browsers {headless: true}`: it finds the two executables this way
// (service.ts) and runs a plain headless browser on the shell when there is one (executables.ts).
const chromium = await findChromium(process.env.BCS_CHROMIUM);
const shell = await findHeadlessShell(chromium, process.env.BCS_HEADLESS_SHELL);
const exe = shell ?? chromium;

/** Each session's browser: a process running `exe` whose parent does not, with all below it. */
function browsersOf(parents: Map<number, number>, exes: Map<number, string>, pids: number[]): number[][] {
  const tops = pids.filter((p) => exes.get(p) === exe.path && exes.get(parents.get(p)!) !== exe.path);
  return tops.map((top) => [top, ...descendants(parents, top)]);
}

/**
 * The session's helpers, by what runs below them: each bwrap is either the browser's sandbox or the holder
 * of the session's network namespace (whose socat processes bridge it), and the two look alike otherwise.
 */
function helperRoles(parents: Map<number, number>, exes: Map<number, string>): Map<number, string> {
  const roles = new Map<number, string>();
  for (const [pid, exePath] of exes) {
    const what = exePath.includes('chrom') ? 'sandbox' : basename(exePath) === 'socat' ? 'network' : null;
    if (!what) continue;
    if (what === 'network') roles.set(pid, 'network: socat');
    for (let p = parents.get(pid); p !== undefined && exes.has(p); p = parents.get(p)) {
      if (basename(exes.get(p)!) === 'bwrap') roles.set(p, `${what}: bwrap`);
    }
  }
  return roles;
}

/**
 * What a process below the service is, for the breakdown: a Chromium process by its `--type` (the browser
 * itself when it has none; a utility by its service), a helper by `helpers`, else its executable's name.
 */
async function roleOf(pid: number, exePath: string, helpers: Map<number, string>): Promise<string> {
  const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replace(/\0/g, ' ');
  if (exePath.includes('chrom')) {
    const type = /--type=(\S+)/.exec(cmdline)?.[1];
    if (!type) return 'chromium: browser';
    if (type === 'utility') return `chromium: utility ${/--utility-sub-type=(\S+)/.exec(cmdline)?.[1]?.split('.').pop() ?? '?'}`;
    return `chromium: ${type}${type === 'zygote' && cmdline.includes('--no-zygote-sandbox') ? ' (unsandboxed)' : ''}`;
  }
  return helpers.get(pid) ?? (basename(exePath) || 'unknown');
}

interface RoleShare {
  /** Processes of this kind per session. */
  processes: number;
  pss_mib: number;
  /** Anonymous memory is each session's own; file pages (Chromium's code) are shared by all sessions. */
  pss_anon_mib: number;
}

/** Per session by role, largest first. */
async function breakdown(pids: number[], parents: Map<number, number>, exes: Map<number, string>, sessions: number): Promise<Record<string, RoleShare>> {
  const helpers = helperRoles(parents, exes);
  const byRole = new Map<string, { n: number; pss: number; anon: number }>();
  await Promise.all(
    pids.map(async (p) => {
      const [role, pss, anon] = await Promise.all([roleOf(p, exes.get(p) ?? '', helpers), kib(p, 'smaps_rollup', 'Pss'), kib(p, 'smaps_rollup', 'Pss_Anon')]);
      const sum = byRole.get(role) ?? { n: 0, pss: 0, anon: 0 };
      byRole.set(role, { n: sum.n + 1, pss: sum.pss + pss, anon: sum.anon + anon });
    }),
  );
  const share = ({ n, pss, anon }: { n: number; pss: number; anon: number }): RoleShare => ({
    processes: Math.round((n / sessions) * 100) / 100,
    pss_mib: mib(pss / sessions),
    pss_anon_mib: mib(anon / sessions),
  });
  return Object.fromEntries([...byRole].sort((a, b) => b[1].pss - a[1].pss).map(([role, sum]) => [role, share(sum)]));
}

/** One idle browser launched directly (the baseline), its tree's PSS read by `measure` while it runs. */
async function withBaseline<T>(measure: (baseline: number[]) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'bcs-idle-base-'));
  const opts = { userDataDir: dir, headless: true, viewport: { width: 1920, height: 1080 } } as Parameters<typeof chromiumArgs>[1];
  const base = spawn(exe.path, chromiumArgs(exe, opts), { stdio: 'ignore', detached: true });
  try {
    await settle();
    return await measure([base.pid!, ...descendants(await parentLinks(), base.pid!)]);
  } finally {
    process.kill(-base.pid!, 'SIGKILL');
    await new Promise((r) => (base.exitCode === null && base.signalCode === null ? base.once('exit', r) : r(null)));
    await rm(dir, { recursive: true, force: true });
  }
}

const baselineAlone = await withBaseline(async (pids) => ({ pss: await pssOf(pids), exe: await exeOf(pids[0]!) }));
if (baselineAlone.exe !== exe.path) throw new Error(`the baseline ran ${baselineAlone.exe}, not ${exe.path}`);

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

interface Point {
  sessions: number;
  /** PSS of everything below the service, divided by the sessions. */
  pss_per_session_mib: number;
  /** One session's browser (its process tree), over the sessions: median and p99. */
  browser_pss_p50_mib: number;
  browser_pss_p99_mib: number;
  /** What is not a browser (sandbox and network holders), per session. */
  other_pss_per_session_mib: number;
  sessions_pss_mib: number;
  /** The baseline browser launched directly, measured in the same snapshot. */
  baseline_pss_mib: number;
  /** A session's browser (median) over the baseline browser. */
  browser_ratio: number;
  /** All of a session's cost over the baseline browser. */
  session_ratio: number;
  service_rss_mib: number;
  available_mib: number;
  /** The machine's available memory the sessions took since the service was idle, per session. */
  available_per_session_mib: number;
  /** Of that, the kernel's page tables, kernel stacks and unreclaimable slab (namespaces, sockets, ...). */
  kernel_per_session_mib: number;
  /** Sessions the machine would hold at this cost, leaving --headroom-mib available. */
  fit: number;
  /** Per session, by what each process is (Chromium's by type, the sandbox's, the network holder's). */
  by_role: Record<string, RoleShare>;
}
const points: Point[] = [];
const idleMem = await memInfo();
const idle = { service_rss_mib: mib(await serviceRss()), available_mib: mib(idleMem.available) };
let count = 0;
let stopped = `reached --max ${max}`;
const sessionExes = new Set<string>();
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
      // Before the baseline browser starts: it is not the sessions' memory.
      const mem = await memInfo();
      const perSession = (idleMem.available - mem.available) / count;
      const point = await withBaseline(async (baseline) => {
        const parents = await parentLinks();
        const below = descendants(parents, serve.pid!);
        const exes = new Map(await Promise.all(below.map(async (p) => [p, await exeOf(p)] as const)));
        for (const p of below) if (exes.get(p)?.includes('chrom')) sessionExes.add(exes.get(p)!);
        const browsers = await Promise.all(browsersOf(parents, exes, below).map((tree) => pssOf(tree)));
        if (browsers.length !== count) throw new Error(`found ${browsers.length} browsers running ${exe.path} below the service, not ${count}`);
        const [all, base] = await Promise.all([pssOf(below), pssOf(baseline)]);
        const b = summarize(browsers);
        return {
          sessions: count,
          pss_per_session_mib: mib(all / count),
          browser_pss_p50_mib: mib(b.p50),
          browser_pss_p99_mib: mib(b.p99),
          other_pss_per_session_mib: mib((all - browsers.reduce((x, y) => x + y, 0)) / count),
          sessions_pss_mib: mib(all),
          baseline_pss_mib: mib(base),
          browser_ratio: ratio(b.p50, base),
          session_ratio: ratio(all / count, base),
          service_rss_mib: mib(await serviceRss()),
          available_mib: mib(mem.available),
          available_per_session_mib: mib(perSession),
          kernel_per_session_mib: mib((mem.kernel - idleMem.kernel) / count),
          fit: Math.floor((idleMem.available / 1024 - headroomMib) / (perSession / 1024)),
          by_role: await breakdown(below, parents, exes, count),
        };
      });
      points.push(point);
      if (!json) process.stderr.write(`${JSON.stringify(point)}\n`);
    }
  }
} catch (err) {
  stopped = `a create failed: ${(err as Error).message}`;
} finally {
  serve.kill('SIGTERM');
  await new Promise((r) => serve.once('exit', r));
  await rm(dataDir, { recursive: true, force: true });
}

const result = {
  machine: machine(),
  executable: exe.path,
  session_executables: [...sessionExes],
  baseline_alone_pss_mib: mib(baselineAlone.pss),
  idle_service: idle,
  sessions: count,
  stopped,
  points,
};
if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  const lines = [
    `idle-sessions: ${count} idle sessions on one bcs serve (${stopped}); sessions and baseline run ${exe.path} (sessions ran: ${[...sessionExes].join(', ')})`,
    `baseline: one idle browser launched directly, alone ${result.baseline_alone_pss_mib} MiB PSS; the service alone ${idle.service_rss_mib} MiB RSS; ${idle.available_mib} MiB available before the first session; fit: sessions the machine would hold at each step's cost per session, leaving ${headroomMib} MiB available`,
    '',
    '| sessions | PSS per session (MiB) | browser p50 / p99 (MiB) | other per session (MiB) | baseline beside them (MiB) | browser / baseline | session / baseline | service RSS (MiB) | available taken per session (MiB) | of it kernel (MiB) | available (MiB) | fit |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...points.map(
      (p) =>
        `| ${p.sessions} | ${p.pss_per_session_mib} | ${p.browser_pss_p50_mib} / ${p.browser_pss_p99_mib} | ${p.other_pss_per_session_mib} | ${p.baseline_pss_mib} | ${p.browser_ratio} | ${p.session_ratio} | ${p.service_rss_mib} | ${p.available_per_session_mib} | ${p.kernel_per_session_mib} | ${p.available_mib} | ${p.fit} |`,
    ),
    '',
    `Per session at ${points.at(-1)?.sessions ?? 0} sessions, by process:`,
    '',
    '| process | processes | PSS (MiB) | of it anonymous (MiB) |',
    '|---|---|---|---|',
    ...Object.entries(points.at(-1)?.by_role ?? {}).map(([role, r]) => `| ${role} | ${r.processes} | ${r.pss_mib} | ${r.pss_anon_mib} |`),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
