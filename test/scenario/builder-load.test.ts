// Loading TypeScript scenario files: bundled with esbuild, imported beside the file, compiled like YAML.
// Each test writes a small project into a temporary folder whose node_modules links this package, as a
// user's project installs it (the global setup builds dist/).
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScenarioError, loadPlan, loadScenario, loadScenarios, scenario, type Plan } from '../../src/scenario/index.js';
import { ROOT } from '../helpers/cli.js';

let project: string;
beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'bcs-ts-'));
  await mkdir(join(project, 'node_modules'));
  await symlink(ROOT, join(project, 'node_modules', 'browser-scenarios'), 'dir');
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const file = join(project, name);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, text);
  return file;
}

async function failure(load: Promise<unknown>): Promise<ScenarioError> {
  const err = await load.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ScenarioError);
  return err as ScenarioError;
}

/** No temporary bundle is left beside the scenarios, whatever happened. */
async function leftovers(): Promise<string[]> {
  const names = await readdir(project, { recursive: true });
  return names.filter((n) => n.endsWith('.mjs') && !n.startsWith('node_modules'));
}

function withoutSources(plan: Plan): unknown {
  return JSON.parse(JSON.stringify({ ...plan, scenario: { ...plan.scenario, file: '' } }, (k, v) => (k === 'source' ? undefined : v)));
}

describe('a TypeScript scenario file', () => {
  test('compiles to the plan of the same YAML, with sources at its TypeScript lines', async () => {
    const ts = await write(
      'same.scenario.ts',
      `import { scenario } from 'browser-scenarios';
type Who = { name: string };
const who: Who = { name: 'Ada' };

export default scenario('same')
  .vars({ visitor: who.name })
  .browser({ headless: true })
  .goto('data:text/html,<title>Hi</title>')
  .expect({ title: 'Hi', timeout: '2s' })
  .fill('#name', '{{ visitor }}');
`,
    );
    const yaml = await write(
      'same.yaml',
      `name: same
vars: { visitor: Ada }
browser: { headless: true }
steps:
  - goto: "data:text/html,<title>Hi</title>"
  - expect: { title: Hi, timeout: 2s }
  - fill: { selector: "#name", value: "{{ visitor }}" }
`,
    );
    const { plan, functions } = await loadScenario(ts, { env: {} });
    expect(functions).toEqual({});
    expect(plan.scenario.file).toBe(ts);
    expect(withoutSources(plan)).toEqual(withoutSources(await loadPlan(yaml, { env: {} })));
    const main = plan.steps.filter((s) => s.phase === 'main').map((s) => s.source);
    expect(main).toEqual([
      { file: ts, line: 8, col: 4 },
      { file: ts, line: 9, col: 4 },
      { file: ts, line: 10, col: 4 },
    ]);
    expect(plan.steps.find((s) => s.kind === 'browser')?.source).toEqual({ file: ts, line: 7, col: 4 });
    expect(await leftovers()).toEqual([]);
  });

  test('a schema problem is reported at the TypeScript call, through the bundle’s source map', async () => {
    const file = await write(
      'bad.scenario.ts',
      `import { scenario } from 'browser-scenarios';

export default scenario('bad')
  .goto('data:text/html,x')
  .click({ role: 'button', label: 'two locators' } as never);
`,
    );
    const err = await failure(loadScenario(file));
    expect(err.diagnostics).toEqual([{ file, line: 5, col: 4, message: expect.stringContaining('a target has exactly one of') }]);
  });

  test('steps a helper module adds are reported in the helper’s file', async () => {
    await write('helpers/login.ts', `import type { ScenarioBuilder } from 'browser-scenarios';\n\nexport const login = (s: ScenarioBuilder) =>\n  s.fill({ label: 'User' }, 'ada').click('');\n`);
    const file = await write(
      'helped.scenario.ts',
      `import { scenario } from 'browser-scenarios';\nimport { login } from './helpers/login.js';\n\nexport default scenario('helped').goto('data:text/html,x').use(login);\n`,
    );
    const err = await failure(loadScenario(file));
    expect(err.diagnostics).toEqual([
      { file: join(project, 'helpers/login.ts'), line: 4, col: 36, message: 'steps[2].click must not be empty' },
    ]);
  });

  test('a list as the default export is several scenarios, each with its own plan', async () => {
    const file = await write(
      'many.scenario.ts',
      `import { scenario } from 'browser-scenarios';
export default ['a', 'b'].map((n) => scenario('visit ' + n).goto('https://example.test/' + n));
`,
    );
    const all = await loadScenarios(file);
    expect(all.map((c) => c.plan.scenario.name)).toEqual(['visit a', 'visit b']);
    expect(all[1]!.plan.steps.find((s) => s.kind === 'goto')?.operations[0]).toMatchObject({ url: 'https://example.test/b' });
    const err = await failure(loadScenario(file));
    expect(err.message).toBe(`${file}:1:1 the file exports 2 scenarios; this needs a file with one (loadScenarios reads them all)`);
  });

  test('two scenarios of one name in a file are refused: their results would overwrite each other', async () => {
    const file = await write(
      'twins.scenario.ts',
      `import { scenario } from 'browser-scenarios';
const twin = () => scenario('twin').goto('https://example.test');
export default [twin(), twin()];
`,
    );
    const err = await failure(loadScenarios(file));
    expect(err.diagnostics).toEqual([{ file, line: 2, col: 20, message: "another scenario in this file is already named 'twin'" }]);
  });

  test('relative imports (data, helpers) are bundled and .mts files load too', async () => {
    await write('data/pages.json', JSON.stringify(['one', 'two']));
    const file = await write(
      'data.scenario.mts',
      `import { scenario } from 'browser-scenarios';
import pages from './data/pages.json' with { type: 'json' };
const s = scenario('data');
for (const p of pages) s.goto(\`https://example.test/\${p}\`);
export default s;
`,
    );
    const { plan } = await loadScenario(file);
    expect(plan.steps.filter((s) => s.kind === 'goto').map((s) => s.operations[0])).toMatchObject([
      { url: 'https://example.test/one' },
      { url: 'https://example.test/two' },
    ]);
  });

  test('builders in the loading process keep their own positions (loading turns on source-mapped stacks)', async () => {
    await loadScenario(await write('first.scenario.ts', `import { scenario } from 'browser-scenarios';\nexport default scenario('first').goto('about:blank');\n`));
    expect(process.sourceMapsEnabled).toBe(true);
    const here = new Error().stack!.split('\n')[1]!; // the line below is one further down
    const { plan } = scenario('after').goto('https://example.test').compile();
    const line = Number(/:(\d+):\d+\)?$/.exec(here)![1]) + 1;
    expect(plan.steps.find((s) => s.kind === 'goto')?.source).toMatchObject({ line, col: 40 });
  });

  test('--var values reach the compiled plan', async () => {
    const file = await write('vars.scenario.ts', `import { scenario } from 'browser-scenarios';\nexport default scenario('v').vars({ who: 'Ada' }).goto('https://example.test/{{ who }}');\n`);
    const { plan } = await loadScenario(file, { vars: { who: 'Grace' } });
    expect(plan.steps.find((s) => s.kind === 'goto')?.operations[0]).toMatchObject({ url: 'https://example.test/Grace' });
  });
});

describe('files that do not load', () => {
  test('a syntax error, at esbuild’s line and column', async () => {
    const file = await write('syntax.scenario.ts', `import { scenario } from 'browser-scenarios';\nexport default scenario('x').goto('a'\n  .click('b');\n`);
    const err = await failure(loadScenario(file));
    expect(err.diagnostics).toEqual([{ file, line: 3, col: 14, message: 'Expected ")" but found ";"' }]);
    expect(await leftovers()).toEqual([]);
  });

  test('code that throws while the file is imported, at the throwing line', async () => {
    const file = await write(
      'throws.scenario.ts',
      `import { scenario } from 'browser-scenarios';
const pages: string[] = [];
if (pages.length === 0) {
  throw new Error('no pages to visit');
}
export default scenario('never').goto('about:blank');
`,
    );
    const err = await failure(loadScenario(file));
    expect(err.diagnostics).toEqual([{ file, line: 4, col: 9, message: 'cannot load the scenario: no pages to visit' }]);
    expect(await leftovers()).toEqual([]);
  });

  test('a package that is not installed: named, with the scenario file rather than the bundle', async () => {
    const file = await write('missing.scenario.ts', `import { scenario } from 'browser-scenarios-nope';\nexport default scenario('x').goto('a');\n`);
    const err = await failure(loadScenario(file));
    expect(err.diagnostics).toHaveLength(1);
    expect(err.diagnostics[0]!.file).toBe(file);
    expect(err.diagnostics[0]!.message).toContain("Cannot find package 'browser-scenarios-nope'");
    expect(err.diagnostics[0]!.message).not.toContain('.bcs.mjs');
    expect(await leftovers()).toEqual([]);
  });

  test.each([
    ['no default export', `export const s = 1;\n`, 'no default export'],
    ['something else', `export default { name: 'not a builder', steps: [] };\n`, 'the default export must be a scenario'],
    ['an empty list', `export default [];\n`, 'the default export must be a scenario'],
  ])('%s', async (_, text, message) => {
    const file = await write(`export-${message.length}-${text.length}.scenario.ts`, text);
    const err = await failure(loadScenario(file));
    expect(err.diagnostics).toEqual([{ file, line: 1, col: 1, message: expect.stringContaining(message) }]);
  });

  test('a missing file, as for YAML', async () => {
    const err = await failure(loadScenario(join(project, 'nowhere.scenario.ts')));
    expect(err.diagnostics[0]).toMatchObject({ line: 1, col: 1, message: 'scenario file not found' });
  });
});
