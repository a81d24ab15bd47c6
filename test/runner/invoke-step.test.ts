// The invoke step end to end: a real KernelApp deployed to the real service with the hosted SDK, then
// scenarios that invoke its actions through the real CLI — passing checks on status and output (one action
// driving a browser of its own at the scenario's served site), a failed action reported with its reason at
// the step's file:line:col, and a mistake in the step reported by the validator. None of them creates a
// browser of the scenario's own.
import Kernel, { toFile } from '@onkernel/sdk';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipOf } from '../helpers/app-zip.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const APP = `
import { Kernel, type KernelContext } from '@onkernel/sdk';
import { chromium } from 'playwright-core';

const kernel = new Kernel();
const app = kernel.app('titles');

app.action('title', async (ctx: KernelContext, payload?: { url: string }) => {
  const b = await kernel.browsers.create({ invocation_id: ctx.invocation_id });
  const browser = await chromium.connectOverCDP(b.cdp_ws_url);
  const context = browser.contexts()[0]!;
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(payload!.url);
  const title = await page.title();
  await browser.close();
  return { title };
});
app.action('echo', async (_ctx: KernelContext, payload?: unknown) => payload);
app.action('fail', async (_ctx: KernelContext) => {
  throw new Error('boom: the input was wrong');
});
`;

interface Step {
  kind: string;
  name: string;
  phase: string;
  status: string;
  output?: Record<string, unknown>;
  error?: { kind: string; message: string; location: string };
}

const project = await inlineFiles({ 'site/index.html': '<title>Deployed hello</title><p>hi</p>' });
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
  const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  const created = await kernel.deployments.create({ file: await toFile(await zipOf({ 'index.ts': APP }), 'app.zip'), version: '1.0.0' });
  for await (const _ of await kernel.deployments.follow(created.id)) {
    // to the end of the build: the stream closes once the deployment is running or has failed
  }
  const deployment = await kernel.deployments.retrieve(created.id);
  expect(deployment.status, deployment.status_reason).toBe('running');
}, 120_000);
afterAll(async () => {
  await svc?.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

/** Writes `<name>.yaml`, runs it with the list and JSON reporters, and returns the run and its steps. */
async function run(name: string, yaml: string) {
  await project.write({ [`${name}.yaml`]: yaml });
  const out = `${name}-out`;
  const res = await project.run(['run', `${name}.yaml`, '--reporter', 'list,json', '--output-dir', out], remote());
  const results = await readFile(join(project.dir, out, 'results.json'), 'utf8').then(JSON.parse, () => undefined);
  const scenario = results?.scenarios[0] as { steps: Step[]; session_id?: string } | undefined;
  return { res, scenario, steps: scenario?.steps ?? [] };
}

describe('invoke', () => {
  it('checks status, output and values at JSON paths; payloads take templates; saves; creates no browser for the scenario', async () => {
    const { res, scenario, steps } = await run(
      'passes',
      [
        'name: invoke passes',
        'serve: site',
        'steps:',
        '  - invoke:',
        '      app: titles',
        '      action: title',
        '      version: "1.0.0"',
        '      payload: { url: "{{ serve.url }}/index.html" }',
        '      timeout: 90s',
        '      expect:',
        '        status: succeeded',
        '        output: { title: Deployed hello }',
        '        json: { path: $.title, contains: hello }',
        '      save: page',
        '  - invoke:',
        '      app: titles',
        '      action: echo',
        '      version: "1.0.0"',
        '      payload: { said: "the title was {{ page.output.title }}", n: [1, 2], none: null }',
        '      expect:',
        '        output: { said: the title was Deployed hello, n: [1, 2], none: null }',
        '        json: [{ path: "$.n[1]", equals: 2 }, { path: $.said, matches: "^the title" }]',
        '  - invoke: { app: titles, action: echo, version: "1.0.0", payload: 7, async: true, timeout: 60s, expect: { output: 7 }, save: later }',
        '  - invoke: { app: titles, action: fail, version: "1.0.0", expect: { status: failed, status_reason: { contains: "input was wrong" } } }',
        '',
      ].join('\n'),
    );
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('✓ invoke titles/title@1.0.0');
    expect(res.stdout).toMatch(/1 passed, 0 failed/);
    const main = steps.filter((s) => s.phase === 'main');
    expect(main.map((s) => [s.kind, s.status])).toEqual([
      ['invoke', 'passed'], ['invoke', 'passed'], ['invoke', 'passed'], ['invoke', 'passed'],
    ]);
    expect(main[0]!.output).toMatchObject({ status: 'succeeded', output: { title: 'Deployed hello' } });
    expect(main[0]!.output!.id).toEqual(expect.any(String));
    expect(main[2]!.output).toMatchObject({ status: 'succeeded', output: 7 });
    expect(main[3]!.output).toMatchObject({ status: 'failed', status_reason: expect.stringContaining('boom: the input was wrong') });
    // Serving the site, and nothing else: no browser was created or released for the scenario.
    expect(steps.filter((s) => s.phase !== 'main').map((s) => s.kind)).toEqual(['serve', 'serve_stop']);
    expect(scenario!.session_id).toBeUndefined();
  }, 180_000);

  it('fails the step with the invocation’s reason at the step’s file:line:col when the action throws', async () => {
    const { res, steps } = await run(
      'fails',
      [
        'name: invoke fails',
        'steps:',
        '  - invoke: { app: titles, action: echo, version: "1.0.0", payload: ok }',
        '  - invoke: { app: titles, action: nope, version: "1.0.0" }',
        '    continue_on_error: true',
        '  - invoke:',
        '      app: titles',
        '      action: fail',
        '      version: "1.0.0"',
        '      expect: { output: done }',
        '  - invoke: { app: titles, action: echo, version: "1.0.0" }',
        '',
      ].join('\n'),
    );
    expect(res.code, res.stdout + res.stderr).toBe(1);
    const main = steps.filter((s) => s.phase === 'main');
    expect(main.map((s) => s.status)).toEqual(['passed', 'failed', 'failed', 'skipped']);
    // An action the app does not have: the service's answer, the scenario going on past it as told.
    expect(main[1]!.error!.message).toContain("app 'titles' version '1.0.0' has no action 'nope'");
    const failed = main[2]!;
    expect(failed.error!.kind).toBe('assertion');
    expect(failed.error!.location).toBe('fails.yaml:6:5');
    expect(failed.error!.message).toMatch(/^expected status equals "succeeded", got "failed"; /);
    expect(failed.error!.message).toContain('expected output equals "done", but the invocation failed, so there is no output');
    expect(failed.error!.message).toContain('status_reason: ');
    expect(failed.error!.message).toContain('boom: the input was wrong');
    expect(res.stdout).toContain('✗ invoke titles/fail@1.0.0');
    expect(res.stdout).toContain('boom: the input was wrong');
  }, 120_000);

  it('reports a mistake in the step at its file:line:col without running anything', async () => {
    const { res, scenario } = await run(
      'bad',
      [
        'name: invoke bad',
        'steps:',
        '  - invoke:',
        '      app: titles',
        '      action: echo',
        '      versoin: "1.0.0"',
        '      expect: { status: done }',
        '',
      ].join('\n'),
    );
    expect(res.code, res.stdout + res.stderr).toBe(2);
    const output = res.stdout + res.stderr;
    expect(output).toContain("bad.yaml:6:7 unknown field 'versoin' in steps[0].invoke; did you mean 'version'?");
    expect(output).toContain('bad.yaml:7:25 steps[0].invoke.expect.status must be one of succeeded, failed');
    expect(scenario).toBeUndefined();
  });
});
