// Benchmark: a CDP client through the service's authenticated proxy (which reads client commands whole
// to keep downloads in the session) against the same client connected straight to Chromium. Same
// session and tab, interleaved: a small command's round trip and a screenshot (a large answer).
//   node dist/bench/cdp-proxy.js [--runs 300] [--json]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CdpConnection } from '../src/service/host/browser/cdp-connection.js';
import { startService } from '../src/service/index.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { summarize } from './stats.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 300;
const shotRuns = Math.max(10, Math.round(runs / 10));

// Random pixels do not compress: the screenshot's answer is megabytes, many TCP reads to reassemble.
const NOISE_PAGE = `<canvas id=c width=1280 height=800></canvas><script>
const x = c.getContext('2d'); const img = x.createImageData(1280, 800);
for (let i = 0; i < img.data.length; i++) img.data[i] = (i & 3) === 3 ? 255 : Math.random() * 256;
x.putImageData(img, 0, 0);</script>`;

const LARGE_COMMAND = `${JSON.stringify('x'.repeat(512 * 1024))}.length`;

const dataDir = await mkdtemp(join(tmpdir(), 'bcs-bench-'));
const service = await startService({ dataDir, logLevel: 'silent', networkPolicy: 'local', standby: 0 });
const created = await fetch(`${service.baseUrl}/browsers`, {
  method: 'POST',
  headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
  body: JSON.stringify({ viewport: { width: 1280, height: 800 }, start_url: `data:text/html,${encodeURIComponent(NOISE_PAGE)}` }),
});
const { session_id, cdp_ws_url } = (await created.json()) as { session_id: string; cdp_ws_url: string };

async function attach(url: string) {
  const cdp = await CdpConnection.connect(url);
  const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string }[] }>('Target.getTargets');
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: targetInfos.find((t) => t.type === 'page')!.targetId, flatten: true });
  return {
    cdp,
    evaluate: () => cdp.send('Runtime.evaluate', { expression: '1 + 1' }, sessionId),
    screenshot: () => cdp.send('Page.captureScreenshot', { format: 'png' }, sessionId),
    // Half a megabyte out, as Playwright's injected script goes to every new page.
    large: () => cdp.send('Runtime.evaluate', { expression: LARGE_COMMAND }, sessionId),
  };
}
const proxied = await attach(cdp_ws_url);
const direct = await attach(service.sessions.get(session_id)!.chromium.wsEndpoint);

const viaProxy: number[] = [];
const straight: number[] = [];
for (let i = 0; i < runs + 20; i++) {
  const p = await timeIt(proxied.evaluate);
  const d = await timeIt(direct.evaluate);
  if (i >= 20) viaProxy.push(p), straight.push(d);
}
const shotProxy: number[] = [];
const shotDirect: number[] = [];
let shotBytes = 0;
for (let i = 0; i < shotRuns + 2; i++) {
  const p = await timeIt(async () => (shotBytes = ((await proxied.screenshot()) as { data: string }).data.length));
  const d = await timeIt(direct.screenshot);
  if (i >= 2) shotProxy.push(p), shotDirect.push(d);
}
const largeProxy: number[] = [];
const largeDirect: number[] = [];
for (let i = 0; i < shotRuns + 2; i++) {
  const p = await timeIt(proxied.large);
  const d = await timeIt(direct.large);
  if (i >= 2) largeProxy.push(p), largeDirect.push(d);
}

proxied.cdp.close();
direct.cdp.close();
await service.close();
await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const s = { viaProxy: summarize(viaProxy), straight: summarize(straight), shotProxy: summarize(shotProxy), shotDirect: summarize(shotDirect), largeProxy: summarize(largeProxy), largeDirect: summarize(largeDirect) };
const result = {
  benchmark: 'cdp-proxy',
  date: new Date().toISOString(),
  machine: machine(),
  chromium: { path: service.chromium.path, source: service.chromium.source },
  runs,
  screenshot_runs: shotRuns,
  screenshot_base64_bytes: shotBytes,
  proxied_evaluate_ms: s.viaProxy,
  direct_evaluate_ms: s.straight,
  evaluate_overhead_p50_ms: Math.round((s.viaProxy.p50 - s.straight.p50) * 100) / 100,
  proxied_screenshot_ms: s.shotProxy,
  direct_screenshot_ms: s.shotDirect,
  screenshot_ratio_p50: ratio(s.shotProxy.p50, s.shotDirect.p50),
  proxied_large_command_ms: s.largeProxy,
  direct_large_command_ms: s.largeDirect,
  large_command_ratio_p50: ratio(s.largeProxy.p50, s.largeDirect.p50),
};
printReport(
  result,
  `cdp-proxy: ${runs} interleaved Runtime.evaluate round trips, ${shotRuns} interleaved screenshots (${shotBytes} base64 bytes); chromium ${result.chromium.source}`,
  [
    ['through the proxy: Runtime.evaluate', s.viaProxy],
    ['straight to Chromium: Runtime.evaluate', s.straight],
    ['through the proxy: Page.captureScreenshot', s.shotProxy],
    ['straight to Chromium: Page.captureScreenshot', s.shotDirect],
    ['through the proxy: a 512 KB Runtime.evaluate', s.largeProxy],
    ['straight to Chromium: a 512 KB Runtime.evaluate', s.largeDirect],
  ],
  `evaluate overhead p50: +${result.evaluate_overhead_p50_ms} ms; screenshot proxy / direct p50: ${result.screenshot_ratio_p50}x; 512 KB command: ${result.large_command_ratio_p50}x`,
);
