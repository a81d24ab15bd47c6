// Scenario features around the session: leasing from a pool, recording with markers, telemetry per step.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const hasFfmpeg = (() => {
  try {
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasFfmpeg) console.warn('skipping replay checks that need ffprobe: not installed');

const PAGE = `<!doctype html><title>features</title>
<button id="oops" onclick="console.error('boom from the page'); fetch('http://127.0.0.1:9/missing').catch(() => {})">oops</button>`;

const project = await inlineFiles({ 'site/index.html': PAGE });
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

async function run(name: string, yaml: string) {
  await project.write({ [`${name}.yaml`]: yaml });
  const file = project.path(`${name}.yaml`);
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out], remote());
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  return { res, out, scenario: results.scenarios[0] };
}

describe('recording and telemetry in a scenario', () => {
  it('records the run with a marker per step, and attaches console errors and failed requests to their step', async () => {
    const { res, out, scenario } = await run(
      'recorded',
      `name: recorded
serve: site
replay: { record: true, framerate: 10 }
telemetry: true
steps:
  - goto: "{{ serve.url }}/index.html"
  - marker: page open
  - name: press the button that fails
    click: "#oops"
  - sleep: 500ms
`,
    );
    expect(res.code, res.stderr).toBe(0);
    const main = scenario.steps.filter((s: { phase: string }) => s.phase === 'main');
    const offsets = main.map((s: { replay_offset_ms: number }) => s.replay_offset_ms);
    expect(offsets.every((o: unknown) => typeof o === 'number')).toBe(true);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
    const click = main.find((s: { name: string }) => s.name === 'press the button that fails');
    const notes = [...(click.telemetry ?? []), ...(main.at(-1).telemetry ?? [])].map((t: { message: string }) => t.message).join('\n');
    expect(notes).toContain('boom from the page');
    expect(notes).toContain('127.0.0.1:9/missing');
    expect(main[0].telemetry ?? []).toEqual([]);
    // Plain output (not a terminal) lists the notes too, under their step.
    expect(res.stdout).toMatch(/telemetry\n {4}during press the button that fails \(line 8:5\)\n {6}console\S*: .*boom from the page/);
    const vtt = await readFile(join(out, 'recorded', 'replay.vtt'), 'utf8');
    expect(vtt).toMatch(/^WEBVTT/);
    expect(vtt).toContain('page open');
    expect(vtt).toContain('press the button that fails');
    if (hasFfmpeg) {
      const chapters = execFileSync('ffprobe', ['-v', 'error', '-show_chapters', '-of', 'json', join(out, 'recorded', 'replay.mp4')]).toString();
      expect(JSON.parse(chapters).chapters.map((c: { tags: { title: string } }) => c.tags.title)).toContain('page open');
    }
  });
});

describe('browsers from a pool', () => {
  it('leases, reuses after a pass, and replaces after a failure', async () => {
    const pool = await svc.call('POST', '/browser_pools', { body: { name: 'scenario-pool', size: 1, headless: true } });
    expect(pool.status, JSON.stringify(pool.body)).toBe(200);
    const idle = async () => (await svc.call('GET', '/browser_pools/scenario-pool')).body.available_count;
    await expect.poll(idle, { timeout: 30_000 }).toBe(1);
    const [before] = (await svc.call('GET', '/browsers?limit=100')).body.filter((b: { pool?: { name: string } }) => b.pool?.name === 'scenario-pool');

    const pass = await run('pooled-pass', 'name: pooled\nbrowser: { pool: scenario-pool, acquire_timeout: 10s }\nsteps:\n  - goto: "data:text/html,<title>x</title>"\n');
    expect(pass.res.code, pass.res.stderr).toBe(0);
    expect(pass.scenario.session_id).toBe(before.session_id);
    expect(pass.scenario.steps.find((s: { kind: string }) => s.kind === 'release').status).toBe('passed');
    await expect.poll(idle, { timeout: 30_000 }).toBe(1);
    const alive = (await svc.call('GET', `/browsers/${before.session_id}`)).status;
    expect(alive).toBe(200);

    const fail = await run('pooled-fail', 'name: pooled fail\nbrowser: { pool: scenario-pool }\nsteps:\n  - expect: { title: never, timeout: 200ms }\n');
    expect(fail.res.code).toBe(1);
    expect(fail.scenario.session_id).toBe(before.session_id);
    // Released without reuse: that browser is gone and a fresh one takes its place.
    expect((await svc.call('GET', `/browsers/${before.session_id}`)).status).toBe(404);
    await expect.poll(idle, { timeout: 30_000 }).toBe(1);
  });

  it('fails clearly when no browser frees up in time', async () => {
    await svc.call('POST', '/browser_pools', { body: { name: 'tiny-pool', size: 1, headless: true } });
    await expect.poll(async () => (await svc.call('GET', '/browser_pools/tiny-pool')).body.available_count, { timeout: 30_000 }).toBe(1);
    const held = await svc.call('POST', '/browser_pools/tiny-pool/acquire', { body: {} });
    expect(held.status).toBe(200);
    const res = await run('pool-timeout', 'name: starved\nbrowser: { pool: tiny-pool, acquire_timeout: 1s }\nsteps:\n  - sleep: 1ms\n');
    expect(res.res.code).toBe(3);
    const step = res.scenario.steps.find((s: { kind: string }) => s.kind === 'browser');
    expect(step.error.message).toBe("no browser in pool 'tiny-pool' became free within 1000 ms");
  });
});

describe('telemetry on a leased browser', () => {
  it('is set for the lease and attaches to steps', async () => {
    await svc.call('POST', '/browser_pools', { body: { name: 'telemetry-pool', size: 1, headless: true } });
    await expect.poll(async () => (await svc.call('GET', '/browser_pools/telemetry-pool')).body.available_count, { timeout: 30_000 }).toBe(1);
    const { res, scenario } = await run(
      'pooled-telemetry',
      `name: pooled telemetry
serve: site
browser: { pool: telemetry-pool }
telemetry: { console: true }
steps:
  - goto: "{{ serve.url }}/index.html"
  - click: "#oops"
  - sleep: 300ms
`,
    );
    expect(res.code, JSON.stringify(scenario.steps.filter((s: { error?: unknown }) => s.error))).toBe(0);
    const notes = scenario.steps.flatMap((s: { telemetry?: { message: string }[] }) => s.telemetry ?? []).map((t: { message: string }) => t.message);
    expect(notes.join('\n')).toContain('boom from the page');
  });
});
