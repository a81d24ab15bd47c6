// A plan Target → a Playwright Locator on the page: frames, the container, the getter, its filters, then
// the position, in that order (see Narrowing in src/scenario/plan.ts).
import type { FrameLocator, Locator, Page } from 'playwright-core';
import type { BaseTarget, Target, TextFilter } from '../../src/scenario/plan.js';

type Roles = Parameters<Page['getByRole']>[0];
type Root = Page | FrameLocator | Locator;

export function locate(page: Page, target: Target): Locator {
  let root: Page | FrameLocator = page;
  for (const frame of target.frame ?? []) root = root.frameLocator(frame);
  return locateIn(root, target);
}

function locateIn(outer: Page | FrameLocator, target: Target): Locator {
  const root: Root = target.within ? locateIn(outer, target.within) : outer;
  let found = getter(root, target);
  const filter = {
    ...(target.has_text !== undefined ? { hasText: text(target.has_text) } : {}),
    ...(target.has_not_text !== undefined ? { hasNotText: text(target.has_not_text) } : {}),
    // Inner locators are relative to the element they filter, from the same frame.
    ...(target.has ? { has: locateIn(outer, target.has) } : {}),
    ...(target.has_not ? { hasNot: locateIn(outer, target.has_not) } : {}),
  };
  if (Object.keys(filter).length) found = found.filter(filter);
  if (target.nth !== undefined) found = found.nth(target.nth);
  else if (target.first) found = found.first();
  else if (target.last) found = found.last();
  return found;
}

function getter(root: Root, t: BaseTarget): Locator {
  if ('selector' in t) return root.locator(t.selector);
  if ('role' in t) {
    return root.getByRole(t.role as Roles, {
      name: t.name, exact: t.exact, level: t.level, checked: t.checked, pressed: t.pressed, expanded: t.expanded,
      selected: t.selected, disabled: t.disabled, includeHidden: t.include_hidden,
    });
  }
  if ('text' in t) return root.getByText(t.text, { exact: t.exact });
  if ('label' in t) return root.getByLabel(t.label, { exact: t.exact });
  if ('placeholder' in t) return root.getByPlaceholder(t.placeholder, { exact: t.exact });
  if ('alt' in t) return root.getByAltText(t.alt, { exact: t.exact });
  if ('title' in t) return root.getByTitle(t.title, { exact: t.exact });
  return root.getByTestId(t.test_id);
}

export function text(f: TextFilter): string | RegExp {
  return typeof f === 'string' ? f : new RegExp(f.matches);
}
