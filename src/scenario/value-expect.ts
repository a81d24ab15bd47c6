// `expect: { var, ... }`: Playwright's generic `expect(value)` matchers on a value the scenario has (a
// variable, or what a step saved) instead of the page. Compiled to one `expect_value` operation; the
// value is read when the step runs, or here when compile time knows it (a variable).

import { describeValueCheck, preview } from './assertions.js';
import { bareName, compileExpected } from './conditions.js';
import type { CompiledKind } from './host-steps.js';
import type { DataPath } from './path.js';
import type { Operation, ValueCheck } from './plan.js';
import type { Substituter, UseSite } from './substitute.js';

type Obj = Record<string, unknown>;

/** The matchers, in the order a step name lists them. */
export const VALUE_MATCHERS = [
  'equals', 'contains', 'matches', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'length', 'truthy', 'falsy', 'defined',
] as const;

/** What an expect on a value may have beside its matchers. */
const ALSO = new Set(['var', 'not', 'timeout']);

export interface ValueExpectContext {
  sub: Substituter;
  site: UseSite;
  report(at: DataPath, message: string): void;
}

/** Whether an `expect` checks a value rather than the page. */
export function isValueExpect(written: unknown): written is Obj {
  return written !== null && typeof written === 'object' && !Array.isArray(written) && 'var' in written;
}

export function compileValueExpect(o: Obj, at: DataPath, ctx: ValueExpectContext): CompiledKind {
  // A name, not a template: `{{ r.count }}` is taken as `r.count`, as in an `if`.
  const name = bareName(String(o.var));
  const checks: ValueCheck[] = [];
  let pageKeys = false;
  for (const key of Object.keys(o)) {
    if (ALSO.has(key)) continue;
    if (!(VALUE_MATCHERS as readonly string[]).includes(key)) {
      ctx.report([...at, key], `'${key}' checks the page; an expect with 'var' checks a value, with ${VALUE_MATCHERS.join(', ')}`);
      pageKeys = true;
      continue;
    }
    checks.push({ [key]: compileExpected(o, key, at, ctx) } as ValueCheck);
  }
  if (checks.length === 0 && !pageKeys) ctx.report(at, `an expect on a value needs a matcher: ${VALUE_MATCHERS.join(', ')}`);
  // A value does not change while a step waits, so there is nothing to wait for; polling is a retry block.
  if (o.timeout !== undefined) ctx.report([...at, 'timeout'], "a value is checked once, not waited for: to poll it, put the steps that produce it and this expect in a retry block with a 'timeout'");
  const op: Extract<Operation, { op: 'expect_value' }> = { op: 'expect_value', var: name, checks };
  const found = ctx.sub.probe(name, [...at, 'var'], ctx.site);
  if (found.known) op.value = found.value;
  else if (!found.runtime) ctx.report([...at, 'var'], found.error);
  if (o.not === true) op.not = true;
  const shown = 'value' in op ? ` (${preview(op.value, 40)})` : '';
  return { name: `expect ${name}${shown} ${op.not ? 'not ' : ''}${checks.map(describeValueCheck).join(', ')}`, operations: [op] };
}
