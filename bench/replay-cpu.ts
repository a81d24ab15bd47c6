// Benchmark: CPU seconds per minute of recording, headless (CDP screencast -> ffmpeg) against headful
// (ffmpeg x11grab), on the same animated page at the same size and framerate. Read from /proc: the
// recorder's ffmpeg, and what recording adds to the browser side (Chromium's process tree, plus Xvfb
// for headful) and to the service process, each against the same stretch of time without recording.
//   node dist/bench/replay-cpu.js [--seconds 30] [--framerate 25] [--json]
import { readdir, readFile, rm, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChromium } from '../src/service/host/browser/chromium-path.js';
import { headfulSupport } from '../src/service/host/browser/xvfb.js';
import { startService } from '../src/service/index.js';
import { machine } from './report.js';

const arg = (name: string, fallback: number) => Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) || fallback;
const seconds = arg('seconds', 30);
const framerate = arg('framerate', 25);
const viewport = { width: 1280, height: 720 };
const TICK_S = 0.01; // USER_HZ is 100 on Linux

// Moves a box and repaints a counter every frame: Chromium paints at 60 fps the whole time.
const PAGE = `data:text/html,${encodeURIComponent(`<!doctype html><body style="margin:0;font:48px sans-serif">
<div id="b" style="position:absolute;top:200px;width:200px;height:200px;background:linear-gradient(#c33,#33c)"></div>
<div id="n" style="position:absolute;top:40px;left:40px"></div>
<script>let t = 0; (function f() { t++; b.style.left = (t * 6) % 1000 + 'px'; n.textContent = 'frame ' + t;
requestAnimationFrame(f); })();</script></body>`)}`;

interface Proc {
  pid: number;
  ppid: number;
  ticks: number;
  cmd: string;
}

async function processes(): Promise<Proc[]> {
  const out: Proc[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const text = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    if (!text) continue;
    // The command name is in parentheses and may hold spaces: fields are counted after the last ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const cmd = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    out.push({ pid: Number(name), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), cmd });
  }
  return out;
}

/** CPU seconds used so far by `roots` and all their descendants (alive ones). */
async function treeCpu(roots: number[]): Promise<number> {
  const all = await processes();
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  let ticks = 0;
  const seen = new Set<number>();
  const walk = (pid: number) => {
    if (seen.has(pid)) return;
    seen.add(pid);
    const self = all.find((p) => p.pid === pid);
    if (self) ticks += self.ticks;
    for (const c of children.get(pid) ?? []) walk(c.pid);
  };
  roots.forEach(walk);
  return ticks * TICK_S;
}

const serviceCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dataDir = await mkdtemp(join(tmpdir(), 'bcs-bench-'));
const service = await startService({ dataDir, logLevel: 'silent', networkPolicy: 'local' });
const headers = { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' };
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(service.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : (res.json() as Promise<any>);
};

interface Result {
  kind: 'headless' | 'headful';
  source: string;
  ffmpeg_cpu_s_per_min: number;
  /** The browser side (Chromium's tree, plus Xvfb for headful) without and with recording. */
  browser_idle_cpu_s_per_min: number;
  browser_recording_cpu_s_per_min: number;
  browser_extra_cpu_s_per_min: number;
  service_extra_cpu_s_per_min: number;
  total_cpu_s_per_min: number;
  mb_per_min: number;
}

async function measure(kind: 'headless' | 'headful'): Promise<Result> {
  const session = await api('POST', '/browsers', { headless: kind === 'headless', viewport, start_url: PAGE, timeout_seconds: 3600 });
  const live = service.sessions.get(session.session_id)!;
  await live.ready;
  const browserRoots = [live.chromium.pid, ...(live.screen ? [live.screen.pid] : [])];
  await sleep(2000); // past start-up work

  // The same stretch without recording: what the browser and service cost anyway.
  let b0 = await treeCpu(browserRoots);
  let s0 = serviceCpu();
  await sleep(seconds * 1000);
  const baseBrowser = (await treeCpu(browserRoots)) - b0;
  const baseService = serviceCpu() - s0;

  b0 = await treeCpu(browserRoots);
  s0 = serviceCpu();
  const replay = await api('POST', `/browsers/${session.session_id}/replays`, { framerate });
  const recorder = (await processes()).find((p) => p.cmd.includes(`${replay.replay_id}.rec.mp4`));
  if (!recorder) throw new Error('no ffmpeg found for the replay');
  await sleep(seconds * 1000);
  // Read before the stop: once ffmpeg exits its counters are gone.
  const ffmpeg = await treeCpu([recorder.pid]);
  const recBrowser = (await treeCpu(browserRoots)) - b0;
  const recService = serviceCpu() - s0;
  const finished = await api('POST', `/browsers/${session.session_id}/replays/${replay.replay_id}/stop`);
  const size = (await stat(join(dataDir, 'replays', `${replay.replay_id}.mp4`))).size;
  await api('DELETE', `/browsers/${session.session_id}`);

  const perMin = (cpu: number) => Math.round((cpu / seconds) * 60 * 10) / 10;
  const browserExtra = Math.max(0, recBrowser - baseBrowser);
  const serviceExtra = Math.max(0, recService - baseService);
  return {
    kind,
    source: kind === 'headless' ? 'screencast' : 'x11grab',
    ffmpeg_cpu_s_per_min: perMin(ffmpeg),
    browser_idle_cpu_s_per_min: perMin(baseBrowser),
    browser_recording_cpu_s_per_min: perMin(recBrowser),
    browser_extra_cpu_s_per_min: perMin(browserExtra),
    service_extra_cpu_s_per_min: perMin(serviceExtra),
    total_cpu_s_per_min: perMin(ffmpeg + browserExtra + serviceExtra),
    mb_per_min: Math.round((size / 2 ** 20 / (finished.duration_ms / 1000)) * 60 * 10) / 10,
  };
}

const results: Result[] = [await measure('headless')];
const headful = await headfulSupport((await findChromium(process.env.BCS_CHROMIUM)).headlessShell);
if (headful.available) results.push(await measure('headful'));
else process.stderr.write(`headful skipped: ${headful.reason}\n`);
await service.close();
await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const [hl, hf] = results;
const result = {
  benchmark: 'replay-cpu',
  date: new Date().toISOString(),
  machine: machine(),
  chromium: service.chromium.path,
  seconds,
  framerate,
  viewport,
  results,
  headless_over_headful_total: hl && hf ? Math.round((hl.total_cpu_s_per_min / hf.total_cpu_s_per_min) * 100) / 100 : null,
};
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  const lines = [
    `replay-cpu: ${seconds} s recorded per kind at ${framerate} fps, ${viewport.width}x${viewport.height}, animated page`,
    '',
    '| CPU s per minute recorded | ffmpeg | browser side: not recording / recording | service, extra | total | MB per minute |',
    '|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.kind} (${r.source}) | ${r.ffmpeg_cpu_s_per_min} | ${r.browser_idle_cpu_s_per_min} / ${r.browser_recording_cpu_s_per_min} ` +
        `(+${r.browser_extra_cpu_s_per_min}) | ${r.service_extra_cpu_s_per_min} | ${r.total_cpu_s_per_min} | ${r.mb_per_min} |`,
    ),
    '',
    result.headless_over_headful_total ? `headless / headful total: ${result.headless_over_headful_total}x` : 'headful not measured',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}
