// Reads a scenario file into plain data while keeping the YAML nodes, so any problem found later
// (schema, templates) can be reported at the exact line and column where it is written.

import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { ScenarioError, sortDiagnostics } from './diagnostics.js';
import type { DataPath } from './path.js';

export interface Position {
  line: number;
  col: number;
  /** Set when the position is in another file than the scenario's (a TypeScript helper module that added the step); callers spread it after their own `file`. */
  file?: string;
}

export interface LoadedScenario {
  /** The path as given; diagnostics and the plan repeat it verbatim. */
  file: string;
  data: unknown;
  /**
   * Where the node at `path` is written: its value (default) or, with `which: 'key'`, its key.
   * A path that does not exist gives its nearest existing ancestor, so a missing field points at its parent.
   */
  locate(path: DataPath, which?: 'key' | 'value'): Position;
}

export async function loadScenarioFile(file: string): Promise<LoadedScenario> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (err) {
    throw unreadable(file, err);
  }
  return loadScenarioSource(file, source);
}

/** For included files, read while compiling (which is synchronous). */
export function loadScenarioFileSync(file: string): LoadedScenario {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    throw unreadable(file, err);
  }
  return loadScenarioSource(file, source);
}

function unreadable(file: string, err: unknown): ScenarioError {
  const code = (err as NodeJS.ErrnoException).code;
  const message =
    code === 'ENOENT' ? 'scenario file not found'
    : code === 'EISDIR' ? 'is a directory, not a scenario file'
    : `cannot read scenario file: ${(err as Error).message}`;
  return new ScenarioError([{ file, line: 1, col: 1, message }]);
}

export function loadScenarioSource(file: string, source: string): LoadedScenario {
  const lineCounter = new LineCounter();
  // prettyErrors off: we want the bare message; the position comes from the offset.
  const doc = parseDocument(source, { lineCounter, prettyErrors: false });
  const at = (offset: number): Position => lineCounter.linePos(offset);

  if (doc.errors.length > 0) {
    throw new ScenarioError(
      sortDiagnostics(doc.errors.map((e) => ({ file, ...at(e.pos[0]), message: `invalid YAML: ${e.message}` }))),
    );
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (err) {
    // e.g. an alias bomb: the YAML parses but cannot be expanded.
    throw new ScenarioError([{ file, line: 1, col: 1, message: `invalid YAML: ${(err as Error).message}` }]);
  }
  return { file, data, locate: (path, which = 'value') => locateIn(doc, source, path, which, at) };
}

type Offset = number | undefined;

function locateIn(
  doc: Document,
  source: string,
  path: DataPath,
  which: 'key' | 'value',
  at: (offset: number) => Position,
): Position {
  let node: unknown = doc.contents;
  let keyOffset: Offset;
  let valueOffset: Offset = startOf(node);
  let found = true;

  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) { found = false; break; }
      keyOffset = startOf(pair.key);
      node = pair.value;
      // `key:` with nothing after it has an empty scalar placed after the colon; the key reads better.
      valueOffset = isEmptyScalar(node) ? keyOffset : (startOf(node) ?? keyOffset);
    } else if (isSeq(node) && typeof seg === 'number' && seg < node.items.length) {
      keyOffset = undefined;
      node = node.items[seg];
      valueOffset = isEmptyScalar(node) ? dashBefore(source, startOf(node)) : (startOf(node) ?? valueOffset);
    } else {
      found = false;
      break;
    }
  }
  const offset = found && which === 'key' ? (keyOffset ?? valueOffset) : valueOffset;
  return offset === undefined ? { line: 1, col: 1 } : at(offset);
}

function startOf(node: unknown): Offset {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range?.[0];
}

function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && node.value === null && node.source === '';
}

/** An empty list item (`-` alone) is placed after the dash; the dash itself is what a reader looks for. */
function dashBefore(source: string, offset: Offset): Offset {
  if (offset === undefined) return offset;
  let i = offset;
  while (i > 0 && (source[i - 1] === ' ' || source[i - 1] === '\t')) i--;
  return source[i - 1] === '-' ? i - 1 : offset;
}
