// What Playwright Test keeps as a failed test's error context: the page's accessibility tree (its aria
// snapshot) at the moment a step that looked for an element failed, so a reader can see what was there
// instead of the button that was not, or the two that matched where one was meant. Kept as a Markdown file
// among the step's artifacts (Playwright's error-context.md) and shown in the HTML report.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import type { PlanStep, Target } from '../../src/scenario/plan.js';
import type { Artifact } from '../reporters/results.js';

/** A tree longer than this is cut: a reader needs the part around the failure, not a 5 MB page. */
export const SNAPSHOT_MAX_LINES = 300;
export const SNAPSHOT_MAX_CHARS = 20_000;
const SNAPSHOT_TIMEOUT_MS = 3_000;

/**
 * The element the step looked for, when it looked for one on the page (an action's target, an element
 * expectation, a `visible` target, a drag's destination): its failure is then worth the page's tree.
 */
export function soughtTarget(step: PlanStep): Target | undefined {
  for (const op of step.operations) {
    if (op.op !== 'page') continue;
    const o = op as { target?: Target; element?: Target; visible?: Target; to?: Target };
    const found = o.target ?? o.element ?? o.visible ?? o.to;
    if (found) return found;
  }
  return undefined;
}

/**
 * Writes the page's aria snapshot and the failure to `file`, secrets masked; undefined when the page
 * cannot give one (closed, crashed, or busy past the few seconds a failure report may take).
 */
export async function keepErrorContext(page: Page, target: Target, file: string, outputRoot: string, error: string, mask: (text: string) => string): Promise<Artifact | undefined> {
  // Inside a frame, the frame's tree: the page's does not go into iframes.
  let root: Page | FrameLocator = page;
  for (const frame of target.frame ?? []) root = root.frameLocator(frame);
  const tree = await root.locator('body').ariaSnapshot({ timeout: SNAPSHOT_TIMEOUT_MS }).catch(() => undefined);
  if (tree === undefined) return undefined;
  const text = [
    '# Error details',
    '',
    '```',
    mask(error),
    '```',
    '',
    `# Page snapshot (${page.url()}${target.frame?.length ? `, in ${target.frame.join(' >> ')}` : ''})`,
    '',
    '```yaml',
    bounded(mask(tree)),
    '```',
    '',
  ].join('\n');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return { type: 'error_context', path: relative(outputRoot, file) };
}

/** The tree's first lines, within both limits, saying how much was left out. */
export function bounded(tree: string): string {
  const lines = tree.split('\n');
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (kept.length >= SNAPSHOT_MAX_LINES || chars + line.length + 1 > SNAPSHOT_MAX_CHARS) break;
    kept.push(line);
    chars += line.length + 1;
  }
  const left = lines.length - kept.length;
  return left ? `${kept.join('\n')}\n# … ${left} more line${left === 1 ? '' : 's'} left out` : tree;
}
