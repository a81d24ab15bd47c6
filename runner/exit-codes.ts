// The CLI's exit codes, so CI can tell a failing scenario from a broken setup.
import type { ScenarioResult } from './results.js';

export const EXIT = {
  passed: 0,
  failed: 1,
  /** An invalid scenario file or CLI usage: nothing was run. */
  invalid: 2,
  /** The service, pool or browser was unavailable. */
  infrastructure: 3,
  interrupted: 130,
} as const;

export function exitCodeFor(results: ScenarioResult[]): number {
  if (results.some((r) => r.interrupted)) return EXIT.interrupted;
  if (results.some((r) => r.status === 'error')) return EXIT.infrastructure;
  if (results.some((r) => r.status === 'failed')) return EXIT.failed;
  return EXIT.passed;
}
