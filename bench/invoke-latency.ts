// Benchmark: a synchronous invocation of a trivial deployed action, end to end (POST /invocations until
// its answer), against running the same function in-process. Two cases: warm (the deployment's spare
// worker has loaded since the last call: an invocation every 500 ms) and back to back (each call right
// after the previous one, so it may wait for the spare that call started).
//   node dist/bench/invoke-latency.js [--runs 100] [--json]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { startService } from '../src/service/index.js';
import { machine, printReport, ratio, timeIt } from './report.js';
import { summarize } from './stats.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 100;
const WARM_GAP_MS = 500;

const APP = "import { Kernel } from '@onkernel/sdk';\nnew Kernel().app('bench').action('echo', async (_ctx, payload) => payload);\n";
/** The same function, for the in-process baseline. */
const echo = async (_ctx: { invocation_id: string }, payload: unknown) => payload;

async function zipOf(files: Record<string, string>): Promise<Blob> {
  const zip = new yazl.ZipFile();
  for (const [path, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), path);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return new Blob([new Uint8Array(Buffer.concat(chunks))]);
}

const dataDir = await mkdtemp(join(tmpdir(), 'bcs-bench-'));
const service = await startService({ dataDir, logLevel: 'silent', networkPolicy: 'local', standby: 0 });
const auth = { authorization: `Bearer ${service.apiKey}` };
const form = new FormData();
form.append('file', await zipOf({ 'index.js': APP }), 'app.zip');
const deployment = (await (await fetch(`${service.baseUrl}/deployments`, { method: 'POST', headers: auth, body: form })).json()) as { id: string };
for (;;) {
  const d = (await (await fetch(`${service.baseUrl}/deployments/${deployment.id}`, { headers: auth })).json()) as { status: string; status_reason?: string };
  if (d.status === 'running') break;
  if (d.status === 'failed') throw new Error(`deploy failed: ${d.status_reason}`);
  await new Promise((r) => setTimeout(r, 50));
}

const payload = JSON.stringify({ n: 1, s: 'x'.repeat(100) });
const body = JSON.stringify({ app_name: 'bench', version: 'latest', action_name: 'echo', payload });
const invoke = async () => {
  const res = await fetch(`${service.baseUrl}/invocations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
  const inv = (await res.json()) as { status: string; output?: string };
  if (inv.status !== 'succeeded' || inv.output !== payload) throw new Error(`invoke: ${res.status} ${JSON.stringify(inv)}`);
};
const inProcess = async () => {
  const out = JSON.stringify(await echo({ invocation_id: 'bench' }, JSON.parse(payload)));
  if (out !== payload) throw new Error('in-process echo');
};

const warm: number[] = [];
const backToBack: number[] = [];
const local: number[] = [];
for (let i = 0; i < runs + 3; i++) {
  await new Promise((r) => setTimeout(r, WARM_GAP_MS));
  const w = await timeIt(invoke);
  const l = await timeIt(inProcess);
  const b = await timeIt(invoke);
  if (i >= 3) warm.push(w), local.push(l), backToBack.push(b);
}

await service.close();
await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });

const s = { warm: summarize(warm), backToBack: summarize(backToBack), local: summarize(local) };
const overhead = Math.round((s.warm.p50 - s.local.p50) * 10) / 10;
const result = {
  benchmark: 'invoke-latency',
  date: new Date().toISOString(),
  machine: machine(),
  sandboxed: service.sandbox !== null,
  runs,
  warm_invoke_ms: s.warm,
  back_to_back_invoke_ms: s.backToBack,
  in_process_ms: s.local,
  warm_overhead_p50_ms: overhead,
  back_to_back_vs_warm_p50: ratio(s.backToBack.p50, s.warm.p50),
};
printReport(
  result,
  `invoke-latency: ${runs} rounds (${result.sandboxed ? 'sandboxed' : 'unsandboxed'}), each a warm invoke, the function in-process, and an invoke right after`,
  [
    ['POST /invocations, warm spare', s.warm],
    ['POST /invocations, back to back', s.backToBack],
    ['the same function in-process', s.local],
  ],
  `warm invoke overhead p50: +${overhead} ms (goal <= +50 ms)`,
);
