// Folder defaults (bcs.defaults.yaml): merged into every scenario below them, nearest winning; hooks run as
// the scenario's steps; problems and `bcs plan` point at the defaults file's lines.
import { Ajv } from 'ajv';
import { mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScenarioError, loadPlan, loadScenarios } from '../../src/scenario/index.js';
import type { Plan, PlanStep } from '../../src/scenario/index.js';
import { DEFAULT_FIELDS } from '../../src/scenario/defaults.js';
import scenarioSchema from '../../src/scenario/scenario.schema.json' with { type: 'json' };
import defaultsSchema from '../../src/scenario/defaults.schema.json' with { type: 'json' };
import { findScenarioFiles } from '../../runner/suite/files.js';

import { ROOT } from '../helpers/cli.js';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bcs-defaults-'));
  // The project's root: defaults are not looked for above it.
  await writeFile(join(dir, 'package.json'), '{}');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function write(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

async function problems(file: string): Promise<string[]> {
  try {
    await loadPlan(file);
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return (err as ScenarioError).diagnostics.map((d) => `${d.file.slice(d.file.indexOf('bcs-defaults-')).replace(/^[^/]+\//, '')}:${d.line}:${d.col} ${d.message}`);
  }
  throw new Error('expected a ScenarioError');
}

const main = (plan: Plan, hook?: 'before' | 'after'): PlanStep[] => plan.steps.filter((s) => s.phase === 'main' && s.hook === hook);
const where = (s: PlanStep) => `${s.source.file.slice(dir.length + 1)}:${s.source.line}`;

describe('folder defaults', () => {
  test('are among the files a scenario is built from, so --only-changed selects it when one changes', async () => {
    const outer = await write('src/bcs.defaults.yaml', 'tags: [suite]\n');
    const inner = await write('src/deep/bcs.defaults.yaml', 'vars: { who: Ada }\n');
    const file = await write('src/deep/s.yaml', 'name: s\nbrowser: { headless: true }\nsteps:\n  - goto: about:blank\n');
    const [compiled] = await loadScenarios(file);
    expect(compiled!.sources).toEqual(expect.arrayContaining([file, outer, inner]));
  });

  test('merge nearest-first: maps key by key, tags as a union, paths relative to the defaults file', async () => {
    await mkdir(join(dir, 'm/site'), { recursive: true });
    await write('m/bcs.defaults.yaml', `tags: [suite]
serve: site
vars: { who: Ada, greeting: Hello }
browser: { headless: true, viewport: { width: 800, height: 600 } }
context: { locale: de-DE, timezone: Europe/Berlin, ignore_https_errors: true }
timeout: 3s
`);
    await write('m/inner/bcs.defaults.yaml', `tags: [inner, suite]
vars: { who: Grace }
browser: { viewport: { width: 1000, height: 700 } }
`);
    const file = await write('m/inner/a.yaml', `name: a
tags: [own]
context: { locale: fr-FR }
steps:
  - goto: "/?{{ greeting }}={{ who }}"
`);
    const plan = await loadPlan(file);
    expect(plan.scenario.tags).toEqual(['suite', 'inner', 'own']);
    const serve = plan.steps.find((s) => s.kind === 'serve')!;
    expect(serve.operations[0]).toMatchObject({ op: 'serve', dir: join(dir, 'm/site') });
    expect(where(serve)).toBe('m/bcs.defaults.yaml:2');
    const create = plan.steps.find((s) => s.operations.some((o) => o.op === 'acquire_browser'))!;
    expect(JSON.stringify(create.operations)).toContain('"headless":true,"viewport":{"width":1000,"height":700}');
    const connect = plan.steps.flatMap((s) => s.operations).find((o) => o.op === 'connect') as { context?: unknown };
    expect(connect.context).toEqual({ locale: 'fr-FR', timezone: 'Europe/Berlin', ignore_https_errors: true });
    const goto = main(plan)[0]!;
    expect(goto.timeout_ms).toBe(3000);
    expect(JSON.stringify(goto.operations)).toContain('/?Hello=Grace');
    const fields = Object.fromEntries((plan.scenario.defaults ?? []).map((d) => [d.field, `${relative(dir, resolve(d.file))}:${d.line}`]));
    expect(fields).toEqual({
      'tags: suite': 'm/bcs.defaults.yaml:1',
      'tags: inner': 'm/inner/bcs.defaults.yaml:1',
      serve: 'm/bcs.defaults.yaml:2',
      'vars.who': 'm/inner/bcs.defaults.yaml:2',
      'vars.greeting': 'm/bcs.defaults.yaml:3',
      'browser.headless': 'm/bcs.defaults.yaml:4',
      'browser.viewport': 'm/inner/bcs.defaults.yaml:3',
      'context.timezone': 'm/bcs.defaults.yaml:5',
      'context.ignore_https_errors': 'm/bcs.defaults.yaml:5',
      timeout: 'm/bcs.defaults.yaml:6',
    });
  });

  test('a defaults file read for one scenario is read again once edited, and no scenario sees what another changed', async () => {
    const defaults = await write('e/bcs.defaults.yaml', 'vars: { who: Ada }\ntags: [one]\n');
    const a = await write('e/a.yaml', 'name: a\nsteps:\n  - sleep: 1ms\n');
    const b = await write('e/b.yaml', 'name: b\nsteps:\n  - sleep: 1ms\n');
    const first = await loadPlan(a);
    expect(first.scenario.tags).toEqual(['one']);
    first.scenario.tags!.push('mutated');
    expect((await loadPlan(b)).scenario.tags).toEqual(['one']);
    // Same size, new content: the modification time tells (set apart, as a fast edit can share a tick).
    await writeFile(defaults, 'vars: { who: Bob }\ntags: [two]\n');
    await utimes(defaults, new Date(), new Date(Date.now() + 5000));
    expect((await loadPlan(b)).scenario.tags).toEqual(['two']);
  });

  test('a scenario that leases from a pool takes no browser settings from defaults', async () => {
    await write('p/bcs.defaults.yaml', 'browser: { headless: true, viewport: { width: 800, height: 600 } }\n');
    const plan = await loadPlan(await write('p/a.yaml', 'name: a\nbrowser: { pool: warm }\nsteps:\n  - goto: https://example.com/\n'));
    expect(JSON.stringify(plan.steps[0]!.operations)).not.toContain('viewport');
  });

  test('hooks run as steps: before_each outermost first, after_each nearest first, written in their own files', async () => {
    await write('h/bcs.defaults.yaml', `vars: { start: https://example.com/ }
before_each:
  - goto: "{{ start }}"
after_each:
  - screenshot: outer
`);
    await write('h/parts/check.part.yaml', 'steps:\n  - expect: { title: Example }\n');
    await write('h/sub/bcs.defaults.yaml', `before_each:
  - include: ../parts/check.part.yaml
after_each:
  - screenshot: inner
`);
    const file = await write('h/sub/a.yaml', `name: a
vars: { start: https://example.org/ }
before:
  - sleep: 1ms
steps:
  - sleep: 2ms
after:
  - screenshot: own
`);
    const plan = await loadPlan(file);
    const before = main(plan, 'before');
    expect(before.map((s) => [s.kind, where(s)])).toEqual([['goto', 'h/bcs.defaults.yaml:3'], ['include', 'h/sub/bcs.defaults.yaml:2'], ['sleep', 'h/sub/a.yaml:4']]);
    // The hook sees the scenario's vars (its own start wins over the defaults').
    expect(JSON.stringify(before[0]!.operations)).toContain('https://example.org/');
    expect(main(plan, 'after').map((s) => s.name)).toEqual(['screenshot own', 'screenshot inner', 'screenshot outer']);
  });

  test('TypeScript scenarios get their folder defaults too', async () => {
    await write('ts/bcs.defaults.yaml', 'tags: [ts]\nbefore_each:\n  - goto: https://example.com/\n');
    await mkdir(join(dir, 'node_modules'), { recursive: true });
    await symlink(ROOT, join(dir, 'node_modules', 'browser-scenarios'), 'dir').catch(() => {});
    const file = await write('ts/a.scenario.ts', `import { scenario } from 'browser-scenarios';\nexport default scenario('ts').tags('own').expect({ title: 'Example' });\n`);
    const { plan } = (await loadScenarios(file))[0]!;
    expect(plan.scenario.tags).toEqual(['ts', 'own']);
    expect(main(plan, 'before').map((s) => s.kind)).toEqual(['goto']);
  });

  test('problems in a defaults file are reported at its line and column', async () => {
    await write('e/bcs.defaults.yaml', `tags: [x]
steps:
  - goto: /
brwoser: { headless: true }
before_each:
  - clik: "#a"
timeout: 5
`);
    const file = await write('e/a.yaml', 'name: a\nsteps:\n  - goto: https://example.com/\n');
    expect(await problems(file)).toEqual([
      "e/bcs.defaults.yaml:2:1 'steps' has no place in a defaults file: steps belong to a scenario; steps every scenario runs go in 'before_each' or 'after_each'",
      `e/bcs.defaults.yaml:4:1 unknown field 'brwoser' in a defaults file; did you mean 'browser'? expected one of ${DEFAULT_FIELDS.join(', ')}`,
      expect.stringMatching(/^e\/bcs\.defaults\.yaml:6:5 unknown step kind 'clik'/),
      expect.stringMatching(/^e\/bcs\.defaults\.yaml:7:10 timeout: a duration needs a unit/),
    ]);
  });

  test('a merged value that does not fit the scenario is reported where the defaults file wrote it', async () => {
    await write('c/bcs.defaults.yaml', 'web_server: { command: node app.mjs, url: "http://127.0.0.1:{{ port }}/" }\n');
    const file = await write('c/a.yaml', 'name: a\nsteps:\n  - goto: /\n');
    expect((await problems(file))[0]).toMatch(/^c\/bcs\.defaults\.yaml:1:\d+ .*port/);
  });

  test('folder scans skip defaults files, bcs validate checks them, and naming one to run is refused', async () => {
    await write('s/bcs.defaults.yaml', 'tags: [x]\n');
    await write('s/a.yaml', 'name: a\nsteps:\n  - goto: https://example.com/\n');
    expect(await findScenarioFiles(['s'], dir)).toEqual(['s/a.yaml']);
    expect(await findScenarioFiles(['s'], dir, { parts: true })).toEqual(['s/a.yaml', 's/bcs.defaults.yaml']);
    await expect(findScenarioFiles(['s/bcs.defaults.yaml'], dir)).rejects.toThrow(/holds defaults for the scenarios in its folder/);
  });
});

describe('defaults.schema.json', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addSchema(scenarioSchema);
  const validate = ajv.compile(defaultsSchema);

  test('has exactly the fields a defaults file takes, each from the scenario schema', () => {
    expect(Object.keys(defaultsSchema.properties).sort()).toEqual([...DEFAULT_FIELDS].sort());
  });

  test('accepts the TodoMVC suite\'s defaults files and refuses a stray field', async () => {
    for (const name of ['bench/todomvc/scenarios/bcs.defaults.yaml', 'bench/todomvc/scenarios/three-todos/bcs.defaults.yaml']) {
      const data = parse(await readFile(join(ROOT, name), 'utf8'));
      expect(validate(data), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ steps: [] })).toBe(false);
    expect(validate({ before_each: [{ clik: '#a' }] })).toBe(false);
  });
});
