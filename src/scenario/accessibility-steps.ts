// `expect_accessible`: an axe-core audit of the page, failing on violations of a given impact or worse.
import type { CompiledKind, KindContext } from './host-steps.js';
import type { Impact, PageAction } from './plan.js';

type Obj = Record<string, unknown>;

/**
 * An audit's time grows with the page and the machine's load (axe injects half a megabyte of script and
 * walks every element), not with anything the scenario waits for, so the usual step default is too tight.
 * Playwright Test users run axe under the 30 s test timeout; a step's own `timeout:` still wins.
 */
const AUDIT_MIN_TIMEOUT_MS = 30_000;

export function compileAccessibilityStep(_kind: string, v: unknown, ctx: KindContext): CompiledKind {
  const o: Obj = v !== null && typeof v === 'object' ? (v as Obj) : {};
  const impact = (typeof v === 'string' ? v : (o.impact as Impact | undefined)) ?? 'minor';
  const action: Extract<PageAction, { action: 'expect_accessible' }> = {
    action: 'expect_accessible',
    impact: impact as Impact,
    report: `accessibility-${ctx.mainIndex}.json`,
  };
  for (const key of ['include', 'exclude', 'tags', 'disable_rules'] as const) {
    const value = o[key];
    if (value !== undefined) action[key] = (Array.isArray(value) ? value : [value]).map(String);
  }
  const scope = action.include ? ` in ${action.include.join(', ')}` : '';
  const floor = impact === 'minor' ? '' : ` (${impact} or worse)`;
  return { name: `expect no accessibility violations${scope}${floor}`, operations: [{ op: 'page', ...action }], minTimeoutMs: AUDIT_MIN_TIMEOUT_MS };
}
