// Evaluates `if` conditions and resolves `for_each` items and `repeat` counts against what the run has
// so far: its template scope (variables, saved values, loop variables) and the results of earlier steps.
import { isDeepStrictEqual } from 'node:util';
import { preview } from '../../src/scenario/assertions.js';
import { itemsOf } from '../../src/scenario/conditions.js';
import type { IfComparison, IfCondition, ValueCheck } from '../../src/scenario/plan.js';
import { resolveRuntime, runtimeValue } from '../../src/scenario/template.js';
import { StepFailure } from './failures.js';
import type { StepStatus } from '../reporters/results.js';

export interface ConditionScope {
  scope: Record<string, unknown>;
  /** The status of the latest finished run of the step with this name, if it ran. */
  lastStatus(name: string): StepStatus | undefined;
}

export function evaluate(c: IfCondition, ctx: ConditionScope): boolean {
  if ('not' in c) return !evaluate(c.not, ctx);
  if ('all' in c) return c.all.every((part) => evaluate(part, ctx));
  if ('any' in c) return c.any.some((part) => evaluate(part, ctx));
  if ('failed' in c) return ctx.lastStatus(c.failed) === 'failed';
  if ('passed' in c) return ctx.lastStatus(c.passed) === 'passed';
  if ('exists' in c) {
    if (c.known !== undefined) return c.known;
    const value = runtimeValue(ctx.scope, c.exists);
    return value !== undefined && value !== null;
  }
  const { var: name, value: known, ...rest } = c as { var: string; value?: unknown } & IfComparison;
  const actual = 'value' in c ? known : runtimeValue(ctx.scope, name);
  if (actual === undefined) {
    throw new StepFailure('step', `'${name}' has no value (a step that saves it did not run?); check it with { exists: ${name} } first`);
  }
  return holds(resolveRuntime(rest as IfComparison, ctx.scope), actual);
}

/**
 * Like the checks of host steps, but a number also equals its text: variables from the command line and
 * the YAML are text or numbers as they happen to be written, and `equals: 0` should match either.
 */
function holds(c: IfComparison, actual: unknown): boolean {
  if ('equals' in c) return looseEquals(actual, c.equals);
  if ('one_of' in c) return c.one_of.some((v) => looseEquals(actual, v));
  if ('contains' in c) {
    if (Array.isArray(actual)) return actual.some((v) => looseEquals(v, c.contains));
    return typeof actual === 'string' && actual.includes(c.contains);
  }
  if ('matches' in c) return new RegExp(c.matches).test(typeof actual === 'string' ? actual : JSON.stringify(actual));
  if ('at_least' in c) return numberOf(actual) >= c.at_least;
  return valueHolds(c, actual);
}

/**
 * `expect: { var }`'s matchers, with `if`'s rules where they overlap (equals, contains, matches), so the
 * two never disagree about a value; the rest are Playwright's generic matchers.
 */
export function valueHolds(c: ValueCheck, actual: unknown): boolean {
  if ('equals' in c) return holds(c, actual);
  if ('contains' in c) {
    if (Array.isArray(actual)) return actual.some((v) => looseEquals(v, c.contains));
    return typeof actual === 'string' && actual.includes(String(c.contains));
  }
  if ('matches' in c) return actual !== undefined && holds(c, actual);
  if ('truthy' in c) return Boolean(actual);
  if ('falsy' in c) return !actual;
  if ('defined' in c) return (actual !== undefined) === c.defined;
  if ('length' in c) return (typeof actual === 'string' || Array.isArray(actual)) && actual.length === c.length;
  const n = numberOf(actual);
  if ('greater_than' in c) return n > c.greater_than;
  if ('greater_than_or_equal' in c) return n >= c.greater_than_or_equal;
  if ('less_than' in c) return n < c.less_than;
  return n <= c.less_than_or_equal;
}

/** A number, or text that is one (a saved stdout); NaN for anything else, which no comparison holds for. */
function numberOf(v: unknown): number {
  return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
}

function looseEquals(a: unknown, b: unknown): boolean {
  if (isDeepStrictEqual(a, b)) return true;
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  return scalar(a) && scalar(b) && String(a) === String(b);
}

const SINGLE_TEMPLATE = /^\s*\{\{([^{}]*)\}\}\s*$/;

/** A `for_each`'s items: a list from the plan (its templates resolved now), or what its template names. */
export function resolveItems(items: unknown[] | string, scope: Record<string, unknown>): unknown[] {
  if (Array.isArray(items)) return resolveRuntime(items, scope);
  const single = SINGLE_TEMPLATE.exec(items);
  let value: unknown;
  if (single) {
    const name = single[1]!.trim();
    value = runtimeValue(scope, name);
    if (value === undefined || value === null) throw new StepFailure('step', `cannot resolve {{ ${name} }}: '${name}' has no value`);
  } else value = resolveRuntime(items, scope);
  const list = itemsOf(value);
  if (!Array.isArray(list)) throw new StepFailure('step', `for_each items: ${list.error}`);
  return list;
}

/** A `repeat`'s count: as compiled, or its template resolved now. */
export function resolveTimes(times: number | string, scope: Record<string, unknown>): number {
  if (typeof times === 'number') return times;
  const text = resolveRuntime(times, scope).trim();
  if (!/^\d+$/.test(text)) throw new StepFailure('step', `repeat times: expected a whole number, got ${preview(text, 80)}`);
  return Number(text);
}
