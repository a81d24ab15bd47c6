// Secrets at run time: read from where the plan says (never from the plan itself), and masked as `***`
// in everything the run reports. The executor masks each result once, before any reporter sees it, so
// every reporter (console, JSON, JUnit, HTML) is masked without knowing about secrets.
import { readFile } from 'node:fs/promises';
import type { SecretSource } from '../../src/scenario/plan.js';
import { isPlainObject } from '../../src/scenario/template.js';
import { StepFailure } from './failures.js';

export const MASK = '***';

/** The value of each secret; a missing variable or unreadable file is an infrastructure failure naming it. */
export async function resolveSecrets(
  sources: Record<string, SecretSource>,
  env: Record<string, string | undefined> = process.env,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const [name, source] of Object.entries(sources)) {
    if ('env' in source) {
      const value = env[source.env];
      if (value === undefined) throw new StepFailure('infrastructure', `secret '${name}': environment variable '${source.env}' is not set`);
      values[name] = value;
    } else {
      try {
        // A file written by an editor or `echo` ends with a newline that is not part of the secret.
        values[name] = (await readFile(source.file, 'utf8')).replace(/\r?\n$/, '');
      } catch (err) {
        throw new StepFailure('infrastructure', `secret '${name}': cannot read ${source.file}: ${(err as Error).message}`);
      }
    }
  }
  return values;
}

export type Masker = (text: string) => string;

/**
 * Replaces every secret in a string, also as it reads inside JSON or a URL (a request body or query in an
 * error message). Longer secrets first, so one that contains another is masked whole.
 */
export function createMasker(secrets: string[]): Masker {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
    forms.add(encodeURIComponent(secret));
  }
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => ordered.reduce((out, form) => out.split(form).join(MASK), text);
}

/** A copy of plain data with every string masked (keys included: a saved value's field could hold one). */
export function maskDeep<T>(value: T, mask: Masker): T {
  if (typeof value === 'string') return mask(value) as T;
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, mask)) as T;
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), maskDeep(v, mask)])) as T;
  }
  return value;
}
