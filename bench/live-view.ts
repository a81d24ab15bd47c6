// Benchmark: the live view's input-to-picture latency against the same loop done straight over CDP, on the
// same headless session and tab. One sample is a mouse press that repaints the page, timed until the first
// frame after it arrives: through the service, the press is a JSON message on the live view's WebSocket and
// the frame comes back on it; in the baseline, the benchmark's own CDP connection dispatches the press and
// receives the frame of its own screencast (both screencasts run the whole time, so both see both presses).
//   node dist/bench/live-view.js [--runs 100] [--json]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { CdpConnection } from '../src/service/host/browser/cdp-connection.js';
import { startService } from '../src/service/index.js';
import { machine, printReport, ratio } from './report.js';
import { summarize } from './stats.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 100;
/** Quiet time between samples, so each press meets a screencast that is waiting for the page to change. */
const SETTLE_MS = 150;
const PAGE = `data:text/html,${encodeURIComponent('<body style="margin:0;height:100vh" onmousedown="document.body.style.background=`hsl(${Math.random()*360} 80% 50%)`"></body>')}`;

const dataDir = await mkdtemp(join(tmpdir(), 'bcs-bench-'));
const service = await startService({ dataDir, logLevel: 'silent', networkPolicy: 'local' });
const created = await fetch(`${service.baseUrl}/browsers`, {
  method: 'POST',
  headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
  body: JSON.stringify({ viewport: { width: 1280, height: 800 }, start_url: PAGE }),
});
const session = (await created.json()) as { session_id: string; browser_live_view_url: string };

/** Resolves at the next frame a source delivers after it is armed. */
class NextFrame {
  constructor(private readonly name: string) {}
  count = 0;
  private waiter: ((at: number) => void) | undefined;
  frame(): void {
    this.count += 1;
    const w = this.waiter;
    this.waiter = undefined;
    w?.(performance.now());
  }
  arm(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      setTimeout(() => reject(new Error(`${this.name}: no frame came within 10 s of a press (${this.count} frames before)`)), 10_000).unref();
    });
  }
}

const live = new URL(session.browser_live_view_url);
const ws = new WebSocket(`ws://${live.host}/browsers/${session.session_id}/live?token=${live.searchParams.get('token')}`);
const ours = new NextFrame('live view');
ws.on('message', (_data, isBinary) => isBinary && ours.frame());
await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

const cdp = await CdpConnection.connect(service.sessions.get(session.session_id)!.chromium.wsEndpoint);
const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string }[] }>('Target.getTargets');
const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: targetInfos.find((t) => t.type === 'page')!.targetId, flatten: true });
const direct = new NextFrame('direct CDP');
cdp.on('Page.screencastFrame', (params: { sessionId: number }, from?: string) => {
  if (from !== sessionId) return;
  direct.frame();
  void cdp.send('Page.screencastFrameAck', { sessionId: params.sessionId }, sessionId).catch(() => {});
});
await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 70, maxWidth: 1280, maxHeight: 800 }, sessionId);

const press = (x: number, y: number, kind: 'down' | 'up') => {
  ws.send(JSON.stringify({ type: 'mouse', action: kind, x, y, button: 'left' }));
};
const directPress = (x: number, y: number, kind: 'down' | 'up') =>
  void cdp.send('Input.dispatchMouseEvent', { type: kind === 'down' ? 'mousePressed' : 'mouseReleased', x, y, button: 'left', buttons: kind === 'down' ? 1 : 0, clickCount: 1 }, sessionId).catch(() => {});

async function sample(arm: () => Promise<number>, send: (kind: 'down' | 'up') => unknown): Promise<number> {
  await sleep(SETTLE_MS);
  const next = arm();
  const start = performance.now();
  send('down');
  const at = await next;
  send('up');
  return at - start;
}

const viaLive: number[] = [];
const viaCdp: number[] = [];
for (let i = 0; i < runs + 5; i++) {
  const x = 100 + (i % 800);
  const a = await sample(() => ours.arm(), (kind) => press(x, 300, kind));
  const d = await sample(() => direct.arm(), (kind) => directPress(x, 400, kind));
  if (i >= 5) viaLive.push(a), viaCdp.push(d);
}

await sleep(SETTLE_MS);
ws.close();
cdp.close();
await service.close();
await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const s = { live: summarize(viaLive), cdp: summarize(viaCdp) };
const result = {
  benchmark: 'live-view',
  date: new Date().toISOString(),
  machine: machine(),
  chromium: { path: service.chromium.path, source: service.chromium.source },
  runs,
  live_view_press_to_frame_ms: s.live,
  direct_cdp_press_to_frame_ms: s.cdp,
  ratio_p50: ratio(s.live.p50, s.cdp.p50),
  overhead_p50_ms: Math.round((s.live.p50 - s.cdp.p50) * 10) / 10,
};
printReport(
  result,
  `live-view: ${runs} interleaved press-to-frame samples, headless 1280x800; chromium ${result.chromium.source} (${result.chromium.path})`,
  [
    ['live view: press on the WebSocket -> frame on it', s.live],
    ['direct CDP: Input.dispatchMouseEvent -> screencast frame', s.cdp],
  ],
  `live view / direct p50: ${result.ratio_p50}x (+${result.overhead_p50_ms} ms)`,
);
