// Scenario annotations (skip, fixme, only with --forbid-only, slow) and data rows (`each`), from the CLI.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
const page = (title: string) => `"data:text/html,<title>${title}</title>"`;

describe('annotations and rows', { timeout: 180_000 }, () => {
  it('skip and fixme are reported as skipped with their reasons; only narrows the run; --forbid-only refuses it', async () => {
    const project = await inlineFiles({
      'annotated/a.yaml': `name: runs\nsteps:\n  - goto: ${page('a')}\n`,
      'annotated/b.yaml': `name: skipped\nskip: waiting for the new checkout\nsteps:\n  - goto: ${page('b')}\n`,
      'annotated/c.yaml': `name: broken\nfixme: true\nsteps:\n  - expect: { title: never }\n`,
    });
    const dir = project.path('annotated');
    const out = project.path('annotated-out');
    const res = await runCli(['run', dir, '--reporter', 'list,json', '--output-dir', out], remote());
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(results.scenarios.map((s: { name: string }) => s.name)).toEqual(['runs']);
    expect(results.summary).toMatchObject({ total: 1, passed: 1, skipped: 2 });
    expect(results.skipped).toEqual([
      { name: 'skipped', file: join(dir, 'b.yaml'), reason: 'skip', note: 'waiting for the new checkout' },
      { name: 'broken', file: join(dir, 'c.yaml'), reason: 'fixme', note: 'marked fixme' },
    ]);
    expect(res.stdout).toContain('skipped (skip: waiting for the new checkout)');

    await project.write({ 'annotated/d.yaml': `name: focused\nonly: true\nsteps:\n  - goto: ${page('d')}\n` });
    const only = await runCli(['run', dir, '--reporter', 'json', '--output-dir', out], remote());
    expect(only.code, only.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(out, 'results.json'), 'utf8')).scenarios.map((s: { name: string }) => s.name)).toEqual(['focused']);
    expect(only.stderr).toContain('only: running the 1 scenario marked only: true');
    const forbidden = await runCli(['run', dir, '--forbid-only'], remote());
    expect(forbidden.code).toBe(2);
    expect(forbidden.stderr).toContain(`--forbid-only: 'focused' (${join(dir, 'd.yaml')}) is marked only: true`);
  });

  it('each: one scenario per row, inline or from CSV and JSON files, each named and reported on its own', async () => {
    const project = await inlineFiles({
      'rows/users.csv': 'user,title\nada,Ada page\ngrace,Grace page\n',
      'rows/pages.json': JSON.stringify([{ n: 1 }, { n: 2 }, { n: 3 }]),
      'rows/csv.yaml': `name: "greets {{ user }}"\neach: users.csv\nsteps:\n  - goto: "data:text/html,<title>{{ title }}</title>"\n  - expect: { title: "{{ title }}" }\n`,
      'rows/json.yaml': `name: numbered\neach: pages.json\nsteps:\n  - exec: { command: echo, args: ["{{ n }}"], expect: { stdout: { matches: "^[12]$" } } }\n`,
      'rows/inline.yaml': `name: "inline {{ who.first }}"\nslow: true\neach:\n  - { who: { first: Katherine } }\nsteps:\n  - goto: ${page('k')}\n`,
    });
    const dir = project.path('rows');
    const out = project.path('rows-out');
    const list = await runCli(['list', dir, '--json']);
    expect(JSON.parse(list.stdout).scenarios.map((s: { name: string }) => s.name)).toEqual([
      'greets ada', 'greets grace', 'inline Katherine', 'numbered [1]', 'numbered [2]', 'numbered [3]',
    ]);
    const res = await runCli(['run', dir, '--reporter', 'json', '--output-dir', out, '--workers', '2'], remote());
    expect(res.code).toBe(1);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    const status = Object.fromEntries(results.scenarios.map((s: { name: string; status: string }) => [s.name, s.status]));
    expect(status).toEqual({
      'greets ada': 'passed', 'greets grace': 'passed', 'inline Katherine': 'passed',
      'numbered [1]': 'passed', 'numbered [2]': 'passed', 'numbered [3]': 'failed',
    });
    // slow: true tripled the default step timeout.
    const plan = JSON.parse((await runCli(['plan', join(dir, 'inline.yaml'), '--json'])).stdout);
    expect(plan.steps.find((s: { kind: string }) => s.kind === 'goto').timeout_ms).toBe(30_000);
    expect(plan.scenario).toMatchObject({ annotations: { slow: true }, row: { index: 1, values: { who: { first: 'Katherine' } } } });
  });

  it('rows that cannot be read are reported at each', async () => {
    const project = await inlineFiles({ 'bad-rows.yaml': 'name: bad\neach: missing.csv\nsteps:\n  - goto: about:blank\n' });
    const file = project.path('bad-rows.yaml');
    const res = await runCli(['validate', file]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}:2:7 cannot read the rows in ${project.path('missing.csv')}: no such file`);
  });
});
