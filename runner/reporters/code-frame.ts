// The lines of a scenario around a failing step, as Playwright shows the test code around a failure:
//
//      5 |   - goto: /
//   >  6 |   - click: { role: button, name: Save }
//        |     ^
//      7 |     timeout: 1s
import { readFileSync } from 'node:fs';

const CONTEXT_LINES = 2;
const cache = new Map<string, string[] | undefined>();

/** `file:line:col` → the frame's lines, or [] when the file cannot be read (moved, or not a local path). */
export function codeFrame(location: string, context = CONTEXT_LINES): string[] {
  const m = /^(.*):(\d+):(\d+)$/.exec(location);
  if (!m) return [];
  const lines = sourceLines(m[1]!);
  const line = Number(m[2]);
  const col = Number(m[3]);
  if (!lines || line < 1 || line > lines.length) return [];
  const first = Math.max(1, line - context);
  let last = Math.min(lines.length, line + context);
  while (last > line && !lines[last - 1]!.trim()) last--;
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${lines[n - 1]!.replace(/\t/g, '  ')}`);
    if (n === line) out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, col - 1))}^`);
  }
  return out;
}

function sourceLines(file: string): string[] | undefined {
  if (!cache.has(file)) {
    try {
      cache.set(file, readFileSync(file, 'utf8').split(/\r?\n/));
    } catch {
      cache.set(file, undefined);
    }
  }
  return cache.get(file);
}
