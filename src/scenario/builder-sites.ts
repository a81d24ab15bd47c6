// Where a TypeScript scenario wrote each part: every builder call records its caller's position from a
// stack trace, so schema and template diagnostics point at the user's `.goto(...)` the way YAML
// diagnostics point at a line. The loader maps positions in its bundle back to the TypeScript source.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataPath } from './path.js';

export interface CallSite {
  /** A file path (not a URL); 1-based line and column, as stack traces give them. */
  file: string;
  line: number;
  col: number;
}

/** Maps a position in code that ran to where it was written (a bundle back to its sources). */
export type SiteMapper = (site: CallSite) => CallSite;

/**
 * Where the code that called `method` is: the frame just below it. `method` must be the function the
 * caller invoked, so any internal frames above it are skipped whatever they are.
 */
export function callerOf(method: Function): CallSite | undefined {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  // Only the caller is wanted; a short trace keeps every builder call cheap.
  Error.stackTraceLimit = 1;
  try {
    Error.captureStackTrace(holder, method);
  } finally {
    Error.stackTraceLimit = limit;
  }
  // A tool's own Error.prepareStackTrace may make `stack` something other than text: then there is no site.
  if (typeof holder.stack !== 'string') return undefined;
  const frame = holder.stack.split('\n').find((l) => l.trimStart().startsWith('at '));
  return frame === undefined ? undefined : parseFrame(frame);
}

/** `at fn (/a/b.ts:3:7)`, `at /a/b.ts:3:7`, `at file:///a/b.mjs:3:7`; paths may hold spaces and parentheses. */
export function parseFrame(frame: string): CallSite | undefined {
  const m = /^at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(frame.trim());
  if (!m) return undefined;
  let file = m[1]!;
  if (file.startsWith('async ')) file = file.slice('async '.length);
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file);
    } catch {
      return undefined;
    }
  }
  if (!path.isAbsolute(file)) return undefined; // node:internal frames, eval code
  return { file, line: Number(m[2]), col: Number(m[3]) };
}

/** The call site of every part of the scenario data, by path; parts without one fall back to their parent's. */
export class SiteTable {
  private readonly sites = new Map<string, CallSite>();

  set(at: DataPath, site: CallSite | undefined): void {
    if (site) this.sites.set(JSON.stringify(at), site);
  }

  /** The site recorded for `at` or its nearest ancestor (the scenario's own, for the root). */
  find(at: DataPath): CallSite | undefined {
    for (let n = at.length; n >= 0; n--) {
      const site = this.sites.get(JSON.stringify(at.slice(0, n)));
      if (site) return site;
    }
    return undefined;
  }

  entries(): [DataPath, CallSite][] {
    return [...this.sites].map(([key, site]) => [JSON.parse(key) as DataPath, site]);
  }

  static from(entries: [DataPath, CallSite][]): SiteTable {
    const table = new SiteTable();
    for (const [at, site] of entries) table.set(at, site);
    return table;
  }
}

/**
 * A site as a diagnostic position. A site in the scenario's own file is just line and column; one in
 * another file (a helper module that adds steps) also names that file, which overrides the scenario's
 * file where diagnostics and plan sources spread the position after it.
 */
export function positionOf(site: CallSite | undefined, scenarioFile: string): { line: number; col: number; file?: string } {
  if (!site) return { line: 1, col: 1 };
  if (path.resolve(site.file) === path.resolve(scenarioFile)) return { line: site.line, col: site.col };
  const relative = path.relative(process.cwd(), site.file);
  const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : site.file;
  return { file: shown, line: site.line, col: site.col };
}
