// The element checks of an `expect` beyond text, count, value, attribute, css and states: the list forms
// of text, class, id, accessible name/description/error message, ARIA role, a JS property, and a multiple
// select's values. Each is one of Playwright Test's locator assertions (runner/exec/page-expect.ts).
import { toMatch } from './describe.js';
import type { ElementCheck, Match, TextItem } from './plan.js';

type Obj = Record<string, unknown>;

export const MATCH_CHECKS = ['id', 'accessible_name', 'accessible_description', 'accessible_error_message'] as const;
export const EXTRA_CHECKS = ['class', ...MATCH_CHECKS, 'aria_role', 'js_property', 'values'] as const;

/** `matchAt` turns a written condition into a Match, checking its pattern; `itemsAt` does so for a list. */
export interface CheckReaders {
  matchAt(key: string, value: unknown): Match;
  itemsAt(key: string, value: unknown[]): TextItem[];
}

/**
 * `text` on an element: one text (`"3 items"`, `{ contains }`, `{ matches }`), or one per element the
 * locator finds, in order: a list (toHaveText([...])) or `{ contains: [...] }` (toContainText([...])).
 */
export function textCheck(v: unknown, r: CheckReaders): ElementCheck {
  const list = listForm(v);
  if (list) return { check: 'texts', items: r.itemsAt('text', list.items), ...(list.contains ? { contains: true as const } : {}) };
  return { check: 'text', match: r.matchAt('text', v) };
}

/** One of EXTRA_CHECKS as written → its check; undefined for a shape the schema has already refused. */
export function extraCheck(key: (typeof EXTRA_CHECKS)[number], v: unknown, r: CheckReaders): ElementCheck | undefined {
  switch (key) {
    case 'class': {
      const list = listForm(v);
      if (list) return { check: 'classes', items: r.itemsAt('class', list.items), ...(list.contains ? { contains: true as const } : {}) };
      return { check: 'class', match: r.matchAt('class', v) };
    }
    case 'aria_role':
      return typeof v === 'string' ? { check: 'role', role: v } : undefined;
    case 'js_property':
      return isObj(v) && typeof v.name === 'string' ? { check: 'js_property', name: v.name, value: v.value } : undefined;
    case 'values':
      return Array.isArray(v) ? { check: 'values', items: r.itemsAt('values', v) } : undefined;
    default:
      return { check: key, match: r.matchAt(key, v) };
  }
}

function listForm(v: unknown): { items: unknown[]; contains: boolean } | undefined {
  if (Array.isArray(v)) return { items: v, contains: false };
  if (isObj(v) && Array.isArray(v.contains)) return { items: v.contains, contains: true };
  return undefined;
}

/** A list item as the plan keeps it: a string, or `{ matches }`. */
export function toItem(v: unknown): TextItem {
  if (isObj(v) && typeof v.matches === 'string') return { matches: v.matches };
  const m = isObj(v) ? toMatch(v as Obj) : undefined;
  return m && 'equals' in m ? m.equals : String(v);
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
