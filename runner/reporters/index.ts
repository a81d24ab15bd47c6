// The reporters `--reporter` can name, and building several at once for one run.
import type { RunReporter } from './reporter.js';
import { blobReporter } from './blob.js';
import { consoleReporter } from './console.js';
import { htmlReporter } from './html.js';
import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import type { Terminal } from './live-region.js';

export interface ReporterContext {
  /** Where `list` writes; default process.stdout. */
  stdout?: Terminal;
  /** `--workers`: the list reporter tells interleaved scenarios apart from the start. */
  workers?: number;
  /** Overrides whether `list` draws the live tree (default: whether stdout is a terminal). */
  tty?: boolean;
  /** Overrides colour (default: a terminal without NO_COLOR). */
  color?: boolean;
  /** `--shard`: names the blob, which says which shard it is. */
  shard?: { index: number; total: number };
  /** `--run-id`: what the blob says every shard of the run shares (else BCS_RUN_ID or the CI's run id). */
  runId?: string;
}

export type ReporterFactory = (outputDir: string, ctx: ReporterContext) => RunReporter;

export type ReporterName = 'list' | 'json' | 'junit' | 'html' | 'blob';

export const REPORTERS: Record<ReporterName, ReporterFactory> = {
  list: (outputDir, ctx) => consoleReporter(ctx.stdout ?? process.stdout, { tty: ctx.tty, color: ctx.color, workers: ctx.workers, outputDir }),
  json: (outputDir) => jsonReporter(outputDir),
  junit: (outputDir) => junitReporter(outputDir),
  html: (outputDir) => htmlReporter(outputDir),
  blob: (outputDir, ctx) => blobReporter(outputDir, { ...(ctx.runId ? { runId: ctx.runId } : {}), ...(ctx.shard ? { shard: ctx.shard } : {}) }),
};

export const REPORTER_NAMES = Object.keys(REPORTERS) as ReporterName[];

export function isReporterName(name: string): name is ReporterName {
  return Object.hasOwn(REPORTERS, name);
}

/**
 * The named reporters for one run. The list reporter is told where the others write and comes last, so
 * its summary prints after the reports exist. Throws on an unknown name.
 */
export function createReporters(names: string[], outputDir: string, ctx: ReporterContext = {}): RunReporter[] {
  const unknown = names.find((n) => !isReporterName(n));
  if (unknown !== undefined) throw new Error(`unknown reporter '${unknown}'; expected ${REPORTER_NAMES.join(', ')}`);
  const unique = [...new Set(names as ReporterName[])];
  const files = unique.filter((n) => n !== 'list').map((n) => REPORTERS[n](outputDir, ctx));
  const reports = files.flatMap((r) => r.files ?? []);
  const list = unique.includes('list')
    ? [consoleReporter(ctx.stdout ?? process.stdout, { tty: ctx.tty, color: ctx.color, workers: ctx.workers, outputDir, reports })]
    : [];
  return [...files, ...list];
}
