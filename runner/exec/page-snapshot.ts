// `expect_screenshot`: Playwright's toHaveScreenshot outside Playwright Test. Playwright's own screenshot
// expectation does the work (screenshots until two in a row agree, then its comparator against the
// baseline); this module decides what happens to baselines, as Playwright's --update-snapshots modes do,
// and keeps the expected, actual and diff images as the step's artifacts. A baseline belongs to the browser
// build that wrote it (snapshot-path.ts): when only another build's exists, the step says which wrote it
// and which ran, and `--update-snapshots` writes the one for this build.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { PageAction } from '../../src/scenario/plan.js';
import type { BrowserBuild } from './browser-build.js';
import { assertionFailed } from './failures.js';
import { locate } from './locate.js';
import { buildOfPng, withBuild } from './png-text.js';
import { baselinePath, otherBaselines, type OtherBaseline, type SnapshotPaths } from './snapshot-path.js';

/**
 * What happens to baselines (Playwright's modes): `missing` writes those that do not exist yet (by
 * default failing the step that wrote one, softly, so that one run writes them all); `changed` also rewrites those that differ; `all` rewrites every
 * one; `none` writes nothing.
 */
export type UpdateSnapshots = 'missing' | 'changed' | 'all' | 'none';
export const UPDATE_MODES: readonly UpdateSnapshots[] = ['missing', 'changed', 'all', 'none'];

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

type ExpectScreenshot = Extract<PageAction, { action: 'expect_screenshot' }>;

export interface SnapshotContext {
  page: Page;
  /** What renders the page: baselines are keyed by it. */
  build: BrowserBuild;
  /** `snapshot_path_template` and the folder it is relative to. */
  paths: SnapshotPaths;
  timeoutMs: number;
  /** `missing` unless `bcs run --update-snapshots` said otherwise. */
  update: UpdateSnapshots;
  /** Whether the run was asked to update baselines: then writing a missing one passes. */
  updating: boolean;
  /** Keeps an image among the step's artifacts as `<name>-<suffix>.png` (also when the step then fails). */
  keep(suffix: string, png: Buffer): Promise<unknown>;
  output(value: unknown): void;
  /** Fails the step and lets the run go on (as a soft expect): one run writes every missing baseline. */
  soft(message: string): void;
}

/** The shape of Playwright's private screenshot expectation (stable since 1.23; the version is pinned). */
interface ScreenshotExpectation {
  actual?: Buffer;
  previous?: Buffer;
  diff?: Buffer;
  errorMessage?: string;
  log?: string[];
  timedOut?: boolean;
}
type PageWithExpectation = Page & { _expectScreenshot(options: Record<string, unknown>): Promise<ScreenshotExpectation> };

export async function expectScreenshot(action: ExpectScreenshot, ctx: SnapshotContext): Promise<void> {
  if (!SAFE_NAME.test(action.name)) throw assertionFailed(`'${action.name}' cannot name a baseline: use letters, digits, '.', '_' and '-'`);
  const { page } = ctx;
  const options: Record<string, unknown> = {
    locator: action.element ? locate(page, action.element) : undefined,
    animations: 'disabled',
    caret: 'hide',
    scale: 'css',
    type: 'png',
    fullPage: action.full_page,
    mask: action.mask?.map((t): Locator => locate(page, t)),
    maskColor: action.mask_color,
    threshold: action.threshold,
    maxDiffPixels: action.max_diff_pixels,
    maxDiffPixelRatio: action.max_diff_pixel_ratio,
    timeout: ctx.timeoutMs,
    isNot: false,
  };
  const take = (expected?: Buffer) => (page as PageWithExpectation)._expectScreenshot({ ...options, expected });
  const { build } = ctx;
  const baseline = baselinePath(ctx.paths, { scenarioFile: action.scenario_file, name: action.name, browser: build.id, platform: build.platform });
  const write = (png: Buffer) => writeBaseline(baseline, withBuild(png, build.id));
  const written = (how: string) => ctx.output({ baseline, build: build.id, written: how });

  if (!existsSync(baseline)) {
    const others = await othersOf(action, baseline, ctx);
    // CI runs with `--update-snapshots none`: it too is told which build wrote what is there.
    if (others.length && (!ctx.updating || ctx.update === 'none')) throw await otherBuildOnly(others, baseline, take, ctx);
    if (ctx.update === 'none') throw assertionFailed(`no baseline for ${build.id} at ${baseline} (and --update-snapshots none writes none)`);
    const result = await take();
    if (result.errorMessage || !result.actual) throw await unstable(result, ctx);
    await write(result.actual);
    await ctx.keep('actual', result.actual);
    written('missing');
    if (!ctx.updating) ctx.soft(`no baseline yet: wrote this screenshot (${build.id}) to ${baseline}; look at it, commit it, and run again`);
    return;
  }

  const expected = await readFile(baseline);
  const result = await take(ctx.update === 'all' ? undefined : expected);
  if (!result.errorMessage) {
    if (ctx.update === 'all' && result.actual && !withBuild(result.actual, build.id).equals(expected)) {
      await write(result.actual);
      written('all');
    }
    return;
  }
  if ((ctx.update === 'changed' || ctx.update === 'all') && result.actual) {
    await write(result.actual);
    await ctx.keep('actual', result.actual);
    return written('changed');
  }
  await ctx.keep('expected', expected);
  if (result.actual) await ctx.keep('actual', result.actual);
  if (result.diff) await ctx.keep('diff', result.diff);
  const writer = buildOfPng(expected);
  const builds = writer && writer !== build.id ? `; written by ${writer}, this run ${build.id}` : '';
  throw assertionFailed(`${firstLines(result.errorMessage)} (baseline ${baseline}${builds})`);
}

/**
 * This screenshot's baselines for other builds, and the unkeyed one of before baselines were keyed by build
 * (`<scenario>-snapshots/<name>.png`), which is not compared with, only pointed at.
 */
async function othersOf(action: ExpectScreenshot, baseline: string, ctx: SnapshotContext): Promise<OtherBaseline[]> {
  const others = await otherBaselines(ctx.paths, { scenarioFile: action.scenario_file, name: action.name, browser: ctx.build.id, platform: ctx.build.platform });
  const unkeyed = join(action.snapshot_dir, `${action.name}.png`);
  if (unkeyed !== baseline && existsSync(unkeyed) && !others.some((o) => o.file === unkeyed)) others.push({ file: unkeyed });
  return others;
}

/**
 * Only another build's baseline exists: the step fails naming both builds, with this build's screenshot
 * compared with the other's (their difference is what keying by build is for), and writes nothing.
 */
async function otherBuildOnly(others: OtherBaseline[], baseline: string, take: (expected?: Buffer) => Promise<ScreenshotExpectation>, ctx: SnapshotContext): Promise<Error> {
  const other = others[0]!;
  const png = await readFile(other.file);
  const writer = other.build ?? buildOfPng(png) ?? 'an unknown build (a baseline from before they were keyed by build)';
  const result = await take(png);
  await ctx.keep('expected', png);
  // A screenshot that matches comes back without itself: taken again, as it is what would be committed.
  const actual = result.actual ?? (await take()).actual;
  if (actual) await ctx.keep('actual', actual);
  if (result.diff) await ctx.keep('diff', result.diff);
  const comparison = result.errorMessage ? `against it: ${firstLines(result.errorMessage).replace(/\.$/, '')}` : 'it matches that one';
  const more = others.length > 1 ? ` (also there: ${others.slice(1).map((o) => o.build ?? o.file).join(', ')})` : '';
  return assertionFailed(
    `no baseline for this browser build, ${ctx.build.id} (${ctx.build.version}), at ${baseline}; the one at ${other.file} was written by ${writer}, and ${comparison}${more}. ` +
      '`bcs run --update-snapshots missing` writes the missing baseline for this build (look at it and commit it)',
  );
}

/** The page never held still for two screenshots in a row. */
async function unstable(result: ScreenshotExpectation, ctx: SnapshotContext): Promise<Error> {
  if (result.actual) await ctx.keep('actual', result.actual);
  if (result.previous) await ctx.keep('previous', result.previous);
  if (result.diff) await ctx.keep('diff', result.diff);
  return assertionFailed(`no stable screenshot within ${ctx.timeoutMs} ms: ${firstLines(result.errorMessage ?? 'the screenshots kept changing')}`);
}

async function writeBaseline(file: string, png: Buffer): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, png);
}

/** Playwright's message without its trailing call log, which names its own internals. */
function firstLines(message: string): string {
  return message.replace(/^Error: /, '').split('\n').filter((l) => l.trim() && !/^\s*(Call log|- )/.test(l)).slice(0, 3).join(' ').trim();
}
