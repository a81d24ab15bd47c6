/** Bad flags or flag values: printed and exit 2. */
export class UsageError extends Error {}

/** A whole-number flag value within [min, max], or a UsageError naming the flag and its range. */
export function integerOption(flag: string, value: string, min: number, max: number): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be ${min}-${max}, got '${value}'`);
  return n;
}
