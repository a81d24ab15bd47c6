// What a running step says it waits for (`stepProgress`, a login waiting for a person): off a terminal, plain
// lines; on one, a line under the step in the live tree, and the detail (a URL a person must open) written
// above the tree whole, where cutting lines to the terminal's width cannot shorten it.
import { describe, expect, test } from 'vitest';
import type { Plan, PlanStep } from '../../src/scenario/plan.js';
import { consoleReporter } from '../../runner/reporters/console.js';

const URL = `http://127.0.0.1:8340/auth/connections/c1/hosted?code=${'x'.repeat(120)}`;
const step: PlanStep = {
  index: 0, phase: 'setup', kind: 'auth', name: 'make sure auth connection c1 is logged in', source: { file: 's.yaml', line: 3, col: 3 }, timeout_ms: 1000,
  operations: [{ op: 'auth', connection: { id: 'c1' }, save: 'auth-connection' }],
};
const plan: Plan = { version: 1, scenario: { name: 'logged in', file: 's.yaml', tags: [] }, steps: [step] };
const detail = `auth connection c1: the login waits for a person; complete it at:\n  ${URL}`;

function drive(tty: boolean): string {
  let out = '';
  const reporter = consoleReporter({ write: (s: string) => ((out += s), true), columns: 80, rows: 20 }, { tty, color: false });
  reporter.scenarioStarted!(plan);
  reporter.stepStarted!(plan, step, step.name);
  reporter.stepProgress!(plan, step, 'waiting for a person to complete the login', detail);
  return out;
}

describe('step progress in the list reporter', () => {
  test('off a terminal: a line with the status, then the detail', () => {
    expect(drive(false).split('\n').slice(-4)).toEqual([
      '  … make sure auth connection c1 is logged in: waiting for a person to complete the login',
      '      auth connection c1: the login waits for a person; complete it at:',
      `        ${URL}`,
      '',
    ]);
  });

  test('on a terminal: the detail above the tree in full, the status under the running step', () => {
    const out = drive(true);
    // Written for good (before the tree is drawn again), not cut to the 80 columns of the tree.
    expect(out).toContain(`[logged in] make sure auth connection c1 is logged in:\n      auth connection c1: the login waits for a person; complete it at:\n        ${URL}\n`);
    const lastFrame = out.slice(out.lastIndexOf(URL));
    expect(lastFrame).toMatch(/ make sure auth connection c1 is logged in {2}\d+ ms\n {6}waiting for a person to complete the login\n$/);
  });
});
