// `expect_accessible`: an axe-core audit of the page, failing on violations of a given impact or worse.
import type { CompiledKind, KindContext } from './host-steps.js';
import type { Impact, PageAction } from './plan.js';

type Obj = Record<string, unknown>;

export const ACCESSIBILITY_KINDS = ['expect_accessible'] as const;

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
  return { name: `expect no accessibility violations${scope}${floor}`, operations: [{ op: 'page', ...action }] };
}
