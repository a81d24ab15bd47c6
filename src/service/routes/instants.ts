// The `since` and `until` of the reads that take a moment: telemetry events, logs, deployment and invocation events.
import { invalidField } from '../errors.js';

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An RFC 3339 instant or a duration meaning that long ago (`5m`, `1h30m`, `90s`), as Unix microseconds. */
export function parseInstant(text: string, field: string, nowMs: number): number {
  const duration = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d))+$/.test(text);
  if (duration) {
    let ms = 0;
    for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/g)) ms += Number(n) * DURATION_UNITS[unit!]!;
    return Math.round((nowMs - ms) * 1000);
  }
  const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(text);
  const ms = rfc3339 ? Date.parse(text.replace(' ', 'T')) : NaN;
  if (Number.isNaN(ms)) throw invalidField(field, 'must be an RFC 3339 time (2025-01-02T15:04:05Z) or a duration such as 5m');
  // Date keeps milliseconds; microseconds given in the text are kept too.
  const micros = rfc3339?.[1] ? Number((rfc3339[1].slice(1) + '000000').slice(3, 6)) : 0;
  return ms * 1000 + micros;
}
