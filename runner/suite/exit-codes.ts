// The CLI's exit codes, so CI can tell a failing scenario from a broken setup.
//
// When a run has several kinds of outcome, the one that most needs a human wins:
//   130 interrupted  >  3 infrastructure  >  1 failures  >  4 timeouts only  >  0 passed.
// An interrupted run is incomplete whatever else happened; a broken service or pool makes every other
// result suspect; a real assertion or step failure is more specific than "ran out of time", so 4 means
// every scenario that did not pass timed out. 2 (invalid scenario or usage) is decided before anything runs.
import type { ScenarioResult } from '../reporters/results.js';

export const EXIT = {
  passed: 0,
  /** An assertion or step failed. */
  failed: 1,
  /** An invalid scenario file, config file or CLI usage: nothing was run. */
  invalid: 2,
  /** The service, pool or browser was unavailable. */
  infrastructure: 3,
  /** Every scenario that did not pass ran out of its `--timeout`. */
  timeout: 4,
  interrupted: 130,
} as const;

export function exitCodeFor(results: ScenarioResult[], interrupted = false): number {
  if (interrupted || results.some((r) => r.interrupted)) return EXIT.interrupted;
  if (results.some((r) => r.status === 'error')) return EXIT.infrastructure;
  const notPassed = results.filter((r) => r.status !== 'passed');
  if (notPassed.some((r) => !r.timed_out)) return EXIT.failed;
  if (notPassed.length) return EXIT.timeout;
  return EXIT.passed;
}
