// Benchmark: what a network of its own costs a session. Two services on the same Chromium, one giving each
// sandboxed session its own network namespace (bridged by socat to its egress proxy), one where sessions
// share the host's network (the egress proxy on a loopback port): cold POST /browsers, a page load of a
// site on this host through the egress proxy, and a CDP round trip through the service's proxy. Interleaved.
//   node runner/build.mjs && node dist/bench/session-network.js [--runs 20] [--json]
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startService, type RunningService } from '../src/service/index.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { summarize } from './stats.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 20;
const WARMUP = 2;

const site = http.createServer((_req, res) => res.end('<title>t</title><p>hello</p>')).listen(0, '127.0.0.1');
await new Promise((r) => site.once('listening', r));
const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;

async function start(sessionNetworks: boolean) {
  const dataDir = await mkdtemp(join(tmpdir(), 'bcs-bench-'));
  const service = await startService({ dataDir, logLevel: 'silent', networkPolicy: 'local', standby: 0, sessionNetworks });
  return { service, dataDir };
}

async function cycle(service: RunningService) {
  const headers = { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' };
  let body: { session_id: string; cdp_ws_url: string } | undefined;
  const create = await timeIt(async () => {
    const res = await fetch(`${service.baseUrl}/browsers`, { method: 'POST', headers, body: '{"headless":true}' });
    if (res.status !== 200) throw new Error(`create failed: ${res.status} ${await res.text()}`);
    body = (await res.json()) as typeof body;
  });
  const browser = await chromium.connectOverCDP(body!.cdp_ws_url);
  const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
  const load = await timeIt(() => page.goto(url));
  const cdp = await page.context().newCDPSession(page);
  const roundTrip = await timeIt(() => cdp.send('Runtime.evaluate', { expression: '1+1' }));
  await browser.close();
  await fetch(`${service.baseUrl}/browsers/${body!.session_id}`, { method: 'DELETE', headers });
  return { create, load, roundTrip };
}

const own = await start(true);
const shared = await start(false);
if (!own.service.sandbox?.network) throw new Error(`sessions get no network of their own here: ${own.service.sandbox?.networkReason ?? own.service.sandboxReason}`);
const samples = { own: { create: [] as number[], load: [] as number[], rt: [] as number[] }, shared: { create: [] as number[], load: [] as number[], rt: [] as number[] } };
for (let i = 0; i < WARMUP + runs; i++) {
  for (const [name, s] of [['own', own], ['shared', shared]] as const) {
    const r = await cycle(s.service);
    if (i < WARMUP) continue;
    samples[name].create.push(r.create);
    samples[name].load.push(r.load);
    samples[name].rt.push(r.roundTrip);
  }
}
for (const s of [own, shared]) {
  await s.service.close();
  await rm(s.dataDir, { recursive: true, force: true });
}
site.close();

const sum = (xs: number[]) => summarize(xs);
const result = {
  benchmark: 'session-network',
  date: new Date().toISOString(),
  machine: machine(),
  runs,
  own_network: { create_ms: sum(samples.own.create), page_load_ms: sum(samples.own.load), cdp_round_trip_ms: sum(samples.own.rt) },
  shared_network: { create_ms: sum(samples.shared.create), page_load_ms: sum(samples.shared.load), cdp_round_trip_ms: sum(samples.shared.rt) },
  ratio_create_p50: ratio(sum(samples.own.create).p50, sum(samples.shared.create).p50),
  ratio_load_p50: ratio(sum(samples.own.load).p50, sum(samples.shared.load).p50),
  ratio_round_trip_p50: ratio(sum(samples.own.rt).p50, sum(samples.shared.rt).p50),
};
printReport(
  result,
  `session-network: ${runs} interleaved runs, each session with a network of its own vs sharing the host's`,
  [
    ['own network: POST /browsers', result.own_network.create_ms],
    ['shared network: POST /browsers', result.shared_network.create_ms],
    ['own network: page load (site on this host)', result.own_network.page_load_ms],
    ['shared network: page load', result.shared_network.page_load_ms],
    ['own network: CDP round trip', result.own_network.cdp_round_trip_ms],
    ['shared network: CDP round trip', result.shared_network.cdp_round_trip_ms],
  ],
  `own / shared p50: create ${result.ratio_create_p50}x, page load ${result.ratio_load_p50}x, CDP round trip ${result.ratio_round_trip_p50}x`,
);
