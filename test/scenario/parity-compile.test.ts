// Steps and options that bring the language level with Playwright Test, in the plan: history navigation,
// keyboard input without a target, the further assertions, getByRole's options and checks on saved values.
import { describe, expect, test } from 'vitest';
import { ScenarioError, compileScenario, loadScenarioSource, validateScenario } from '../../src/scenario/index.js';
import type { Operation, Plan } from '../../src/scenario/index.js';

function plan(steps: string, head = ''): Plan {
  const loaded = loadScenarioSource('t.yaml', `name: t\n${head}steps:\n${steps}`);
  const problems = validateScenario(loaded);
  if (problems.length) throw new ScenarioError(problems);
  return compileScenario(loaded, { env: {} });
}

const main = (p: Plan) => p.steps.filter((s) => s.phase === 'main');
const op = (p: Plan, i = 0) => main(p)[i]!.operations[0] as Extract<Operation, { op: 'page' }>;

function errors(steps: string): string[] {
  try {
    plan(steps);
  } catch (err) {
    return (err as ScenarioError).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
  }
  return [];
}

describe('keyboard', () => {
  test('type without a locator types into whatever has focus; with one, into the element', () => {
    const p = plan('  - type: hello\n  - type: { value: 42, delay: 20ms }\n  - type: { label: Q, value: x }\n  - press: { key: Enter, label: Q }\n');
    expect(main(p).map((s) => [s.name, s.operations[0]])).toEqual([
      ['type "hello"', { op: 'page', action: 'type', text: 'hello' }],
      ['type "42"', { op: 'page', action: 'type', text: '42', delay_ms: 20 }],
      ['type "x" into label="Q"', { op: 'page', action: 'type', target: { label: 'Q' }, text: 'x' }],
      ['press Enter on label="Q"', { op: 'page', action: 'press', key: 'Enter', target: { label: 'Q' } }],
    ]);
  });
});

describe('navigation', () => {
  test('go_back, go_forward and reload, with or without wait_until', () => {
    const p = plan('  - go_back: true\n  - go_forward:\n  - reload: { wait_until: networkidle }\n');
    expect(main(p).map((s) => [s.name, s.operations[0]])).toEqual([
      ['go back', { op: 'page', action: 'go_back' }],
      ['go forward', { op: 'page', action: 'go_forward' }],
      ['reload', { op: 'page', action: 'reload', wait_until: 'networkidle' }],
    ]);
  });

  test('an unknown wait is refused where it is written', () => {
    expect(errors('  - reload: { wait_until: idle }\n')[0]).toBe("3:27 steps[0].reload.wait_until must be one of load, domcontentloaded, networkidle, commit");
  });
});
