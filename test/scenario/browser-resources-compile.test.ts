// `browser:` with a profile, extensions and a proxy: passed through to POST /browsers as written, checked
// for shape at the field that is wrong, and refused beside `pool:` (a lease cannot change what its browser loaded).
import { describe, expect, it } from 'vitest';
import { compileScenario } from '../../src/scenario/compile.js';
import { ScenarioError, formatDiagnostic } from '../../src/scenario/diagnostics.js';
import { scenario } from '../../src/scenario/index.js';
import { loadScenarioSource } from '../../src/scenario/load.js';
import type { Plan } from '../../src/scenario/plan.js';
import { validateScenario } from '../../src/scenario/validate.js';

const FILE = 'scenarios/t.yaml';
function plan(yaml: string): Plan {
  const loaded = loadScenarioSource(FILE, yaml);
  const problems = validateScenario(loaded);
  if (problems.length) throw new ScenarioError(problems);
  return compileScenario(loaded, { env: {} });
}
function errors(yaml: string): string[] {
  try {
    plan(yaml);
    return [];
  } catch (err) {
    return (err as ScenarioError).diagnostics.map(formatDiagnostic);
  }
}
const createBody = (p: Plan) => {
  const op = p.steps.find((s) => s.kind === 'browser')!.operations[0]!;
  return op.op === 'acquire_browser' ? op.body : undefined;
};
const withBrowser = (browser: string) => `name: t\nbrowser: ${browser}\nsteps:\n  - sleep: 1ms\n`;

describe('browser profile, extensions and proxy', () => {
  it('are sent in the create body as written, templates substituted', () => {
    const p = plan(`name: t
vars: { who: shopper }
browser:
  headless: true
  profile: { name: "{{ who }}", save_changes: true }
  extensions: [{ name: adblock }, { id: ext123 }]
  proxy: { name: corp }
steps:
  - sleep: 1ms
`);
    expect(createBody(p)).toEqual({
      headless: true,
      profile: { name: 'shopper', save_changes: true },
      extensions: [{ name: 'adblock' }, { id: 'ext123' }],
      proxy: { name: 'corp' },
    });
    expect(createBody(plan(withBrowser('{ proxy: { mode: direct } }')))).toEqual({ proxy: { mode: 'direct' } });
    expect(createBody(plan(withBrowser('{ proxy_id: px1 }')))).toEqual({ proxy_id: 'px1' });
  });

  it('name each choice by exactly one of its keys, reported where it is written', () => {
    expect(errors(withBrowser('{ profile: { save_changes: true } }'))).toEqual([
      "scenarios/t.yaml:2:21 browser.profile: a profile needs 'name' or 'id'",
    ]);
    expect(errors(withBrowser('{ profile: { name: a, id: b } }'))).toEqual([
      "scenarios/t.yaml:2:32 browser.profile: select the profile by 'name' or by 'id', not both; found 'name' and 'id'",
    ]);
    expect(errors(withBrowser('{ extensions: [{ name: a }, {}] }'))).toEqual([
      "scenarios/t.yaml:2:38 browser.extensions[1]: an extension needs 'name' or 'id'",
    ]);
    expect(errors(withBrowser('{ proxy: { mode: tor } }'))).toEqual([
      'scenarios/t.yaml:2:27 browser.proxy.mode must be one of direct, default',
    ]);
    expect(errors(withBrowser('{ proxy: { name: a, mode: direct } }'))).toEqual([
      "scenarios/t.yaml:2:30 browser.proxy: a proxy has exactly one of 'name', 'id' and 'mode'; found 'name' and 'mode'",
    ]);
    expect(errors(withBrowser('{ proxy: { id: a }, proxy_id: b }'))).toEqual([
      "scenarios/t.yaml:2:40 use 'proxy' or the deprecated 'proxy_id', not both",
    ]);
    expect(errors(withBrowser('{ profile: { name: a, save: true } }'))).toEqual([
      "scenarios/t.yaml:2:32 unknown field 'save' in browser.profile; expected one of name, id, save_changes",
    ]);
  });

  it('are refused beside pool, at the value', () => {
    expect(errors(withBrowser('{ pool: warm, profile: { name: p } }'))).toEqual([
      "scenarios/t.yaml:2:33 'profile' cannot be set on a lease: a pool's browsers load their profile from the pool's configuration (set it when the pool is created), or drop 'pool' to create a browser with it",
    ]);
    const yaml = `name: t
browser:
  pool: warm
  extensions: [{ name: a }]
  proxy: { name: corp }
  proxy_id: px
steps:
  - sleep: 1ms
`;
    expect(errors(yaml).map((e) => e.split(' ').slice(0, 2).join(' '))).toEqual([
      "scenarios/t.yaml:4:15 'extensions'",
      "scenarios/t.yaml:5:10 'proxy'",
      "scenarios/t.yaml:6:13 'proxy_id'",
    ]);
  });

  it('are typed and compiled the same from a TypeScript scenario', () => {
    const { plan: built } = scenario('t')
      .browser({ profile: { name: 'shopper', save_changes: true }, extensions: [{ id: 'e1' }], proxy: { mode: 'direct' } })
      .sleep(1)
      .compile();
    expect(createBody(built)).toEqual({ profile: { name: 'shopper', save_changes: true }, extensions: [{ id: 'e1' }], proxy: { mode: 'direct' } });
    // @ts-expect-error a profile is chosen by name or by id, not both
    const both = () => scenario('t').browser({ profile: { name: 'a', id: 'b' } }).sleep(1).compile();
    expect(both).toThrow(/select the profile by 'name' or by 'id', not both/);
  });
});
