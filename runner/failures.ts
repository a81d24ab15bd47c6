// Errors the executor raises, classified so results and exit codes can tell them apart.
import { ApiConnectionError, ApiTimeoutError } from '../src/api/errors.js';
import type { FailureKind } from './results.js';

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
  if (e?.name === 'TimeoutError') return new StepFailure('timeout', firstLine(e.message));
  return new StepFailure(fallback, firstLine(e?.message ?? String(err)));
}

/** Playwright appends a long call log after the first line; the first line says what went wrong. */
function firstLine(message: string): string {
  const [head] = message.split('\nCall log:');
  return (head ?? message).trim();
}
