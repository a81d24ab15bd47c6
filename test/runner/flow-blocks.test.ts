// Control blocks run for real (bcs CLI, real service, real Chromium): results flat in execution order,
// a block's result before its steps', depth and iteration set, skipped steps reported with the reason.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/api/client.js';
import { compileScenario, loadScenarioSource } from '../../src/scenario/index.js';
import { executePlan } from '../../runner/exec/execute.js';
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

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

async function run(name: string, file = project.path(`${name}.yaml`)) {
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'json', '--output-dir', out], remote());
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  return { res, out, scenario: results.scenarios[0] as { status: string; steps: StepResult[] } };
}

/** `kind depth.iteration status` per result, in order: the shape of a run at a glance. */
const shape = (steps: StepResult[]) =>
  steps.filter((s) => s.phase === 'main').map((s) => `${s.kind} ${s.depth ?? 0}${s.iteration ? `#${s.iteration}` : ''} ${s.status}`);

describe('blocks at run time', () => {
  it('runs the control-flow example: include in a loop, a loop over a saved list, repeat, if, retry, hooks', async () => {
    const { res, out, scenario } = await run('example', 'scenarios/examples/control-flow.yaml');
    expect(res.code, res.stderr).toBe(0);
    expect(scenario.status).toBe('passed');
    const main = scenario.steps.filter((s) => s.phase === 'main');
    expect(shape(scenario.steps)).toEqual([
      'goto 0 passed', 'expect 0 passed',
      'for_each 0 passed',
      'include 1#1 passed', 'goto 2#1 passed', 'fill 2#1 passed', 'click 2#1 passed', 'expect 2#1 passed',
      'include 1#2 passed', 'goto 2#2 passed', 'fill 2#2 passed', 'click 2#2 passed', 'expect 2#2 passed',
      'execute 0 passed',
      'for_each 0 passed', 'goto 1#1 passed', 'screenshot 1#1 passed', 'goto 1#2 passed', 'screenshot 1#2 passed',
      'repeat 0 passed',
      ...[1, 2].flatMap((i) => [`goto 1#${i} passed`, `fill 1#${i} passed`, `press 1#${i} passed`, `expect 1#${i} passed`]),
      'expect 0 failed', 'if 0 passed', 'expect_soft 1 passed', 'click 1 skipped',
      'retry 0 passed', 'click 1#1 passed', 'expect 1#1 passed',
      'screenshot 0 passed',
    ]);
    // Names resolve per pass; an included step keeps its own file's position.
    const greeted = main.filter((s) => s.name.startsWith('greeted'));
    expect(greeted.map((s) => s.name)).toEqual(['greeted Ada', 'greeted Grace']);
    expect(greeted[0]!.source).toMatchObject({ file: 'scenarios/examples/parts/greet.part.yaml', line: 11 });
    // A loop's step is one plan step reported once per pass: same index, its own iteration and artifact.
    const shots = main.filter((s) => s.kind === 'screenshot' && s.depth === 1);
    expect(shots[0]!.index).toBe(shots[1]!.index);
    expect(shots.map((s) => s.artifacts[0]!.path)).toEqual([
      expect.stringMatching(/-page-index\.html-1\.png$/), expect.stringMatching(/-page-about\.html-2\.png$/),
    ]);
    // The step allowed to fail: reported with its error and a screenshot, and the scenario still passes.
    const banner = main.find((s) => s.kind === 'expect' && s.status === 'failed')!;
    expect(banner).toMatchObject({ continued: 'ignored', error: { kind: 'assertion', location: 'scenarios/examples/control-flow.yaml:38:5' } });
    expect(banner.artifacts[0]!.path).toMatch(/^control-flow\/failure-\d+-look-for-a-banner-the-site-may-not-have\.png$/);
    const png = await readFile(join(out, banner.artifacts[0]!.path));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const skipped = main.find((s) => s.status === 'skipped')!;
    expect(skipped).toMatchObject({ kind: 'click', depth: 1, note: 'skipped: the if condition was true' });
    // `after` runs last among the main steps, then teardown.
    expect(scenario.steps.at(-3)).toMatchObject({ kind: 'screenshot', name: 'screenshot last page' });
    expect(scenario.steps.at(-2)).toMatchObject({ kind: 'release', status: 'passed' });
  });

  it('decides at run time: a condition on an exit code, items and a count from saved values; a failure inside a loop', async () => {
    await project.write({
      'runtime.yaml': `name: runtime
steps:
  - exec: { command: sh, args: [-c, "printf 'a\\\\nb\\\\nc\\\\n'"], save: letters }
  - exec: { command: sh, args: [-c, "exit 3"], expect: { exit_code: any }, save: probe }
  - if: { all: [{ var: probe.exit_code, equals: 3 }, { var: probe.exit_code, less_than_or_equal: 3 }, { var: letters, truthy: true }] }
    then:
      - exec: { command: echo, args: [2], save: count }
    else:
      - exec: { command: echo, args: [never], save: never }
  - if: { any: [{ exists: never }, { var: probe.exit_code, at_least: 4 }, { var: probe.exit_code, greater_than: 3 }, { var: letters, length: 0 }] }
    then: [{ exec: "false" }]
  - repeat:
      times: "{{ count }}"
      as: i
      steps:
        - exec: { command: echo, args: ["{{ i }}"], expect: { stdout: "{{ i }}" } }
  - for_each:
      items: "{{ letters }}"
      as: letter
      steps:
        - name: "check {{ letter }}"
          exec: { command: test, args: ["{{ letter }}", "!=", b] }
        - exec: "echo after {{ letter }}"
  - exec: "echo not reached"
after:
  - exec: "echo cleaning up"
`,
    });
    const { res, scenario } = await run('runtime');
    expect(res.code, res.stderr).toBe(1);
    expect(scenario.status).toBe('failed');
    expect(shape(scenario.steps)).toEqual([
      'exec 0 passed', 'exec 0 passed',
      'if 0 passed', 'exec 1 passed', 'exec 1 skipped',
      'if 0 passed', 'exec 1 skipped',
      'repeat 0 passed', 'exec 1#1 passed', 'exec 1#2 passed',
      'for_each 0 failed', 'exec 1#1 passed', 'exec 1#1 passed', 'exec 1#2 failed', 'exec 1#2 skipped',
      'exec 0 skipped',
      'exec 0 passed',
    ]);
    const main = scenario.steps.filter((s) => s.phase === 'main');
    expect(main[2]!.note).toBe('the condition held: ran then');
    expect(main[4]!.note).toBe('skipped: the if condition was true');
    expect(main[5]!.note).toBe('the condition did not hold');
    const loop = main.find((s) => s.kind === 'for_each')!;
    expect(loop.name).toBe('for each letter in letters');
    expect(loop.error).toMatchObject({ kind: 'assertion', message: "step 'check b' failed: expected exit_code 0, got 1" });
    expect(main[14]).toMatchObject({ name: 'exec echo after b', note: "skipped: step 'check b' failed" });
    expect(main[15]!.note).toBe("skipped: step 'for each letter in letters' failed");
    expect(main.at(-1)).toMatchObject({ name: 'exec echo cleaning up', status: 'passed' });
    expect(scenario.steps.at(-1)).toMatchObject({ kind: 'release', status: 'passed' });
  });

  it('prints blocks indented in bcs plan', async () => {
    const res = await runCli(['plan', 'scenarios/examples/control-flow.yaml']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('before (ahead of the steps)');
    expect(res.stdout).toContain('after (runs even when a step failed)');
    expect(res.stdout).toMatch(/\n {3}\d\. for each visitor in \["Ada","Grace"\] {2}\(line 15:5\)\n {8}2 items: \["Ada","Grace"\]; each one is \{\{ visitor \}\}\n {6} ?\d+\. include scenarios\/examples\/parts\/greet\.part\.yaml/);
    expect(res.stdout).toMatch(/\n {10} ?\d+\. greeted \{\{ visitor \}\} {2}\(scenarios\/examples\/parts\/greet\.part\.yaml:11:5, timeout 10000 ms\)/);
    expect(res.stdout).toMatch(/if step "look for a banner the site may not have" failed {2}\(line \d+:5\)\n {8}then\n {10} ?\d+\. expect_soft title "Quickstart" {2}\(line \d+:9, timeout 10000 ms, soft: a failure does not stop the run\)/);
  });
});

describe('function steps', () => {
  it('run the TypeScript function named in the plan, save its result, and conditions see it', async () => {
    const loaded = loadScenarioSource(project.path('fn.yaml'), `name: function steps
steps:
  - goto: "data:text/html,<title>From the page</title>"
  - function: fn-1
    name: read the title
    save: info
  - if: { var: info.title, equals: From the page }
    then:
      - expect: { title: "{{ info.title }}" }
`);
    const plan = compileScenario(loaded, { functions: ['fn-1'] });
    const finished: StepResult[] = [];
    const result = await executePlan(plan, {
      client: new CloudClient({ baseUrl: svc.baseUrl, apiKey: svc.apiKey }),
      outputDir: project.path('fn-out'),
      reporter: { stepFinished: (_plan, r) => finished.push(r) },
      signal: new AbortController().signal,
      functions: { 'fn-1': async ({ page }) => ({ title: await page.title() }) },
    });
    expect(result.status, JSON.stringify(result.steps.map((s) => s.error))).toBe('passed');
    const fn = result.steps.find((s) => s.kind === 'function')!;
    expect(fn).toMatchObject({ name: 'read the title', output: { title: 'From the page' } });
    expect(result.steps.find((s) => s.kind === 'expect')).toMatchObject({ depth: 1, status: 'passed', name: 'expect title "From the page"' });
    // Reporters heard of every result; the block after its steps, as that is when it finished.
    expect(finished.map((r) => r.kind)).toEqual(['browser', 'goto', 'function', 'expect', 'if', 'release']);
  });
});
