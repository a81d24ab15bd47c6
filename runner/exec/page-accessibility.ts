// `expect_accessible`: axe-core run by @axe-core/playwright (Deque's own Playwright integration) on the
// scenario's page. Legacy mode runs axe inside the page itself: the default mode opens a blank tab in the
// context to merge frame results, which would show up in the session, its replay and `switch_page`.
import type { Page } from 'playwright-core';
import type { Impact, PageAction } from '../../src/scenario/plan.js';
import { assertionFailed } from './failures.js';

const IMPACTS: readonly Impact[] = ['minor', 'moderate', 'serious', 'critical'];
/** Elements named per violation in the failure; the JSON artifact has them all. */
const TARGETS_SHOWN = 3;

type ExpectAccessible = Extract<PageAction, { action: 'expect_accessible' }>;

interface Violation {
  id: string;
  impact?: Impact | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[] }[];
}

export interface AccessibilityContext {
  page: Page;
  /** Keeps the full results as a JSON artifact of the step. */
  keep(name: string, json: string): Promise<unknown>;
  output(value: unknown): void;
}

let library: Promise<typeof import('@axe-core/playwright')> | undefined;

/**
 * axe-core and its Playwright integration, loaded once, on the first audit (axe-core's source is large and
 * most runs never audit). run-step.ts awaits it before the step's deadline starts, as with Playwright's expect.
 */
export function loadAxe(): Promise<typeof import('@axe-core/playwright')> {
  library ??= import('@axe-core/playwright');
  return library;
}

export async function expectAccessible(action: ExpectAccessible, ctx: AccessibilityContext): Promise<void> {
  const { AxeBuilder } = await loadAxe();
  let builder = new AxeBuilder({ page: ctx.page }).setLegacyMode(true);
  for (const selector of action.include ?? []) builder = builder.include(selector);
  for (const selector of action.exclude ?? []) builder = builder.exclude(selector);
  if (action.tags) builder = builder.withTags(action.tags);
  if (action.disable_rules) builder = builder.disableRules(action.disable_rules);
  const results = await builder.analyze();
  await ctx.keep(action.report, JSON.stringify({ url: results.url, timestamp: results.timestamp, violations: results.violations, incomplete: results.incomplete }, null, 2));

  const floor = IMPACTS.indexOf(action.impact);
  const violations = (results.violations as Violation[]).filter((v) => IMPACTS.indexOf(v.impact ?? 'minor') >= floor);
  const counts = Object.fromEntries(IMPACTS.map((i) => [i, (results.violations as Violation[]).filter((v) => (v.impact ?? 'minor') === i).length]));
  ctx.output({ violations: counts, passes: results.passes.length });
  if (!violations.length) return;
  const lines = violations.map((v) => {
    const targets = v.nodes.map((n) => n.target.map(String).join(' >> '));
    const shown = targets.slice(0, TARGETS_SHOWN).join(', ') + (targets.length > TARGETS_SHOWN ? `, and ${targets.length - TARGETS_SHOWN} more` : '');
    return `  ${v.id} (${v.impact ?? 'minor'}): ${v.help}; ${targets.length} element${targets.length === 1 ? '' : 's'}: ${shown}\n    ${v.helpUrl}`;
  });
  const which = action.impact === 'minor' ? '' : ` of ${action.impact} impact or worse`;
  throw assertionFailed(`${violations.length} accessibility violation${violations.length === 1 ? '' : 's'}${which}:\n${lines.join('\n')}`);
}
