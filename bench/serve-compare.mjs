// Two builds of `bcs serve` against each other, for changes that must not cost speed (a refactor):
// start-up (spawn until the first authenticated answer), GET /browsers and a refused POST /browsers (400),
// interleaved. Usage: node bench/serve-compare.mjs <baseline checkout> <candidate checkout> [rounds]
// (each checkout built: `node runner/build.mjs`).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const [oldRoot, newRoot, roundsArg] = process.argv.slice(2);
if (!oldRoot || !newRoot) throw new Error('usage: node bench/serve-compare.mjs <baseline checkout> <candidate checkout> [rounds]');
const builds = { old: oldRoot, new: newRoot };
const rounds = Number(roundsArg ?? 8);
const key = 'bench-key-0123456789abcdef';
async function once(root) {
  const dir = mkdtempSync(join(tmpdir(), 'bcs-bench-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(root, 'runner/bcs.js'), 'serve', '--port', '0', '--standby', '0', '--unsandboxed', '--data-dir', dir, '--log-level', 'silent'], { env: { ...process.env, BCS_API_KEY: key }, stdio: ['ignore', 'pipe', 'ignore'] });
  const base = await new Promise((res) => { let out = ''; child.stdout.on('data', (d) => { out += d; const m = /BCS_BASE_URL=(\S+)/.exec(out); if (m) res(m[1]); }); });
  const h = { authorization: `Bearer ${key}` };
  await (await fetch(`${base}/browsers`, { headers: h })).text();
  const start = performance.now() - t0;
  const lat = [];
  for (let i = 0; i < 200; i++) { const t = performance.now(); await (await fetch(`${base}/browsers?limit=5`, { headers: h })).text(); lat.push(performance.now() - t); }
  const bad = []; for (let i = 0; i < 50; i++) { const t = performance.now(); await (await fetch(`${base}/browsers`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: '{"timeout_seconds": 1}' })).text(); bad.push(performance.now() - t); }
  child.kill('SIGTERM'); await new Promise((r) => child.on('exit', r)); rmSync(dir, { recursive: true, force: true });
  return { start, lat, bad };
}
const q = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const res = { old: { start: [], lat: [], bad: [] }, new: { start: [], lat: [], bad: [] } };
await once(builds.old); await once(builds.new); // warm-up
for (let r = 0; r < rounds; r++) for (const name of r % 2 ? ['new', 'old'] : ['old', 'new']) { const o = await once(builds[name]); res[name].start.push(o.start); res[name].lat.push(...o.lat); res[name].bad.push(...o.bad); }
for (const name of ['old', 'new']) { const x = res[name]; console.log(name, `start p50 ${q(x.start, .5).toFixed(0)} ms p99 ${q(x.start, .99).toFixed(0)} | GET /browsers p50 ${q(x.lat, .5).toFixed(2)} p99 ${q(x.lat, .99).toFixed(2)} ms | 400 POST p50 ${q(x.bad, .5).toFixed(2)} p99 ${q(x.bad, .99).toFixed(2)} ms`); }
console.log('ratio start', (q(res.new.start, .5) / q(res.old.start, .5)).toFixed(2), 'GET', (q(res.new.lat, .5) / q(res.old.lat, .5)).toFixed(2), 'bad POST', (q(res.new.bad, .5) / q(res.old.bad, .5)).toFixed(2));
