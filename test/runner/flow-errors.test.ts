// How failures flow (bcs CLI, real service, real Chromium): retries of a step and of a block, steps
// allowed to fail, soft assertions, before/after hooks, block timeouts and the screenshot taken on failure.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepResult } from '../../runner/reporters/results.js';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({});
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

async function run(name: string, yaml: string) {
  await project.write({ [`${name}.yaml`]: yaml });
  const file = project.path(`${name}.yaml`);
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  const scenario = results.scenarios[0] as { status: string; steps: StepResult[] };
  return { res, out, file, scenario, main: scenario.steps.filter((s) => s.phase === 'main') };
}

/** A host command that fails the first `n` times it runs in the session, then passes. */
const flaky = (tag: string, n: number) =>
  `{ command: sh, args: [-c, "c=$(cat /tmp/${tag} 2>/dev/null || echo 0); echo $((c+1)) > /tmp/${tag}; test $c -ge ${n}"] }`;

describe('running again', () => {
  it('retries a step until it passes, and reports how many attempts it took', async () => {
    const { res, main } = await run('step-retries', `name: step retries
steps:
  - name: flaky command
    exec: ${flaky('step', 2)}
    retries: 3
    retry_delay: 50ms
  - name: never passes
    exec: { command: "false" }
    retries: 1
`);
    expect(res.code).toBe(1);
    expect(main[0]).toMatchObject({ name: 'flaky command', status: 'passed', attempts: 3 });
    expect(main[1]).toMatchObject({ status: 'failed', attempts: 2, error: { message: 'expected exit_code 0, got 1 (after 2 attempts)' } });
  });

  it('re-runs a retry block from its first step until all pass; earlier attempts stay in the results', async () => {
    const { res, scenario, main } = await run('retry-block', `name: retry block
steps:
  - retry:
      attempts: 3
      delay: 100ms
      steps:
        - exec: "echo start >> /tmp/starts"
        - name: second step
          exec: ${flaky('block', 1)}
  - exec: { command: sh, args: [-c, "wc -l < /tmp/starts"], expect: { stdout: "2" } }
`);
    expect(res.code, res.stdout).toBe(0);
    expect(scenario.status).toBe('passed');
    expect(main.map((s) => `${s.kind} ${s.iteration ?? '-'} ${s.status}`)).toEqual([
      'retry - passed', 'exec 1 passed', 'exec 1 failed', 'exec 2 passed', 'exec 2 passed', 'exec - passed',
    ]);
    expect(main[0]).toMatchObject({ attempts: 2, name: 'retry up to 3 attempts' });
    expect(main[2]).toMatchObject({ name: 'second step', note: 'attempt 1 of 3 failed; the block ran again' });
  });

  it('gives up after the last attempt, failing the block with the step that failed', async () => {
    const { res, main } = await run('retry-block-fails', `name: retry block fails
steps:
  - retry: { attempts: 2, steps: [{ name: always, exec: "exit 4" }] }
`);
    expect(res.code).toBe(1);
    expect(main[0]).toMatchObject({
      status: 'failed', attempts: 2, error: { kind: 'assertion', message: "step 'always' failed: expected exit_code 0, got 4" },
    });
  });
});

describe('going on after a failure', () => {
  it('continue_on_error: reported as failed, the scenario passes; expect_soft: reported, the run goes on, the scenario fails', async () => {
    const { res, out, scenario, main } = await run('soft', `name: soft and ignored
steps:
  - goto: "data:text/html,<title>Real title</title><h1>Hi</h1>"
  - name: optional check
    expect: { text: Not there, timeout: 200ms }
    continue_on_error: true
  - expect_soft: { title: Wrong title, timeout: 200ms }
  - name: soft host check
    exec: { command: sh, args: [-c, "echo out; exit 2"], expect_soft: { exit_code: 0, stdout: out }, save: result }
  - name: "still running after {{ result.exit_code }}"
    expect: { text: Hi }
`);
    expect(res.code).toBe(1);
    expect(scenario.status).toBe('failed');
    expect(main.map((s) => `${s.status} ${s.continued ?? '-'}`)).toEqual([
      'passed -', 'failed ignored', 'failed soft', 'failed soft', 'passed -',
    ]);
    expect(main[2]!.error).toMatchObject({ kind: 'assertion', message: expect.stringMatching(/^expected title to be "Wrong title", got "Real title" \(waited 200 ms\)\n/) });
    expect(main[3]!.error!.message).toBe('expected exit_code 0, got 2; stdout: out');
    expect(main[4]!.name).toBe('still running after 2');
    // Each failed main step comes with the page as it was.
    for (const step of main.slice(1, 4)) {
      const shot = step.artifacts.find((a) => a.path.includes('/failure-'))!;
      expect((await readFile(join(out, shot.path))).subarray(1, 4).toString()).toBe('PNG');
    }
    expect(res.stdout).toContain('failure-');
  });

  it('a failed before skips the steps; after runs anyway, ahead of the browser release', async () => {
    const { res, main, scenario } = await run('hooks', `name: hooks
screenshot_on_failure: false
before:
  - goto: "data:text/html,<title>Hooks</title>"
  - name: login
    expect: { title: Logged in, timeout: 200ms }
steps:
  - goto: "data:text/html,never"
  - repeat: { times: 2, steps: [{ sleep: 1ms }] }
after:
  - name: cleanup
    expect: { title: Hooks }
`);
    expect(res.code).toBe(1);
    expect(main.map((s) => `${s.name} ${s.depth ?? 0} ${s.status}`)).toEqual([
      'goto data:text/html,<title>Hooks</title> 0 passed',
      'login 0 failed',
      'goto data:text/html,never 0 skipped',
      'repeat 2 times 0 skipped',
      'sleep 1ms 1 skipped',
      'cleanup 0 passed',
    ]);
    expect(main[2]!.note).toBe("skipped: step 'login' failed");
    // screenshot_on_failure: false
    expect(main[1]!.artifacts).toEqual([]);
    expect(scenario.steps.at(-1)).toMatchObject({ kind: 'release', status: 'passed' });
  });

  it('a block timeout stops the step running then and fails the block', async () => {
    const { res, main } = await run('block-timeout', `name: block timeout
steps:
  - repeat: { times: 50, steps: [{ sleep: 200ms }] }
    timeout: 700ms
  - goto: "data:text/html,after"
`);
    expect(res.code).toBe(1);
    const block = main[0]!;
    expect(block).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
    expect(block.error!.message).toMatch(/^step 'sleep 200ms' failed: repeat block timed out after 700 ms$/);
    const passes = main.filter((s) => s.kind === 'sleep');
    expect(passes.length).toBeGreaterThanOrEqual(2);
    expect(passes.length).toBeLessThan(6);
    expect(main.at(-1)).toMatchObject({ kind: 'goto', status: 'skipped' });
    const files = await readdir(project.path('block-timeout-out/block-timeout'));
    expect(files.some((f) => f.startsWith('failure-'))).toBe(true);
  });
});

describe('how steps read', () => {
  it('names a double click as one; a skipped step shows the values it never got as <name>, not template syntax', async () => {
    const { res, main } = await run('naming', `name: naming
vars:
  who: Ada
steps:
  - goto: "data:text/html,<button>go</button>"
  - click: { role: button, click_count: 2 }
  - click: { role: button, button: right }
  - exec: { command: "false", save: r }
  - name: "check {{ r.stdout }} for {{ who }}"
    exec: "echo {{ r }}"
`);
    expect(res.code).toBe(1);
    expect(main.map((s) => s.name)).toEqual(['goto data:text/html,<button>go</button>', 'double click role=button', 'right click role=button', 'exec false', 'check <r.stdout> for Ada']);
    expect(res.stdout).toContain('- check <r.stdout> for Ada  skipped');
  });
});
