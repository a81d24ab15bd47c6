// `expect` steps, checked with Playwright Test's own assertions (`expect(locator).toHaveText(...)` and the
// rest), so they retry as Playwright's do and fail with Playwright's message: the locator, expected and
// received values, and the call log. Each condition gets what is left of the step's time.
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';
import { stripVTControlCharacters } from 'node:util';
import type { ElementCheck, Match, PageExpectation, TextItem } from '../../src/scenario/plan.js';
import { describeItems, describeMatch, describeTarget } from '../../src/scenario/describe.js';
import { assertionFailed, strictViolation } from './failures.js';
import { locate, text } from './locate.js';
import { playwrightTest } from './playwright-lib.js';

type Expect = typeof import('@playwright/test').expect;
const require = createRequire(import.meta.url);
/** What one condition does with the time it has (`not` already applied), and what it expects, in words. */
interface Condition {
  run: (expect: Expect, timeout: number) => Promise<void>;
  /** `text "Hello" to be visible`, `role=status to have text "3 items left"` (after `expected `). */
  what: string;
}

let library: Promise<{ expect: Expect }> | undefined;

/**
 * Playwright Test, loaded once, on the first `expect` step (commands that never check a page do not pay
 * for it). run-step.ts awaits it before that step's deadline starts: loading takes half a second or more,
 * which is not the step's time to fail in.
 */
export function loadExpect(): Promise<{ expect: Expect }> {
  library ??= Promise.resolve().then(() => playwrightTest());
  return library;
}

export async function expectOnPage(page: Page, e: PageExpectation, timeoutMs: number): Promise<void> {
  const { expect } = await loadExpect();
  const deadline = Date.now() + timeoutMs;
  for (const condition of conditions(page, e)) {
    try {
      await condition.run(expect, Math.max(1, deadline - Date.now()));
    } catch (err) {
      throw assertionError(err, condition.what, timeoutMs);
    }
  }
}

/**
 * The conditions in the order the scenario wrote them (the compiler keeps the keys in that order; an
 * element's checks in their list), so each waits for what the ones before it established.
 */
function conditions(page: Page, e: PageExpectation): Condition[] {
  const not = Boolean(e.not);
  const on = (expect: Expect, subject: Locator, negate = false) => (not !== negate ? expect(subject).not : expect(subject));
  const onPage = (expect: Expect) => (not ? expect(page).not : expect(page));
  const to = (verb: string) => `${not ? 'not ' : ''}to ${verb}`;
  const byKey: Partial<Record<keyof PageExpectation, () => Condition[]>> = {
    text: () => {
      const match: Match = typeof e.text === 'string' ? { contains: e.text } : e.text!;
      const found = 'matches' in match ? page.getByText(new RegExp(match.matches)) : page.getByText('equals' in match ? match.equals : match.contains, { exact: 'equals' in match });
      const shown = typeof e.text === 'string' ? JSON.stringify(e.text) : describeMatch(e.text!);
      return [{ what: `text ${shown} ${to('be visible')}`, run: (x, timeout) => on(x, found.filter({ visible: true }).first()).toBeVisible({ timeout }) }];
    },
    visible: () => {
      const target = locate(page, e.visible!);
      return [{ what: `${describeTarget(e.visible!)} ${to('be visible')}`, run: (x, timeout) => on(x, target.filter({ visible: true }).first()).toBeVisible({ timeout }) }];
    },
    url: () => [{ what: `url ${to(matchVerb(e.url!))}`, run: (x, timeout) => onPage(x).toHaveURL(pattern(e.url!), { timeout }) }],
    title: () => [{ what: `title ${to(matchVerb(e.title!))}`, run: (x, timeout) => onPage(x).toHaveTitle(pattern(e.title!), { timeout }) }],
    aria_snapshot: () => [{ what: `the page ${to('match the aria snapshot')}`, run: (_x, timeout) => expectAria(page.locator(':root'), e.aria_snapshot!, not, timeout) }],
    element: () => {
      const element = locate(page, e.element!);
      const name = describeTarget(e.element!);
      return (e.checks ?? []).map((c): Condition => {
        if (c.check === 'aria') return { what: `${name} ${to('match the aria snapshot')}`, run: (_x, timeout) => expectAria(element, c.snapshot, not, timeout) };
        const negated = c.check === 'state' && !c.is;
        return { what: `${name} ${not !== negated ? 'not ' : ''}to ${checkVerb(c)}`, run: (x, timeout) => check(c, (negate) => on(x, element, negate), timeout) };
      });
    },
  };
  return (Object.keys(e) as (keyof PageExpectation)[]).flatMap((key) => (e[key] === undefined ? [] : (byKey[key]?.() ?? [])));
}

/** `be "Home"`, `contain "Home"`, `match /Ho+me/`. */
function matchVerb(m: Match): string {
  if ('equals' in m) return `be ${JSON.stringify(m.equals)}`;
  if ('contains' in m) return `contain ${JSON.stringify(m.contains)}`;
  return `match /${m.matches}/`;
}

function checkVerb(c: ElementCheck): string {
  switch (c.check) {
    case 'text': return 'contains' in c.match ? `contain text ${JSON.stringify(c.match.contains)}` : `have text ${describeMatch(c.match)}`;
    case 'texts': return `${c.contains ? 'contain texts' : 'have texts'} ${describeItems(c.items)}`;
    case 'class': return 'contains' in c.match ? `contain class ${JSON.stringify(c.match.contains)}` : `have class ${describeMatch(c.match)}`;
    case 'classes': return `${c.contains ? 'contain classes' : 'have classes'} ${describeItems(c.items)}`;
    case 'id':
    case 'accessible_name':
    case 'accessible_description':
    case 'accessible_error_message': return `have ${c.check.replace(/_/g, ' ')} ${describeMatch(c.match)}`;
    case 'role': return `have role ${c.role}`;
    case 'js_property': return `have property ${c.name} ${JSON.stringify(c.value)}`;
    case 'values': return `have values ${describeItems(c.items)}`;
    case 'count': return `have count ${c.count}`;
    case 'value': return `have value ${describeMatch(c.match)}`;
    case 'attribute': return `have attribute ${c.name}${c.match ? ` ${describeMatch(c.match)}` : ''}`;
    case 'css': return `have css ${c.property} ${describeMatch(c.match)}`;
    case 'state': return `be ${c.state.replace('_', ' ')}`;
    case 'aria': return 'match the aria snapshot';
  }
}

type Assertion = ReturnType<typeof elementAssertion>;
const elementAssertion = (expect: Expect, l: Locator) => expect(l);

function check(c: Exclude<ElementCheck, { check: 'aria' }>, on: (negate?: boolean) => Assertion, timeout: number): Promise<void> {
  switch (c.check) {
    case 'text':
      return 'contains' in c.match ? on().toContainText(c.match.contains, { timeout }) : on().toHaveText(pattern(c.match), { timeout });
    case 'texts':
      return c.contains ? on().toContainText(c.items.map(item), { timeout }) : on().toHaveText(c.items.map(item), { timeout });
    case 'class':
      // toContainClass takes the classes as written (`done selected`, in any order), not a pattern.
      return 'contains' in c.match ? on().toContainClass(c.match.contains, { timeout }) : on().toHaveClass(pattern(c.match), { timeout });
    case 'classes':
      return c.contains ? on().toContainClass(c.items.map(String), { timeout }) : on().toHaveClass(c.items.map(item), { timeout });
    case 'id':
      return on().toHaveId(pattern(c.match), { timeout });
    case 'accessible_name':
      return on().toHaveAccessibleName(pattern(c.match), { timeout });
    case 'accessible_description':
      return on().toHaveAccessibleDescription(pattern(c.match), { timeout });
    case 'accessible_error_message':
      return on().toHaveAccessibleErrorMessage(pattern(c.match), { timeout });
    case 'role':
      return on().toHaveRole(c.role as Parameters<Assertion['toHaveRole']>[0], { timeout });
    case 'js_property':
      return on().toHaveJSProperty(c.name, c.value, { timeout });
    case 'values':
      return on().toHaveValues(c.items.map(item), { timeout });
    case 'count':
      return on().toHaveCount(c.count, { timeout });
    case 'value':
      return on().toHaveValue(pattern(c.match), { timeout });
    case 'attribute':
      return c.match ? on().toHaveAttribute(c.name, pattern(c.match), { timeout }) : on().toHaveAttribute(c.name, { timeout });
    case 'css':
      return on().toHaveCSS(c.property, pattern(c.match), { timeout });
    case 'state': {
      const negate = !c.is;
      switch (c.state) {
        case 'attached': return on(negate).toBeAttached({ timeout });
        case 'visible': return on(negate).toBeVisible({ timeout });
        case 'hidden': return on(negate).toBeHidden({ timeout });
        case 'enabled': return on(negate).toBeEnabled({ timeout });
        case 'disabled': return on(negate).toBeDisabled({ timeout });
        case 'checked': return on(negate).toBeChecked({ timeout });
        case 'focused': return on(negate).toBeFocused({ timeout });
        case 'editable': return on(negate).toBeEditable({ timeout });
        case 'empty': return on(negate).toBeEmpty({ timeout });
        case 'in_viewport': return on(negate).toBeInViewport({ timeout });
      }
    }
  }
}

/** What Playwright's private expectation answers; toMatchAriaSnapshot is built on it (the version is pinned). */
interface AriaResult {
  matches: boolean;
  received?: { value?: { raw?: string }; ariaSnapshot?: string };
  errorMessage?: string;
  log?: string[];
}
type LocatorWithExpect = Locator & { _expect(expression: string, options: Record<string, unknown>): Promise<AriaResult> };

/**
 * Playwright's toMatchAriaSnapshot without Playwright Test (which insists on a test to hold snapshot files):
 * the same expectation, retried to the timeout, failing with the template against what the page had.
 */
async function expectAria(locator: Locator, snapshot: string, not: boolean, timeout: number): Promise<void> {
  const result = await (locator as LocatorWithExpect)._expect('to.match.aria', { expectedValue: snapshot.trimEnd(), isNot: not, timeout });
  if (result.matches !== not) return;
  const received = result.received?.value?.raw;
  const detail = result.errorMessage
    ? `${result.errorMessage.replace(/^Error: /, '')}${result.received?.ariaSnapshot ? `; the page:\n${result.received.ariaSnapshot}` : ''}`
    : received === undefined ? '' : not ? `it does:\n${received}` : lineDiff(snapshot.trimEnd(), received);
  throw new AriaMismatch(detail);
}

class AriaMismatch extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

/** The template against the page's tree, line by line, as Playwright prints it (`- Expected`, `+ Received`). */
function lineDiff(expected: string, received: string): string {
  const { diff } = require('playwright-core/lib/utilsBundle') as { diff: { diffLines(a: string, b: string): { value: string; added?: boolean; removed?: boolean }[] } };
  const out = ['- Expected', '+ Received', ''];
  for (const part of diff.diffLines(`${expected}\n`, `${received}\n`)) {
    const mark = part.added ? '+ ' : part.removed ? '- ' : '  ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) out.push(`${mark}${line}`);
  }
  return out.join('\n');
}

/** A list's expected text: a string as written, or a pattern. */
function item(i: TextItem): string | RegExp {
  return typeof i === 'string' ? i : text({ matches: i.matches });
}

/** `equals` is the whole string; `contains` a part of it; `matches` a regular expression. */
function pattern(m: Match): string | RegExp {
  if ('equals' in m) return m.equals;
  if ('contains' in m) return new RegExp(escape(m.contains));
  return text({ matches: m.matches });
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * One line in our words (what was expected, what was there, or the elements found where one was needed),
 * then Playwright's own message without its first line: the locator, expected and received values, and the
 * call log. Anything else (a closed page) stays what it is.
 */
function assertionError(err: unknown, what: string, timeoutMs: number): unknown {
  if (err instanceof AriaMismatch) return assertionFailed(`expected ${what} (waited ${timeoutMs} ms)${err.detail ? `\n${err.detail}` : ''}`);
  if (!(err instanceof Error) || !('matcherResult' in err)) return err;
  const message = stripVTControlCharacters(err.message).replace(/\n{3,}/g, '\n\n').trim();
  const body = message.split('\n').slice(1).join('\n').trim();
  // Not a wait that ran out: Playwright gives up at once on a locator that found several elements.
  const strict = strictViolation(body);
  if (strict) return assertionFailed(`expected ${what}: ${strict}\n${body}`);
  const received = /^Received(?: string| array)?:\s+(.+)$/m.exec(body)?.[1];
  const error = /^Error:\s+(.+)$/m.exec(body)?.[1];
  const got = received !== undefined ? `, got ${received}` : error ? `: ${error}` : '';
  return assertionFailed(`expected ${what}${got} (waited ${timeoutMs} ms)${body ? `\n${body}` : ''}`);
}
