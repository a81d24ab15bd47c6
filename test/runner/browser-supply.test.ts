// Browsers prepared ahead: scenarios that only drive pages share a run-scoped session, each in a fresh
// browser context, and nothing one of them leaves behind (cookies, storage of every kind, service workers,
// permissions, pages) is there for the next; scenarios that touch their session get one of their own,
// created ahead; a failure retires the shared session, as Playwright Test replaces a worker's browser.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/api/client.js';
import { compileScenario } from '../../src/scenario/compile.js';
import { loadScenarioSource } from '../../src/scenario/load.js';
import { BrowserSupply } from '../../runner/suite/browser-supply.js';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Shows what the origin holds once it has looked (`#state` reads `checked ...`), and stores something of
 * every kind on "Store". Served on one port for the whole run, so every scenario sees the same origin.
 */
const STATE_PAGE = `<!doctype html><title>state</title>
<p id="size"></p><p id="state">looking</p><p id="stored"></p>
<button onclick="store()">Store</button>
<script>
document.getElementById('size').textContent = 'window ' + innerWidth + 'x' + innerHeight;
async function look() {
  const dbs = (await indexedDB.databases()).map((d) => d.name).join(',');
  const cached = (await caches.keys()).join(',');
  const workers = (await navigator.serviceWorker.getRegistrations()).length;
  const geo = (await navigator.permissions.query({ name: 'geolocation' })).state;
  document.getElementById('state').textContent = 'checked cookie=' + document.cookie + ' local=' + (localStorage.getItem('k') || '') +
    ' session=' + (sessionStorage.getItem('k') || '') + ' idb=' + dbs + ' caches=' + cached + ' workers=' + workers + ' geo=' + geo;
}
async function store() {
  document.cookie = 'k=v; max-age=3600';
  localStorage.setItem('k', 'v');
  sessionStorage.setItem('k', 'v');
  await new Promise((ok) => { const r = indexedDB.open('leak'); r.onsuccess = () => { r.result.close(); ok(); }; });
  await (await caches.open('leak')).put('/cached', new Response('x'));
  await navigator.serviceWorker.register('sw.js');
  document.getElementById('stored').textContent = 'stored';
}
look();
</script>`;

const project = await inlineFiles({
  'site/index.html': STATE_PAGE,
  'site/sw.js': 'self.addEventListener("fetch", () => {});\n',
});

interface Result {
  name: string;
  status: string;
  session_id: string;
  steps: { kind: string; status: string; output?: { mode?: string; ahead?: boolean; session_id?: string }; error?: { message: string } }[];
}

async function run(files: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stderr: string; scenarios: Result[] }> {
  // A project folder of its own per run, as the temporary folder per run was.
  const own = await inlineFiles(files);
  const paths = Object.keys(files).map((name) => own.path(name));
  const out = own.path('out');
  const res = await runCli(['run', ...paths, '--reporter', 'json', '--output-dir', out, ...args]);
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8').catch(() => `{"scenarios":[],"error":${JSON.stringify(res.stderr)}}`));
  return { code: res.code, stderr: res.stderr, scenarios: results.scenarios };
}

const CLEAN = 'checked cookie= local= session= idb= caches= workers=0 geo=prompt';
const page = (name: string, steps: string, browser = '') => `name: ${name}\n${browser}steps:\n  - goto: "{{ env.SITE }}/index.html"\n${steps}`;
const storeSteps = `  - expect: { text: "checked " }\n  - click: { role: button, name: Store }\n  - expect: { text: stored }\n  - goto: "{{ env.SITE }}/index.html"\n  - expect: { text: "local=v" }\n`;
const cleanSteps = `  - expect: { text: "${CLEAN}" }\n`;
const browserStep = (r: Result) => r.steps.find((s) => s.kind === 'browser')!;

describe('browsers prepared ahead', { timeout: 240_000 }, () => {
  let site: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    const { serveFolder } = await import('../../runner/exec/static-server.js');
    site = await serveFolder(project.path('site'));
    process.env.SITE = site.url;
  });
  afterAll(async () => {
    delete process.env.SITE;
    await site.close();
  });

  it('gives page-only scenarios fresh contexts in one shared session, with nothing left from the one before', async () => {
    const { code, stderr, scenarios } = await run({
      'a-store.yaml': page('store', storeSteps),
      'b-check.yaml': page('check', cleanSteps),
      'c-store-again.yaml': page('store again', storeSteps),
      'd-check-again.yaml': page('check again', cleanSteps),
    });
    expect(code, stderr).toBe(0);
    expect(scenarios.map((s) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
    // One session served all four, each in a context of its own (made ahead or not: see below).
    expect(new Set(scenarios.map((s) => s.session_id)).size).toBe(1);
    for (const s of scenarios) expect(browserStep(s).output).toMatchObject({ mode: 'shared' });
  });

  it("keeps the session's window size in a shared session, as in a session of its own", async () => {
    const viewport = 'browser: { viewport: { width: 1024, height: 700 } }\n';
    const { code, stderr, scenarios } = await run({
      'shared.yaml': page('shared', '  - expect: { text: "window 1024x700" }\n', viewport),
      'own.yaml': page('own', '  - expect: { text: "window 1024x700" }\n  - exec: { command: "true" }\n', viewport),
    });
    expect(code, stderr).toBe(0);
    expect(scenarios.map((s) => browserStep(s).output?.mode)).toEqual(['shared', 'own']);
  });

  it('gives a scenario that touches its session one of its own, created ahead while the one before runs', async () => {
    const hostStep = '  - exec: { command: "true" }\n';
    const { code, stderr, scenarios } = await run({
      'one.yaml': page('one', hostStep),
      'two.yaml': page('two', hostStep),
      'three.yaml': page('three', hostStep),
    });
    expect(code, stderr).toBe(0);
    expect(new Set(scenarios.map((s) => s.session_id)).size).toBe(3);
    for (const s of scenarios) expect(browserStep(s).output).toMatchObject({ mode: 'own', ahead: true });
  });

  it('gives every scenario a session of its own with --isolation session', async () => {
    const { code, stderr, scenarios } = await run({ 'a.yaml': page('a', cleanSteps), 'b.yaml': page('b', cleanSteps) }, ['--isolation', 'session']);
    expect(code, stderr).toBe(0);
    expect(scenarios[0]!.session_id).not.toBe(scenarios[1]!.session_id);
    for (const s of scenarios) expect(browserStep(s).output).toMatchObject({ mode: 'own', ahead: true });
  });

  it('retires a shared session after a scenario failed in it', async () => {
    const { code, scenarios } = await run({
      'a.yaml': page('first', cleanSteps),
      'b.yaml': page('fails', '  - expect: { text: "never there", timeout: 200ms }\n'),
      'c.yaml': page('after', cleanSteps),
    });
    expect(code).toBe(1);
    const [a, b, c] = scenarios as [Result, Result, Result];
    expect([a.status, b.status, c.status]).toEqual(['passed', 'failed', 'passed']);
    expect(b.session_id).toBe(a.session_id);
    expect(c.session_id).not.toBe(b.session_id);
  });
});

describe('shared contexts made ahead while they are cheap', { timeout: 120_000 }, () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc?.close();
  });

  /** Three page-only scenarios taken one after another, as one worker runs them: was each made ahead? */
  async function madeAhead(contextAheadMaxMs: number): Promise<boolean[]> {
    const client = new CloudClient({ baseUrl: svc.baseUrl, apiKey: svc.apiKey });
    const supply = new BrowserSupply({ client, workers: 1, contextAheadMaxMs, notice: () => {} });
    const plans = ['a', 'b', 'c'].map((n) => compileScenario(loadScenarioSource(`${n}.yaml`, `name: ${n}\nsteps:\n  - goto: "data:text/html,${n}"\n`), { env: {} }));
    supply.expect(plans);
    const ahead: boolean[] = [];
    try {
      for (const plan of plans) {
        const lease = await supply.take(plan);
        expect(lease?.how.mode).toBe('shared');
        ahead.push(lease!.how.ahead);
        lease!.release(false);
      }
    } finally {
      await supply.close();
    }
    return ahead;
  }

  it('makes the next context beside the running scenario while contexts are cheap, and when its scenario starts once they are not', async () => {
    // The first is always made ahead (the run's start has nothing else to do); the timing of each one made
    // decides for the next.
    expect(await madeAhead(Number.POSITIVE_INFINITY)).toEqual([true, true, true]);
    expect(await madeAhead(0)).toEqual([true, false, false]);
  });
});

