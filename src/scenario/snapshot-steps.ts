// Steps that compare the page with a baseline kept beside the scenario: `expect_screenshot` (pixels,
// through Playwright's own comparator). Baselines live in `<scenario file>-snapshots/` by default, as
// Playwright keeps them beside the spec; the runner names the file for the browser build that runs.
import path from 'node:path';
import { toTarget } from './describe.js';
import type { CompiledKind, KindContext } from './host-steps.js';
import type { PageAction, ScreenshotComparison, Target } from './plan.js';

type Obj = Record<string, unknown>;

/** The folder of a scenario file's baselines. */
export function snapshotDir(scenarioFile: string): string {
  return `${scenarioFile}-snapshots`;
}

export function compileSnapshotStep(_kind: string, v: unknown, ctx: KindContext): CompiledKind {
  const o: Obj = typeof v === 'string' ? { name: v } : (v as Obj);
  const name = String(o.name);
  const action: Extract<PageAction, { action: 'expect_screenshot' }> = {
    action: 'expect_screenshot',
    name,
    scenario_file: path.resolve(ctx.scenarioFile),
    snapshot_dir: path.resolve(snapshotDir(ctx.scenarioFile)),
  };
  const comparison: ScreenshotComparison = {};
  if (o.element !== undefined) comparison.element = target(o.element);
  if (o.full_page === true) comparison.full_page = true;
  if (Array.isArray(o.mask)) comparison.mask = o.mask.map(target);
  for (const key of ['mask_color', 'threshold', 'max_diff_pixels', 'max_diff_pixel_ratio'] as const) {
    if (o[key] !== undefined) (comparison as Obj)[key] = o[key];
  }
  if (comparison.element && comparison.full_page) {
    ctx.report([...ctx.at, 'full_page'], "'full_page' is for the page: an element's screenshot is the element, whole");
  }
  return { name: `expect the ${comparison.element ? 'element' : comparison.full_page ? 'full page' : 'page'} to look like ${name}.png`, operations: [{ op: 'page', ...action, ...comparison }] };
}

function target(v: unknown): Target {
  return toTarget(v as string | Obj);
}
