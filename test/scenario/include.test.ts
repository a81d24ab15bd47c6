// `include`: another scenario file's steps inlined with parameters; problems point into the file they are in.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScenarioError, loadPlan } from '../../src/scenario/index.js';
import type { Block, Plan, PlanStep } from '../../src/scenario/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bcs-include-'));
  await mkdir(join(dir, 'parts'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function write(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

async function problems(file: string): Promise<string[]> {
  try {
    await loadPlan(file, { env: { PASSWORD_FROM_ENV: 'x' } });
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return (err as ScenarioError).diagnostics.map((d) => `${d.file.slice(dir.length + 1)}:${d.line}:${d.col} ${d.message}`);
  }
  throw new Error('expected a ScenarioError');
}

const includeOf = (step: PlanStep | undefined) => step!.block as Extract<Block, { type: 'include' }>;

describe('include', () => {
  test('inlines the steps with parameters as the file\'s vars, reporting their own positions', async () => {
    await write('parts/login.yaml', `name: log in
vars:
  user: nobody
  greeting: "Hello, {{ user }}!"
secrets:
  PASSWORD: { env: PASSWORD_FROM_ENV }
steps:
  - fill: { label: User, value: "{{ user }}" }
  - fill: { label: Password, value: "{{ secrets.PASSWORD }}" }
  - exec: { command: "true", save: token }
  - expect: { text: "{{ greeting }}" }
`);
    const main = await write('main.yaml', `name: main
vars: { who: Ada }
steps:
  - for_each:
      items: [Grace]
      steps:
        - include: { file: parts/login.yaml, with: { user: "{{ item }}" } }
  - include: { file: parts/login.yaml, with: { user: "{{ who }}" } }
  - goto: "https://example.com/{{ token.stdout }}"
`);
    const plan: Plan = await loadPlan(main, { env: { PASSWORD_FROM_ENV: 'x' } });
    const steps = plan.steps.filter((s) => s.phase === 'main');
    const loop = steps[0]!.block as Extract<Block, { type: 'for_each' }>;
    const inLoop = includeOf(loop.steps[0]);
    expect(loop.steps[0]!.name).toBe(`include ${join(dir, 'parts/login.yaml')}`);
    expect(inLoop.file).toBe(join(dir, 'parts/login.yaml'));
    // A parameter may be a loop variable: it stays a template, resolved in each pass.
    expect(inLoop.steps.map((s) => s.operations[0])).toMatchObject([
      { action: 'fill', value: '{{ item }}' },
      { action: 'fill', value: '{{ secrets.PASSWORD }}' },
      { op: 'api', save: 'token' },
      { action: 'expect', text: 'Hello, {{ item }}!' },
    ]);
    expect(inLoop.steps[0]!.source).toEqual({ file: join(dir, 'parts/login.yaml'), line: 8, col: 5 });
    expect(includeOf(steps[1]).steps[3]!.operations[0]).toMatchObject({ text: 'Hello, Ada!' });
    // A value saved inside the included file is there for the steps after the include.
    expect(steps[2]!.operations[0]).toMatchObject({ url: 'https://example.com/{{ token.stdout }}' });
    // Its secrets are the scenario's: read once, when the run starts.
    expect(plan.steps[0]).toMatchObject({ kind: 'secrets', operations: [{ op: 'secrets', secrets: { PASSWORD: { env: 'PASSWORD_FROM_ENV' } } }] });
  });

  test('a cycle is reported where it closes', async () => {
    await write('a.yaml', 'name: a\nsteps:\n  - include: b.yaml\n');
    await write('b.yaml', 'name: b\nsteps:\n  - sleep: 1ms\n  - include: { file: a.yaml }\n');
    expect(await problems(join(dir, 'a.yaml'))).toEqual([
      `b.yaml:4:22 include cycle: ${join(dir, 'a.yaml')} -> ${join(dir, 'b.yaml')} -> ${join(dir, 'a.yaml')}`,
    ]);
  });

  test('problems inside the included file point into it; unknown parameters and a missing file point at the include', async () => {
    await write('parts/bad.yaml', `name: bad part
vars: { user: x }
browser: { headless: true }
steps:
  - fill: { label: User, value: "{{ usr }}" }
  - gto: nowhere
`);
    await write('parts/worse.yaml', `name: worse part
vars: { user: x }
browser: { headless: true }
steps:
  - fill: { label: User, value: "{{ usr }}" }
`);
    const main = await write('uses-bad.yaml', `name: main
steps:
  - include: parts/bad.yaml
  - include: { file: parts/worse.yaml, with: { user: a, pasword: b } }
  - include: parts/missing.yaml
  - include: "{{ env.HOME }}/x.yaml"
`);
    expect(await problems(main)).toEqual([
      `uses-bad.yaml:4:57 'pasword' is not a variable of ${join(dir, 'parts/worse.yaml')}; its vars are user`,
      `uses-bad.yaml:5:14 included scenario file not found: ${join(dir, 'parts/missing.yaml')}`,
      "uses-bad.yaml:6:14 an include's file is read when the scenario compiles, so it cannot use templates",
      expect.stringMatching(/^parts\/bad\.yaml:6:5 unknown step kind 'gto'; expected one of goto, /),
      "parts/worse.yaml:3:1 'browser' has no effect in an included file: only its vars, secrets and steps are used",
      "parts/worse.yaml:5:33 unknown variable 'usr'",
    ]);
  });

  test('the same secret declared twice with different sources', async () => {
    await write('parts/secret.yaml', 'name: s\nsecrets: { TOKEN: { env: OTHER } }\nsteps:\n  - sleep: 1ms\n');
    const main = await write('secret-clash.yaml', 'name: m\nsecrets: { TOKEN: { env: PASSWORD_FROM_ENV } }\nsteps:\n  - include: parts/secret.yaml\n');
    expect(await problems(main)).toEqual([
      `parts/secret.yaml:2:12 secret 'TOKEN' is already declared by ${main} with another source`,
    ]);
  });
});
