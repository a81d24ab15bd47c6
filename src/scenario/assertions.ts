// How assertions read, in `bcs plan` and in failure messages: `exit_code 0`, `stdout contains "ok"`,
// `json $.total equals 3`. One wording for both, so a failure names the check the plan showed.

import type { Assertion, Condition, ValueCheck } from './plan.js';

/** `stdout`, or `json $.a.b` when the assertion looks inside the value. */
export function describeSubject(a: Assertion): string {
  return a.json_path === undefined ? a.subject : `${a.subject} ${a.json_path}`;
}

export function describeCondition(c: Condition): string {
  if ('equals' in c) return `equals ${preview(c.equals)}`;
  if ('one_of' in c) return `one of ${c.one_of.map((v) => preview(v)).join(', ')}`;
  if ('contains' in c) return `contains ${JSON.stringify(c.contains)}`;
  if ('matches' in c) return `matches /${c.matches}/`;
  return `at least ${c.at_least}`;
}

/** `greater than 3`, `contains "ok"`, `length 2`, `truthy`, `not defined`. */
export function describeValueCheck(c: ValueCheck): string {
  if ('contains' in c) return `contains ${preview(c.contains)}`;
  if ('truthy' in c) return 'truthy';
  if ('falsy' in c) return 'falsy';
  if ('defined' in c) return c.defined ? 'defined' : 'undefined';
  if ('equals' in c || 'matches' in c) return describeCondition(c);
  const [key, value] = Object.entries(c)[0]!;
  return `${key.replaceAll('_', ' ')} ${value}`;
}

export function describeAssertion(a: Assertion): string {
  // "exit_code 0" is how people say it; everything else reads better with its verb.
  if (a.subject === 'exit_code' && 'equals' in a) return `exit_code ${preview(a.equals)}`;
  return `${describeSubject(a)} ${describeCondition(a)}`;
}

/** Values as JSON, cut short so a 5 MB stdout does not become a 5 MB message. */
export function preview(value: unknown, max = 200): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
