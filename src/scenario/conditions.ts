// `if` conditions: compiled from what a scenario writes to plain data the runner evaluates, and worded
// the same way for step names, `bcs plan` and failure messages.

import { describeCondition, describeValueCheck, preview } from './assertions.js';
import type { DataPath } from './path.js';
import type { IfComparison, IfCondition } from './plan.js';
import type { Substituter, UseSite } from './substitute.js';
import { hasTemplate, isPlainObject, templateNames } from './template.js';

type Obj = Record<string, unknown>;

export interface ConditionContext {
  sub: Substituter;
  site: UseSite;
  /** Names of the steps compiled so far, i.e. those that run before this one. */
  earlierSteps: ReadonlySet<string>;
  report(at: DataPath, message: string): void;
}

/** What an `if` compares a value with: an expect's value matchers but `defined` (that is `exists`), and one_of and at_least. */
export const IF_MATCHERS = ['equals', 'one_of', 'contains', 'matches', 'at_least', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'length', 'truthy', 'falsy'] as const;

/**
 * A matcher's expected value (`if`'s and a value expect's), templates filled in; a `matches` pattern known
 * now is checked now.
 */
export function compileExpected(written: Obj, key: string, at: DataPath, ctx: Pick<ConditionContext, 'sub' | 'site' | 'report'>): unknown {
  const expected = ctx.sub.substitute(written[key], [...at, key], ctx.site);
  if (key === 'matches' && typeof expected === 'string' && !hasTemplate(expected)) {
    try {
      new RegExp(expected);
    } catch (err) {
      ctx.report([...at, key], `invalid regular expression: ${(err as Error).message}`);
    }
  }
  return expected;
}

/** Assumes the condition passed validation (one head key, the right shapes). */
export function compileCondition(c: Obj, at: DataPath, ctx: ConditionContext): IfCondition {
  if (isPlainObject(c.not)) return { not: compileCondition(c.not, [...at, 'not'], ctx) };
  for (const key of ['all', 'any'] as const) {
    const list = c[key];
    if (Array.isArray(list)) {
      const parts = list.map((item, i) => compileCondition(item as Obj, [...at, key, i], ctx));
      return key === 'all' ? { all: parts } : { any: parts };
    }
  }
  for (const key of ['failed', 'passed'] as const) {
    if (typeof c[key] !== 'string') continue;
    const name = ctx.sub.substitute(c[key] as string, [...at, key], ctx.site);
    if (!ctx.earlierSteps.has(name)) ctx.report([...at, key], `no step before this one is named '${name}'; give the step 'name: ${name}'`);
    return key === 'failed' ? { failed: name } : { passed: name };
  }
  if (typeof c.exists === 'string') {
    // Not having a value is the point of asking, so an unknown name is simply false.
    const name = bareName(c.exists);
    const found = ctx.sub.probe(name, [...at, 'exists'], ctx.site);
    return found.known ? { exists: name, known: true } : found.runtime ? { exists: name } : { exists: name, known: false };
  }
  const name = bareName(String(c.var));
  const op = IF_MATCHERS.find((k) => k in c)!;
  const expected = compileExpected(c, op, at, ctx);
  const condition = { var: name, [op]: expected } as IfCondition;
  const found = ctx.sub.probe(name, [...at, 'var'], ctx.site);
  if (found.known) return { var: name, value: found.value, [op]: expected } as IfCondition;
  if (!found.runtime) ctx.report([...at, 'var'], found.error);
  return condition;
}

/** `{{ login.exit_code }}` is accepted where a name is expected, as `login.exit_code`. */
export function bareName(text: string): string {
  const names = templateNames(text);
  return names.length === 1 && /^\s*\{\{[^{}]*\}\}\s*$/.test(text) ? names[0]! : text.trim();
}

/** `login.exit_code equals 0`, `step "login" failed`, `not (debug exists)`. */
export function describeIfCondition(c: IfCondition): string {
  if ('not' in c) return `not (${describeIfCondition(c.not)})`;
  if ('all' in c) return c.all.map(grouped).join(' and ');
  if ('any' in c) return c.any.map(grouped).join(' or ');
  if ('failed' in c) return `step "${c.failed}" failed`;
  if ('passed' in c) return `step "${c.passed}" passed`;
  if ('exists' in c) return `${c.exists} exists`;
  const { var: name, value, ...op } = c as { var: string; value?: unknown } & IfComparison;
  const known = 'value' in c ? ` (${preview(value, 40)})` : '';
  const words = 'one_of' in op || 'at_least' in op || 'contains' in op ? describeCondition(op) : describeValueCheck(op);
  return `${name}${known} ${words}`;
}

function grouped(c: IfCondition): string {
  return 'all' in c || 'any' in c ? `(${describeIfCondition(c)})` : describeIfCondition(c);
}

/**
 * The items of a `for_each`: a list as it is; text (a saved stdout, a file, a variable) as a JSON list
 * when it is one, else one item per non-empty line. Anything else is not a list.
 */
export function itemsOf(value: unknown): unknown[] | { error: string } {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') return { error: `expected a list of items, got ${preview(value, 80)}` };
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON after all: taken line by line
    }
  }
  return text.split(/\r?\n/).filter((line) => line.trim() !== '');
}
