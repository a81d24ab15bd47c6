// Durations as scenarios write them: "500ms", "1.5s", "1m". A bare number is refused (is `timeout: 5` five
// milliseconds or five seconds?) except 0; the TypeScript builder turns its numbers (milliseconds, as in
// Playwright) into "5000ms" before anything reads them.

import type { DataPath } from './path.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m)$/;

/** Milliseconds for a duration; throws on anything else (the schema normally catches it first). */
export function parseDuration(value: number | string): number {
  if (value === 0) return 0;
  if (typeof value === 'number') throw new Error(bareNumber(value));
  const m = DURATION.exec(typeof value === 'string' ? value.trim() : '');
  if (!m) throw new Error(`invalid duration ${JSON.stringify(value)}; expected a duration such as "500ms", "2s" or "1m"`);
  // Rounded so "1.0005s" does not produce fractional milliseconds that timers would truncate anyway.
  return Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
}

/**
 * For durations read while compiling, which may come from a template (`timeout: "{{ wait }}"`): a value
 * that is not a duration is reported at `at` (and counts as 0) instead of thrown.
 */
export function durationAt(value: unknown, at: DataPath, report: (at: DataPath, message: string) => void): number {
  try {
    return parseDuration(value as number | string);
  } catch {
    const text = String(value);
    report(at, /\{\{/.test(text)
      ? `a duration must be known when the scenario compiles, but ${JSON.stringify(text)} is only known when it runs`
      : typeof value === 'number' ? bareNumber(value)
      : `expected a duration such as "500ms", "2s" or "1m", got ${JSON.stringify(value)}`);
    return 0;
  }
}

/** The hint for a number without a unit. */
export function bareNumber(n: number): string {
  return Number.isFinite(n) && n > 0
    ? `a duration needs a unit: write "${n}ms" or "${n}s" (a bare number ${n} could mean either)`
    : `invalid duration ${n}; expected a duration such as "500ms", "2s" or "1m"`;
}

/** How a duration reads in a step name: strings as written, numbers as milliseconds. */
export function formatDuration(value: number | string): string {
  return typeof value === 'number' ? `${value}ms` : value;
}
