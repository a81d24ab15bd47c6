// `bcs plan`: a Plan as a person reads it — phases, steps with their source lines, and each operation.
import type { Operation, Plan, StepPhase } from '../src/scenario/plan.js';

const PHASE_TITLES: Record<StepPhase, string> = {
  setup: 'setup',
  main: 'steps',
  teardown: 'teardown (always runs)',
};

export function formatPlan(plan: Plan): string {
  const lines = [`${plan.scenario.name}  ${plan.scenario.file}${plan.scenario.tags.length ? `  [${plan.scenario.tags.join(', ')}]` : ''}`];
  let phase: StepPhase | undefined;
  for (const step of plan.steps) {
    if (step.phase !== phase) {
      phase = step.phase;
      lines.push('', PHASE_TITLES[phase]);
    }
    const where = `${step.source.line}:${step.source.col}`;
    lines.push(`  ${String(step.index + 1).padStart(2)}. ${step.name}  (line ${where}, timeout ${step.timeout_ms} ms)`);
    for (const op of step.operations) lines.push(`        ${describeOperation(op)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function describeOperation(op: Operation): string {
  switch (op.op) {
    case 'serve':
      return `serve folder ${op.dir} -> {{ ${op.save}.url }}`;
    case 'serve_stop':
      return 'stop serving';
    case 'api':
      return `${op.method} ${op.path}${op.body === undefined ? '' : ` ${JSON.stringify(op.body)}`}${op.save ? ` -> {{ ${op.save} }}` : ''}`;
    case 'connect':
      return `playwright connectOverCDP ${op.ws_url}`;
    case 'disconnect':
      return 'playwright disconnect';
    case 'page': {
      const { op: _op, action, ...args } = op;
      return `page ${action} ${JSON.stringify(args)}`;
    }
  }
}
