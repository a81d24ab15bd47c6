// `expect: { var }`: a value the scenario has, checked once with Playwright's generic matchers. A failure
// reads as the plan words the check, then Expected/Received lines as Playwright prints them.
import { describeValueCheck, preview } from '../../src/scenario/assertions.js';
import type { Operation, ValueCheck } from '../../src/scenario/plan.js';
import { runtimeValue } from '../../src/scenario/template.js';
import { valueHolds } from './conditions.js';
import { assertionFailed } from './failures.js';

type ExpectValue = Extract<Operation, { op: 'expect_value' }>;

/** Throws an assertion failure naming each check that did not hold (with `not`: each that did). */
export function expectValue(op: ExpectValue, scope: Record<string, unknown>): void {
  const actual = 'value' in op ? op.value : runtimeValue(scope, op.var);
  const wrong = op.checks.filter((c) => valueHolds(c, actual) === Boolean(op.not));
  if (wrong.length === 0) return;
  const not = op.not ? 'not ' : '';
  const lines = wrong.flatMap((c) => [`Expected${label(c, 'expected', actual)}: ${not}${expected(c)}`, `Received${label(c, 'received', actual)}: ${received(c, actual)}`]);
  throw assertionFailed(`expected ${op.var} ${not}${wrong.map(describeValueCheck).join(', ')}, got ${preview(actual, 120)}\n\n${lines.join('\n')}`);
}

/** Playwright's labels: `Expected substring`, `Received array`, `Expected length`... */
function label(c: ValueCheck, side: 'expected' | 'received', actual: unknown): string {
  const kind = Array.isArray(actual) ? ' array' : typeof actual === 'string' ? ' string' : '';
  if ('contains' in c) return side === 'expected' ? (Array.isArray(actual) ? ' value' : ' substring') : kind;
  if ('matches' in c) return side === 'expected' ? ' pattern' : kind;
  if ('length' in c) return ' length';
  return '';
}

function expected(c: ValueCheck): string {
  if ('equals' in c) return preview(c.equals);
  if ('contains' in c) return preview(c.contains);
  if ('matches' in c) return `/${c.matches}/`;
  if ('length' in c) return String(c.length);
  if ('truthy' in c) return 'truthy';
  if ('falsy' in c) return 'falsy';
  if ('defined' in c) return c.defined ? 'defined' : 'undefined';
  const [key, value] = Object.entries(c)[0]!;
  const sign = { greater_than: '>', greater_than_or_equal: '>=', less_than: '<', less_than_or_equal: '<=' }[key];
  return `${sign} ${value}`;
}

function received(c: ValueCheck, actual: unknown): string {
  if ('length' in c) return typeof actual === 'string' || Array.isArray(actual) ? String(actual.length) : `${preview(actual)} (no length)`;
  return actual === undefined ? 'undefined' : preview(actual);
}
