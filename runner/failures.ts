// Errors the executor raises, classified so results and exit codes can tell them apart.
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

/** Playwright's timeout errors, our own step timer, and anything else, each mapped to a kind. */
export function classify(err: unknown, fallback: FailureKind): StepFailure {
  if (err instanceof StepFailure) return err;
  const e = err as Error;
  if (e?.name === 'TimeoutError') return new StepFailure('timeout', firstLine(e.message));
  return new StepFailure(fallback, firstLine(e?.message ?? String(err)));
}

/** Playwright appends a long call log after the first line; the first line says what went wrong. */
function firstLine(message: string): string {
  const [head] = message.split('\nCall log:');
  return (head ?? message).trim();
}
