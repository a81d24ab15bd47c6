// What every benchmark shares: the machine it ran on, a timer, and one way to print its results
// (a markdown table for BENCHMARKS.md, or JSON with --json).
import { cpus, totalmem } from 'node:os';
import type { Summary } from './stats.js';

export function machine() {
  return { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version };
}

export async function timeIt(work: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await work();
  return performance.now() - t;
}

export function ratio(a: number, b: number): number {
  return Math.round((a / b) * 100) / 100;
}

/** Prints `result` as JSON with --json, else a title, a table of the summaries and a verdict line. */
export function printReport(result: object, title: string, rows: [string, Summary][], verdict: string): void {
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const lines = [title, '', '| measure (ms) | p50 | p90 | p99 | min | max |', '|---|---|---|---|---|---|'];
  for (const [name, v] of rows) lines.push(`| ${name} | ${v.p50} | ${v.p90} | ${v.p99} | ${v.min} | ${v.max} |`);
  lines.push('', verdict, '');
  process.stdout.write(lines.join('\n'));
}
