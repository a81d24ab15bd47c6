// Problems in a TypeScript scenario are reported at the builder call that wrote them, as YAML problems are
// at their line. The calls below carry marker comments; each expectation finds its marker's line.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { ScenarioError, scenario, type ScenarioBuilder } from '../../src/scenario/index.js';
import { parseFrame } from '../../src/scenario/builder-sites.js';

const PATH = fileURLToPath(import.meta.url);
const FILE = relative(process.cwd(), PATH);
const LINES = readFileSync(PATH, 'utf8').split('\n');

/** Where the call `.method(` on the line marked `// <marker>` is: its line, and the column of the method name. */
function at(marker: string, method: string): { line: number; col: number } {
  const index = LINES.findIndex((l) => l.endsWith(`// ${marker}`));
  const line = LINES[index] ?? '';
  const col = line.indexOf(`${method}(`);
  if (index < 0 || col < 0) throw new Error(`no call ${method}( on a line marked ${marker}`);
  return { line: index + 1, col: col + 1 };
}

function problems(b: ScenarioBuilder): { file: string; line: number; col: number; message: string }[] {
  try {
    b.compile({ env: {} });
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return (err as ScenarioError).diagnostics;
  }
  throw new Error('expected a ScenarioError');
}

describe('diagnostics point at the builder call', () => {
  test('a schema problem in a step', () => {
    const b = scenario('bad step')
      .goto('https://example.test')
      .goto({ url: 'https://example.test', wait_until: 'soon' as never }); // bad-goto
    expect(problems(b)).toEqual([
      { file: FILE, ...at('bad-goto', 'goto'), message: expect.stringContaining('wait_until must be one of load, domcontentloaded') },
    ]);
  });

  test('an unknown kind through step(), a bad browser field and a bad variable name, all at once and in order', () => {
    const b = scenario('many')
      .browser({ headless: 'yes' as never }) // bad-browser
      .vars({ 'not a name': 1 }) // bad-var
      .step('gotoo', 'https://example.test'); // bad-kind
    expect(problems(b)).toEqual([
      { file: FILE, ...at('bad-browser', 'browser'), message: 'browser.headless must be a boolean' },
      { file: FILE, ...at('bad-var', 'vars'), message: expect.stringContaining("invalid variable name 'not a name'") },
      { file: FILE, ...at('bad-kind', 'step'), message: expect.stringContaining("unknown step kind 'gotoo'") },
    ]);
  });

  test('a template naming an unknown variable', () => {
    const b = scenario('template')
      .vars({ known: 'x' })
      .goto('https://example.test/{{ unknown }}'); // bad-template
    const [problem] = problems(b);
    expect(problem).toMatchObject({ file: FILE, ...at('bad-template', 'goto') });
    expect(problem!.message).toContain('unknown');
  });

  test('a scenario without steps, at the scenario() call', () => {
    const b = scenario('empty'); // no-steps
    expect(problems(b)).toEqual([{ file: FILE, ...at('no-steps', 'scenario'), message: 'steps must not be empty' }]);
  });

  test('a bad computer action, at the action’s own call inside the callback', () => {
    const b = scenario('computer').computer((c) =>
      c
        .click(10, 10)
        .click(1, 2, { num_clicks: 20 }), // bad-action
    );
    expect(problems(b)).toEqual([
      { file: FILE, ...at('bad-action', 'click'), message: expect.stringContaining('num_clicks must be <= 10') },
    ]);
  });

  test('a step inside a block, at its own call inside the block', () => {
    const b = scenario('nested').retry(2, (s) =>
      s
        .goto('https://example.test')
        .sleep('soon' as never), // nested-bad
    );
    expect(problems(b)).toEqual([
      { file: FILE, ...at('nested-bad', 'sleep'), message: expect.stringContaining('expected a duration') },
    ]);
  });

  test('plan steps carry the call site as their source', () => {
    const { plan } = scenario('sources')
      .goto('https://example.test') // source-goto
      .sleep(5) // source-sleep
      .compile();
    expect(plan.scenario.file).toBe(FILE);
    expect(plan.steps.filter((s) => s.phase === 'main').map((s) => s.source)).toEqual([
      { file: FILE, ...at('source-goto', 'goto') },
      { file: FILE, ...at('source-sleep', 'sleep') },
    ]);
  });

  test('the file named in compile() is the one reported', () => {
    const [problem] = problems(scenario('named').goto('')); // named-file
    expect(problem!.file).toBe(FILE);
    try {
      scenario('named').goto('').compile({ file: 'elsewhere/named.scenario.ts' });
      expect.unreachable();
    } catch (err) {
      // A call site in another file than the one named keeps its own file: the position is real.
      expect((err as ScenarioError).diagnostics[0]).toMatchObject({ file: FILE });
    }
  });
});

describe('stack frames', () => {
  test.each([
    ['at Object.<anonymous> (/a/b c/x.ts:3:7)', { file: '/a/b c/x.ts', line: 3, col: 7 }],
    ['at /a/x.ts:3:7', { file: '/a/x.ts', line: 3, col: 7 }],
    ['at file:///a/x%20y.mjs:30:17', { file: '/a/x y.mjs', line: 30, col: 17 }],
    ['at async fn (file:///a/x.mjs:1:2)', { file: '/a/x.mjs', line: 1, col: 2 }],
    ['at fn (/a/(b)/x.ts:1:2)', { file: '/a/(b)/x.ts', line: 1, col: 2 }],
  ])('%s', (frame, site) => {
    expect(parseFrame(`    ${frame}`)).toEqual(site);
  });

  test('frames without a file position are not call sites', () => {
    expect(parseFrame('    at new Promise (<anonymous>)')).toBeUndefined();
    expect(parseFrame('    at node:internal/modules/run_main:123:5')).toBeUndefined();
  });
});
