// Benchmark: computer controls through the API against the same input sent straight over CDP, on the
// same session and page. A click is mouseMoved + mousePressed + mouseReleased either way.
//   node dist/bench/computer-latency.js [--runs 200] [--json]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CdpConnection } from '../src/service/host/browser/cdp-connection.js';
import { startService } from '../src/service/index.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { summarize } from './stats.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 200;
const batchRuns = Math.max(10, Math.round(runs / 10));

const dataDir = await mkdtemp(join(tmpdir(), 'bcs-bench-'));
const service = await startService({ dataDir, logLevel: 'silent', networkPolicy: 'local' });
const headers = { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' };
const created = await fetch(`${service.baseUrl}/browsers`, {
  method: 'POST',
  headers,
  body: JSON.stringify({ viewport: { width: 1280, height: 800 }, start_url: 'data:text/html,<body style="height:2000px">bench</body>' }),
});
const { session_id } = (await created.json()) as { session_id: string };
const api = (path: string, body: unknown) =>
  fetch(`${service.baseUrl}/browsers/${session_id}/computer/${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then(async (r) => {
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  });

// The baseline: our own CDP connection to the same browser, attached to the same tab.
const cdp = await CdpConnection.connect(service.sessions.get(session_id)!.chromium.wsEndpoint);
const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string }[] }>('Target.getTargets');
const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: targetInfos.find((t) => t.type === 'page')!.targetId, flatten: true });
const directClick = async (x: number, y: number) => {
  await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, buttons: 0 }, sessionId);
  await cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: 1 }, sessionId);
  await cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', buttons: 0, clickCount: 1 }, sessionId);
};


await api('click_mouse', { x: 1, y: 1 }); // first use attaches the session's input backend
const apiClick: number[] = [];
const cdpClick: number[] = [];
for (let i = 0; i < runs + 10; i++) {
  const x = 100 + (i % 500);
  const a = await timeIt(() => api('click_mouse', { x, y: 300 }));
  const d = await timeIt(() => directClick(x, 301));
  if (i >= 10) apiClick.push(a), cdpClick.push(d);
}

const actions = Array.from({ length: 100 }, (_, i) => ({ type: 'click_mouse', click_mouse: { x: 100 + i * 5, y: 400 } }));
const apiBatch: number[] = [];
const cdpBatch: number[] = [];
for (let i = 0; i < batchRuns + 2; i++) {
  const a = await timeIt(() => api('batch', { actions }));
  const d = await timeIt(async () => {
    for (const action of actions) await directClick(action.click_mouse.x, 401);
  });
  if (i >= 2) apiBatch.push(a), cdpBatch.push(d);
}

cdp.close();
await service.close();
await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const s = { apiClick: summarize(apiClick), cdpClick: summarize(cdpClick), apiBatch: summarize(apiBatch), cdpBatch: summarize(cdpBatch) };
const result = {
  benchmark: 'computer-latency',
  date: new Date().toISOString(),
  machine: machine(),
  chromium: { path: service.chromium.path, source: service.chromium.source },
  runs,
  batch_runs: batchRuns,
  api_click_ms: s.apiClick,
  direct_cdp_click_ms: s.cdpClick,
  click_overhead_p50_ms: Math.round((s.apiClick.p50 - s.cdpClick.p50) * 10) / 10,
  api_batch_100_ms: s.apiBatch,
  direct_cdp_100_clicks_ms: s.cdpBatch,
  batch_ratio_p50: ratio(s.apiBatch.p50, s.cdpBatch.p50),
};
printReport(
  result,
  `computer-latency: ${runs} interleaved clicks, ${batchRuns} interleaved batches; chromium ${result.chromium.source} (${result.chromium.path})`,
  [
    ['API click_mouse', s.apiClick],
    ['direct CDP click (move+press+release)', s.cdpClick],
    ['API batch of 100 clicks', s.apiBatch],
    ['direct CDP, 100 clicks', s.cdpBatch],
  ],
  `click overhead p50: +${result.click_overhead_p50_ms} ms (goal <= +2 ms); batch / direct p50: ${result.batch_ratio_p50}x (goal <= 1.2x)`,
);
