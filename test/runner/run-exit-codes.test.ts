// Exit codes and their precedence (130 > 3 > 1 > 4 > 0), `--timeout` and `--bail`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({
  'passes.yaml': 'name: passes\nsteps:\n  - goto: "data:text/html,x"\n',
  'fails.yaml': 'name: fails\nsteps:\n  - goto: "data:text/html,<title>a</title>"\n  - expect: { title: b, timeout: 300ms }\n',
  'slow.yaml': 'name: slow\nsteps:\n  - goto: "data:text/html,x"\n  - sleep: 20s\n  - goto: "data:text/html,never"\n',
  'no-pool.yaml': 'name: no pool\nbrowser: { pool: does-not-exist, acquire_timeout: 1s }\nsteps:\n  - goto: "data:text/html,x"\n',
});
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const f = (name: string) => project.path(name);

async function run(name: string, args: string[]) {
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', ...args, '--reporter', 'json', '--output-dir', out], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  return { res, results };
}

// Each test starts `bcs` (and browsers) several times: seconds apiece on a busy two-core machine.
describe('bcs run --timeout', { timeout: 180_000 }, () => {
  it('cuts a scenario short at its budget, still releases its browser, and exits 4 when only timeouts failed', async () => {
    // The budget starts once the browser is ready, so however long the create takes it runs out inside the 20 s sleep.
    const { res, results } = await run('timeout', [f('slow.yaml'), f('passes.yaml'), '--timeout', '3s']);
    expect(res.code, res.stderr).toBe(4);
    const [slow, passes] = results.scenarios;
    expect(passes.status).toBe('passed');
    expect(slow).toMatchObject({ status: 'failed', timed_out: true });
    // The budget cut the 20 s sleep short: it started after setup and covered the sleep step alone.
    const sleep = slow.steps.find((s: { kind: string }) => s.kind === 'sleep');
    expect(sleep.duration_ms).toBeLessThan(15_000);
    const main = slow.steps.filter((s: { phase: string }) => s.phase === 'main');
    expect(main.find((s: { status: string }) => s.status === 'failed').error.kind).toBe('timeout');
    expect(main.at(-1).status).toBe('skipped');
    expect(slow.steps.find((s: { kind: string }) => s.kind === 'release').status).toBe('passed');
    const deleted = (await svc.call('GET', '/browsers?status=deleted&limit=100')).body as { session_id: string }[];
    expect(deleted.map((s) => s.session_id)).toContain(slow.session_id);
  });

  it('a real failure outranks a timeout (exit 1), and an infrastructure error outranks both (exit 3)', async () => {
    // 8 s: ample for fails.yaml's goto and 300 ms expect on a loaded machine, well short of slow.yaml's sleep.
    expect((await run('mixed', [f('slow.yaml'), f('fails.yaml'), '--timeout', '8s'])).res.code).toBe(1);
    const infra = await run('infra', [f('fails.yaml'), f('no-pool.yaml'), f('slow.yaml'), '--timeout', '8s']);
    expect(infra.res.code).toBe(3);
    expect(infra.results.scenarios.map((s: { status: string }) => s.status)).toEqual(['failed', 'error', 'failed']);
  });

  it('an embedded service that cannot start (its thread says why) is an infrastructure error, exit 3', async () => {
    const res = await runCli(['run', f('passes.yaml')], { BCS_CHROMIUM: project.path('no-such-chrome') });
    expect(res.code, res.stderr).toBe(3);
    expect(res.stderr).toContain(`could not start the embedded service: configured Chromium '${project.path('no-such-chrome')}' is not an executable file`);
  });

  it('rejects a timeout that is not a duration', async () => {
    const res = await runCli(['run', f('passes.yaml'), '--timeout', 'soon']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('invalid duration');
  });
});

describe('bcs run --bail', { timeout: 180_000 }, () => {
  it('starts nothing after the first failure and reports the rest as skipped', async () => {
    const { res, results } = await run('bail', [f('passes.yaml'), f('fails.yaml'), f('slow.yaml'), f('no-pool.yaml'), '--bail']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("--bail: 'fails' did not pass");
    expect(results.scenarios.map((s: { name: string }) => s.name)).toEqual(['passes', 'fails']);
    expect(results.summary).toMatchObject({ total: 2, passed: 1, failed: 1, skipped: 2 });
    expect(results.skipped).toEqual([
      { name: 'slow', file: f('slow.yaml'), reason: 'bail' },
      { name: 'no pool', file: f('no-pool.yaml'), reason: 'bail' },
    ]);
  });
});
