// Secrets end to end: read when the run starts, used in steps, never shown — not in the plan, the step
// list, results.json, error messages or saved output — and a missing one stops the run before a browser.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASK, createMasker, maskDeep, resolveSecrets } from '../../runner/exec/secrets.js';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ENV_SECRET = 'env-s3cret "quoted" & more';
const FILE_SECRET = 'file-s3cret-value';

const project = await inlineFiles({ 'token.txt': `${FILE_SECRET}\n` });
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const SCENARIO = `name: secrets
secrets:
  API: { env: BCS_TEST_API_SECRET }
  TOKEN: { file: token.txt }
vars:
  header: "Bearer {{ secrets.TOKEN }}"
steps:
  - name: "use {{ secrets.TOKEN }} on the page"
    goto: "data:text/html,<title>t</title><input aria-label=Key>"
  - fill: { label: Key, value: "{{ secrets.API }}" }
  - expect: { visible: { label: Key } }
  - name: echo both
    exec: { command: sh, args: [-c, "echo \\"$1 {{ header }}\\"", sh, "{{ secrets.API }}"], save: echoed }
  - name: "saw {{ echoed }}"
    exec: { command: sh, args: [-c, 'echo "$1" >&2; exit 1', sh, "{{ echoed.stdout }}"], expect: { exit_code: 1, stdout: "{{ secrets.TOKEN }}" } }
    continue_on_error: true
  - expect: { title: "{{ secrets.API }}", timeout: 200ms }
`;

describe('secrets in a run', () => {
  it('are masked in the step list, results.json, errors and names; the plan keeps their templates', async () => {
    await project.write({ 'secrets.yaml': SCENARIO });
    const file = project.path('secrets.yaml');
    const env = { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey, BCS_TEST_API_SECRET: ENV_SECRET };

    const plan = await runCli(['plan', file], env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('{{ secrets.API }}');
    expect(plan.stdout).toContain('Bearer {{ secrets.TOKEN }}');
    const planJson = await runCli(['plan', file, '--json'], env);
    for (const text of [plan.stdout, planJson.stdout]) {
      expect(text).not.toContain('s3cret');
    }

    const out = project.path('out');
    const res = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out], env);
    expect(res.code).toBe(1);
    const json = await readFile(join(out, 'results.json'), 'utf8');
    for (const text of [res.stdout, res.stderr, json]) {
      expect(text).not.toContain('s3cret');
      expect(text).not.toContain(JSON.stringify(ENV_SECRET).slice(1, -1));
    }
    const steps = JSON.parse(json).scenarios[0].steps as { name: string; status: string; error?: { message: string } }[];
    const main = steps.slice(2, -1);
    expect(main.map((s) => s.name)).toEqual([
      'use *** on the page',
      'fill label="Key"',
      'expect visible label="Key"',
      'echo both',
      'saw *** Bearer ***',
      'expect title "***"',
    ]);
    expect(main[4]!.error!.message).toBe('expected stdout equals "***", got ""; stderr: *** Bearer ***');
    expect(main[5]!.error!.message.split('\n')[0]).toBe('expected title to be "***", got "t" (waited 200 ms)');
    expect(res.stdout).toContain('✓ use *** on the page');
    // Artifact names are made from masked names too.
    const names = await readdir(join(out, 'secrets'));
    expect(names.filter((n) => n.startsWith('failure-'))).toHaveLength(2);
    expect(names.join(' ')).not.toContain('s3cret');
  });

  it('stops before any browser starts when a secret is missing, saying where it is declared', async () => {
    await project.write({ 'missing.yaml': SCENARIO });
    const file = project.path('missing.yaml');
    const before = svc.sessions.size;
    const res = await runCli(['run', file], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}:3:15 environment variable 'BCS_TEST_API_SECRET' is not set (secret 'API')`);
    expect(svc.sessions.size).toBe(before);
  });

  it('are not needed to validate, list or plan: only a run reads them', async () => {
    await project.write({ 'unset/unset.yaml': SCENARIO.replace('token.txt', 'no-such-token.txt') });
    const dir = project.path('unset');
    for (const args of [['validate', dir], ['list', dir], ['plan', join(dir, 'unset.yaml')]]) {
      const res = await runCli(args);
      expect(res.code, `${args[0]}: ${res.stderr}`).toBe(0);
    }
    const run = await runCli(['run', dir], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("environment variable 'BCS_TEST_API_SECRET' is not set");
    expect(run.stderr).toContain('cannot read secret file');
  });
});

describe('masking', () => {
  it('masks every form a secret takes in text: as is, inside JSON, in a URL; longer ones first', () => {
    const mask = createMasker(['a"b c', 'tok', 'token-long', '']);
    expect(mask('x a"b c y')).toBe(`x ${MASK} y`);
    expect(mask(JSON.stringify({ v: 'a"b c' }))).toBe(`{"v":"${MASK}"}`);
    expect(mask(`https://h/?q=${encodeURIComponent('a"b c')}`)).toBe(`https://h/?q=${MASK}`);
    expect(mask('token-long and tok')).toBe(`${MASK} and ${MASK}`);
    expect(maskDeep({ name: 'tok', list: ['tok', 3, { tok: 'x' }] }, mask)).toEqual({ name: MASK, list: [MASK, 3, { [MASK]: 'x' }] });
    expect(createMasker([])('anything')).toBe('anything');
  });

  it('reads env and file secrets, dropping the file\'s final newline, and names what is missing', async () => {
    await expect(resolveSecrets({ A: { env: 'X' }, B: { file: project.path('token.txt') } }, { X: 'from env' })).resolves.toEqual({ A: 'from env', B: FILE_SECRET });
    await expect(resolveSecrets({ A: { env: 'NOPE' } }, {})).rejects.toThrow("secret 'A': environment variable 'NOPE' is not set");
    await expect(resolveSecrets({ B: { file: project.path('none.txt') } }, {})).rejects.toThrow(`secret 'B': cannot read ${project.path('none.txt')}`);
  });
});
