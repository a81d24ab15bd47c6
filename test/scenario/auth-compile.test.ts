// `browser: { auth }`: a setup step that makes sure of the connection ahead of the create, which starts from
// the connection's profile read-only; the same from TypeScript; refused beside `profile` and `pool`, and
// malformed values reported at their file:line:col with what was expected.
import { describe, expect, it } from 'vitest';
import { compileScenario } from '../../src/scenario/compile.js';
import { ScenarioError, formatDiagnostic } from '../../src/scenario/diagnostics.js';
import { scenario } from '../../src/scenario/index.js';
import { loadScenarioSource } from '../../src/scenario/load.js';
import type { Plan } from '../../src/scenario/plan.js';
import { validateScenario } from '../../src/scenario/validate.js';
import { browserNeed } from '../../runner/suite/browser-need.js';
import { formatPlan } from '../../runner/cli/plan-format.js';

const FILE = 'scenarios/t.yaml';
function plan(yaml: string): Plan {
  const loaded = loadScenarioSource(FILE, yaml);
  const problems = validateScenario(loaded);
  if (problems.length) throw new ScenarioError(problems);
  return compileScenario(loaded, { env: { CONN: 'conn_env' } });
}
function errors(yaml: string): string[] {
  try {
    plan(yaml);
    return [];
  } catch (err) {
    return (err as ScenarioError).diagnostics.map(formatDiagnostic);
  }
}
const withBrowser = (browser: string) => `name: t\nbrowser: ${browser}\nsteps:\n  - goto: "https://example.com/"\n`;
const setup = (p: Plan) => p.steps.filter((s) => s.phase === 'setup');

describe('browser auth', () => {
  it('makes sure of the connection in a step of its own, then creates the browser from its profile, read-only', () => {
    const p = plan(withBrowser('{ headless: true, auth: conn_1 }'));
    const [auth, create] = setup(p);
    expect(auth).toMatchObject({
      kind: 'auth', phase: 'setup', name: 'make sure auth connection conn_1 is logged in', source: { file: FILE, line: 2, col: 28 }, timeout_ms: 900_000,
      operations: [{ op: 'auth', connection: { id: 'conn_1' }, save: 'auth-connection' }],
    });
    expect(create!.kind).toBe('browser');
    expect(create!.operations[0]).toMatchObject({
      op: 'acquire_browser',
      body: { headless: true, profile: { name: '{{ auth-connection.profile_name }}', save_changes: false } },
    });
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
    // The profile is only known once the step before has run: nothing is created ahead of the scenario.
    expect(browserNeed(p)).toBeUndefined();
  });

  it('finds a connection by domain and profile, with a timeout of its own; templates are substituted', () => {
    const byDomain = setup(plan(withBrowser('{ auth: { domain: example.com, profile: shopper, timeout: 2m } }')))[0]!;
    expect(byDomain).toMatchObject({
      name: 'make sure the auth connection for example.com (profile shopper) is logged in', timeout_ms: 120_000,
      operations: [{ op: 'auth', connection: { domain: 'example.com', profile_name: 'shopper' } }],
    });
    expect(setup(plan(withBrowser('{ auth: { id: "{{ env.CONN }}" } }')))[0]!.operations[0]).toMatchObject({ connection: { id: 'conn_env' } });
  });

  it('shows in bcs plan as the calls it makes', () => {
    const text = formatPlan(plan(withBrowser('{ auth: conn_1 }')));
    expect(text).toContain('1. make sure auth connection conn_1 is logged in  (line 2:12, timeout 900000 ms)');
    expect(text).toContain('GET /auth/connections/conn_1 -> {{ auth-connection }}');
    expect(text).toContain('then follow GET /auth/connections/{id}/events until the flow ends');
    expect(text).toContain('POST /browsers {"profile":{"name":"{{ auth-connection.profile_name }}","save_changes":false}} -> {{ session }}');
  });

  it('is refused beside profile and pool, at the value', () => {
    expect(errors(withBrowser('{ profile: { name: p }, auth: conn_1 }'))).toEqual([
      "scenarios/t.yaml:2:40 'auth' cannot be combined with 'profile': the browser starts from the auth connection's own profile (read-only); drop 'profile'",
    ]);
    expect(errors(withBrowser('{ pool: warm, auth: { domain: example.com, profile: p } }'))).toEqual([
      "scenarios/t.yaml:2:30 'auth' cannot be combined with 'pool': a pool's browsers were launched with the pool's own profile, so a lease cannot start logged in; drop 'pool' to create a browser from the connection's profile",
    ]);
  });

  it('reports malformed values at the value, saying what is expected', () => {
    expect(errors(withBrowser('{ auth: 7 }'))).toEqual([
      'scenarios/t.yaml:2:18 browser.auth: expected an auth connection id, or an object with id (or domain and profile) and optional timeout',
    ]);
    expect(errors(withBrowser('{ auth: "" }'))).toEqual(['scenarios/t.yaml:2:18 browser.auth must not be empty']);
    expect(errors(withBrowser('{ auth: { domain: example.com } }'))).toEqual([
      "scenarios/t.yaml:2:18 browser.auth: an auth connection is found by 'id', or by 'domain' and 'profile'",
    ]);
    expect(errors(withBrowser('{ auth: { id: a, domain: example.com, profile: p } }'))).toEqual([
      "scenarios/t.yaml:2:27 browser.auth: find the auth connection by 'id' or by 'domain' and 'profile', not both; found 'id', 'domain' and 'profile'",
    ]);
    expect(errors(withBrowser('{ auth: { id: a, domain: example.com } }'))).toEqual([
      "scenarios/t.yaml:2:35 'domain' is for finding the connection without its id; with 'id', leave it out",
    ]);
    expect(errors(withBrowser('{ auth: { id: a, profle: p } }'))).toEqual([
      "scenarios/t.yaml:2:27 unknown field 'profle' in browser.auth; did you mean 'profile'? expected one of id, domain, profile, timeout",
    ]);
    expect(errors(withBrowser('{ auth: { id: a, timeout: 5 } }'))).toEqual([
      'scenarios/t.yaml:2:36 browser.auth.timeout: a duration needs a unit: write "5ms" or "5s" (a bare number 5 could mean either)',
    ]);
  });

  it('is typed and compiled the same from a TypeScript scenario, durations in milliseconds', () => {
    const { plan: built } = scenario('t').browser({ auth: { domain: 'example.com', profile: 'shopper', timeout: 90_000 } }).goto('https://example.com/').compile();
    expect(setup(built)[0]).toMatchObject({ kind: 'auth', timeout_ms: 90_000, operations: [{ op: 'auth', connection: { domain: 'example.com', profile_name: 'shopper' } }] });
    // @ts-expect-error a connection is found by id or by domain and profile, not both
    const both = () => scenario('t').browser({ auth: { id: 'a', domain: 'example.com', profile: 'p' } }).goto('https://example.com/').compile();
    expect(both).toThrow(/find the auth connection by 'id' or by 'domain' and 'profile', not both/);
    const beside = () => scenario('t').browser({ auth: 'conn_1', profile: { name: 'p' } }).goto('https://example.com/').compile();
    expect(beside).toThrow(/'auth' cannot be combined with 'profile'/);
  });
});
