// What Playwright Test keeps as a failed test's error context: the page's accessibility tree (its aria
// snapshot) at the moment a step that looked for an element failed, so a reader can see what was there
// instead of the button that was not, or the two that matched where one was meant. Kept as a Markdown file
// among the step's artifacts (Playwright's error-context.md) and shown in the HTML report.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import type { Page } from 'playwright-core';
import type { PlanStep } from '../../src/scenario/plan.js';
import type { Artifact } from '../reporters/results.js';

/** A tree longer than this is cut: a reader needs the part around the failure, not a 5 MB page. */
export const SNAPSHOT_MAX_LINES = 300;
export const SNAPSHOT_MAX_CHARS = 20_000;
const SNAPSHOT_TIMEOUT_MS = 3_000;

/** Whether the step looked for an element on the page: its failure is then worth the page's tree. */
export function locatesElement(step: PlanStep): boolean {
  return step.operations.some((op) => op.op === 'page' && ('target' in op || 'element' in op || typeof (op as { visible?: unknown }).visible === 'object' || 'to' in op));
}

/**
 * Writes the page's aria snapshot and the failure to `file`, secrets masked; undefined when the page
 * cannot give one (closed, crashed, or busy past the few seconds a failure report may take).
 */
export async function keepErrorContext(page: Page, file: string, outputRoot: string, error: string, mask: (text: string) => string): Promise<Artifact | undefined> {
  const tree = await page.locator('body').ariaSnapshot({ timeout: SNAPSHOT_TIMEOUT_MS }).catch(() => undefined);
  if (tree === undefined) return undefined;
  const text = [
    '# Error details',
    '',
    '```',
    mask(error),
    '```',
    '',
    `# Page snapshot (${page.url()})`,
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
