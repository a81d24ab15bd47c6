// Compiles a few steps written as YAML into a plan, for tests of what the compiler makes of them.
import { ScenarioError, compileScenario, loadScenarioSource, validateScenario } from '../../src/scenario/index.js';
import type { Operation, Plan } from '../../src/scenario/index.js';

/** `steps` (YAML list lines) in a scenario `t.yaml`, with `head` before them (`browser: ...\n`). */
export function plan(steps: string, head = ''): Plan {
  const loaded = loadScenarioSource('t.yaml', `name: t\n${head}steps:\n${steps}`);
  const problems = validateScenario(loaded);
  if (problems.length) throw new ScenarioError(problems);
  return compileScenario(loaded, { env: {} });
}

/** The problems the steps have, as `line:col message`; none when they compile. */
export function errors(steps: string): string[] {
  try {
    plan(steps);
  } catch (err) {
    return (err as ScenarioError).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
  }
  return [];
}

export const main = (p: Plan) => p.steps.filter((s) => s.phase === 'main');
/** The i-th main step's page operation. */
export const op = (p: Plan, i = 0) => main(p)[i]!.operations[0] as Extract<Operation, { op: 'page' }>;
