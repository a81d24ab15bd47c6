// Errors the executor raises, classified so results and exit codes can tell them apart.
import { stripVTControlCharacters } from 'node:util';
import { ApiConnectionError, ApiTimeoutError } from '../../src/api/errors.js';
import type { FailureKind } from '../reporters/results.js';

export class StepFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'StepFailure';
  }
}

export const assertionFailed = (message: string) => new StepFailure('assertion', message);

/** Playwright's timeout errors, our own step timer, the API transport's errors, and anything else, each mapped to a kind. */
export function classify(err: unknown, fallback: FailureKind): StepFailure {
  if (err instanceof StepFailure) return err;
  // A service that cannot be reached is not the scenario's fault; an error answer (404, 400) is.
  if (err instanceof ApiConnectionError) return new StepFailure('infrastructure', err.message);
  if (err instanceof ApiTimeoutError) return new StepFailure('timeout', err.message);
  const e = err as Error;
  if (e?.name === 'TimeoutError') return new StepFailure('timeout', withCallLog(e.message));
  return new StepFailure(fallback, withCallLog(e?.message ?? String(err)));
}

/** Call log lines kept: what the action waited for and the first few things it saw are what matter. */
const CALL_LOG_LINES = 12;

/**
 * Playwright's message, whose call log says what the action waited for (`waiting for getByRole(...)`), the
 * part a reader needs to tell a missing element from a hidden or covered one; without colours, cut short.
 */
function withCallLog(message: string): string {
  const [whole = message, log] = stripVTControlCharacters(message).split('\nCall log:');
  const head = oneLineStrict(whole);
  const lines = (log ?? '').split('\n').filter((l) => l.trim());
  if (!lines.length) return head.trim();
  const shown = lines.slice(0, CALL_LOG_LINES);
  if (lines.length > shown.length) shown.push(`  … ${lines.length - shown.length} more`);
  return `${head.trim()}\nCall log:\n${shown.join('\n')}`;
}

/** Playwright's list of the elements a strict-mode violation found: `    1) <li>milk</li> aka getByText('milk')`. */
const STRICT = /strict mode violation: (.+ resolved to \d+ elements):((?:\n[ \t]+(?:\d+\) .*|\.\.\.))+)/;

/**
 * A strict-mode violation (a locator that needed one element found several) in one line, the elements
 * named after the count, so a summary that shows only the first line says which they were instead of
 * ending on `resolved to 2 elements:`. Undefined for any other message.
 */
export function strictViolation(message: string): string | undefined {
  const m = STRICT.exec(message);
  if (!m) return undefined;
  const elements = m[2]!.split('\n').map((l) => l.trim()).filter(Boolean);
  return `strict mode violation: ${m[1]}: ${elements.join(', ')}`;
}

function oneLineStrict(message: string): string {
  const m = STRICT.exec(message);
  return m ? message.replace(m[0], strictViolation(m[0])!) : message;
}
