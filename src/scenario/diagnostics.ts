// Problems found in a scenario file, each pinned to a line and column so editors and terminals can jump to it.

export interface Diagnostic {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  col: number;
  message: string;
}

/** `path/to/file.yaml:LINE:COL message`: the shape compilers use, so terminals and editors make it a link. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.col} ${d.message}`;
}

/**
 * Orders by position and drops exact repeats (several schema rules can report the same thing). Problems
 * in several files (a scenario and the files it includes) stay grouped by file: `first`, then the others
 * in the order they were first reported.
 */
export function sortDiagnostics(diagnostics: Diagnostic[], first?: string): Diagnostic[] {
  const seen = new Set<string>();
  const unique = diagnostics.filter((d) => {
    const key = formatDiagnostic(d);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const files = [...new Set([...(first !== undefined ? [first] : []), ...unique.map((d) => d.file)])];
  const rank = (d: Diagnostic) => files.indexOf(d.file);
  return unique.sort((a, b) => rank(a) - rank(b) || a.line - b.line || a.col - b.col);
}

export class ScenarioError extends Error {
  readonly diagnostics: Diagnostic[];

  constructor(diagnostics: Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n'));
    this.name = 'ScenarioError';
    this.diagnostics = diagnostics;
  }
}
