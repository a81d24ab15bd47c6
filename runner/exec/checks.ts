// Evaluates a Plan's assertions against a decoded response, locally, and words each failure the way
// `bcs plan` words the check: "expected exit_code 0, got 2; stderr: ...".
import { isDeepStrictEqual } from 'node:util';
import { describeAssertion, preview } from '../../src/scenario/assertions.js';
import { parseJsonPath, valueAt } from '../../src/scenario/json-path.js';
import type { Assertion, Condition } from '../../src/scenario/plan.js';
import { tail, type Decoded } from './decode.js';

/** One message per assertion that does not hold; empty when all hold. */
export function failedChecks(assertions: Assertion[], decoded: Decoded): { subject: string; message: string }[] {
  const failed: { subject: string; message: string }[] = [];
  for (const a of assertions) {
    const expected = `expected ${describeAssertion(a)}`;
    let actual = decoded.fields[a.subject];
    const absent = decoded.absent?.[a.subject];
    if (actual === undefined && absent) {
      failed.push({ subject: a.subject, message: `${expected}, but ${absent}` });
      continue;
    }
    if (a.json_path !== undefined) {
      const found = valueAt(actual, parseJsonPath(a.json_path));
      if (!found.found) {
        failed.push({ subject: a.subject, message: `${expected}, but there is nothing at ${found.missing}` });
        continue;
      }
      actual = found.value;
    }
    if (!holds(a, actual)) failed.push({ subject: a.subject, message: `${expected}, got ${preview(actual)}` });
  }
  return failed;
}

/** The failures in one message, with what the response adds (stderr, a timeout) unless already shown. */
export function failureMessage(failed: { subject: string; message: string }[], decoded: Decoded): string {
  const parts = failed.map((f) => f.message);
  if (decoded.note) parts.push(decoded.note);
  const shown = new Set(failed.map((f) => f.subject));
  const context = decoded.context?.find((c) => !shown.has(c.subject));
  if (context) parts.push(`${context.subject}: ${tail(context.text)}`);
  return parts.join('; ');
}

function holds(c: Condition, actual: unknown): boolean {
  if ('equals' in c) return isDeepStrictEqual(actual, c.equals);
  if ('one_of' in c) return c.one_of.some((v) => isDeepStrictEqual(actual, v));
  if ('contains' in c) return typeof actual === 'string' && actual.includes(c.contains);
  if ('matches' in c) return typeof actual === 'string' && new RegExp(c.matches).test(actual);
  return typeof actual === 'number' && actual >= c.at_least;
}
