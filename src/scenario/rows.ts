// `each:` rows → one plan per row. Rows are written inline, or kept beside the scenario as CSV (a header
// line, then one row per line) or JSON (a list of objects), as data-driven Playwright tests keep theirs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ScenarioError } from './diagnostics.js';
import type { LoadedScenario } from './load.js';
import { isPlainObject } from './template.js';

export type Row = Record<string, unknown>;

/** The file a scenario's `each:` reads its rows from (absolute), when its rows are not written inline. */
export function rowsFileOf(loaded: LoadedScenario): string | undefined {
  const each = isPlainObject(loaded.data) ? loaded.data.each : undefined;
  return each === undefined || Array.isArray(each) ? undefined : path.resolve(path.dirname(loaded.file), String(each));
}

/** The rows of a scenario's `each`, or undefined when it has none. Throws ScenarioError at `each`. */
export function rowsOf(loaded: LoadedScenario): Row[] | undefined {
  const each = isPlainObject(loaded.data) ? loaded.data.each : undefined;
  if (each === undefined) return undefined;
  if (Array.isArray(each)) return each as Row[];
  const file = rowsFileOf(loaded)!;
  const fail = (message: string): never => {
    throw new ScenarioError([{ file: loaded.file, ...loaded.locate(['each']), message }]);
  };
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    fail(`cannot read the rows in ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  let rows: unknown;
  try {
    // csv-parse is loaded for the scenarios that read CSV rows, not for every run.
    const csv = () => createRequire(import.meta.url)('csv-parse/sync') as typeof import('csv-parse/sync');
    rows = file.endsWith('.csv') ? csv().parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) : JSON.parse(text);
  } catch (err) {
    fail(`cannot read the rows in ${file}: ${(err as Error).message}`);
  }
  if (!Array.isArray(rows) || rows.length === 0 || !rows.every(isPlainObject)) fail(`${file} must hold a non-empty list of rows (objects)`);
  const bad = (rows as Row[]).flatMap(Object.keys).find((k) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
  if (bad !== undefined) fail(`invalid variable name '${bad}' in ${file}; use letters, digits and _, not starting with a digit`);
  return rows as Row[];
}
