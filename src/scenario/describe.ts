// Scenario step values → Plan shapes (targets, string conditions), and the short default names of steps.

import { ROLE_OPTIONS } from './plan.js';
import type { BaseTarget, ElementCheck, Match, Narrowing, PageAction, PageExpectation, Target, TextFilter, TextItem } from './plan.js';

type Obj = Record<string, unknown>;

const LOCATORS = ['selector', 'text', 'role', 'label', 'placeholder', 'test_id', 'alt', 'title'] as const;
/** In an `expect`, `text` and `title` are what is checked, so they never locate. */
const EXPECT_LOCATORS = ['selector', 'role', 'label', 'placeholder', 'test_id', 'alt'] as const;

export function hasLocator(value: Obj, inExpect = false): boolean {
  return (inExpect ? EXPECT_LOCATORS : LOCATORS).some((k) => k in value);
}

/** A target as written (selector string or object with one locator and its narrowing) → the Plan's Target. */
export function toTarget(value: string | Obj, inExpect = false): Target {
  if (typeof value === 'string') return { selector: value };
  return { ...baseTarget(value, inExpect), ...narrowing(value) } as Target;
}

function baseTarget(value: Obj, inExpect: boolean): BaseTarget {
  const exact = typeof value.exact === 'boolean' ? { exact: value.exact } : {};
  if (typeof value.selector === 'string') return { selector: value.selector };
  if (!inExpect && typeof value.text === 'string') return { text: value.text, ...exact };
  if (typeof value.role === 'string') {
    // In an expect, `checked` and `disabled` are what is checked (toBeChecked, toBeDisabled), not options.
    const options = ROLE_OPTIONS.filter((k) => value[k] !== undefined && !(inExpect && (k === 'checked' || k === 'disabled')));
    return { role: value.role, ...(typeof value.name === 'string' ? { name: value.name } : {}), ...exact, ...Object.fromEntries(options.map((k) => [k, value[k]])) };
  }
  if (typeof value.label === 'string') return { label: value.label, ...exact };
  if (typeof value.placeholder === 'string') return { placeholder: value.placeholder, ...exact };
  if (typeof value.test_id === 'string') return { test_id: value.test_id };
  if (typeof value.alt === 'string') return { alt: value.alt, ...exact };
  if (!inExpect && typeof value.title === 'string') return { title: value.title, ...exact };
  throw new Error('target has no locator'); // unreachable after validation
}

function narrowing(value: Obj): Narrowing {
  const n: Narrowing = {};
  if (value.frame !== undefined) n.frame = Array.isArray(value.frame) ? value.frame.map(String) : [String(value.frame)];
  if (value.within !== undefined) n.within = toTarget(value.within as string | Obj);
  if (value.has_text !== undefined) n.has_text = value.has_text as TextFilter;
  if (value.has_not_text !== undefined) n.has_not_text = value.has_not_text as TextFilter;
  if (value.has !== undefined) n.has = toTarget(value.has as string | Obj);
  if (value.has_not !== undefined) n.has_not = toTarget(value.has_not as string | Obj);
  if (typeof value.nth === 'number') n.nth = value.nth;
  if (value.first === true) n.first = true;
  if (value.last === true) n.last = true;
  return n;
}

/** A plain string means equality. */
export function toMatch(value: string | Obj): Match {
  if (typeof value === 'string') return { equals: value };
  if (typeof value.contains === 'string') return { contains: value.contains };
  if (typeof value.matches === 'string') return { matches: value.matches };
  return { equals: String(value.equals) };
}

/** Reads like Playwright's own locator descriptions: `role=button[name="Greet"]`, `label="Your name" >> nth=1`. */
export function describeTarget(t: Target): string {
  const parts: string[] = [];
  for (const f of t.frame ?? []) parts.push(`frame ${f}`);
  if (t.within) parts.push(describeTarget(t.within));
  parts.push(describeBase(t));
  if (t.has_text !== undefined) parts.push(`has_text=${describeText(t.has_text)}`);
  if (t.has_not_text !== undefined) parts.push(`has_not_text=${describeText(t.has_not_text)}`);
  if (t.has) parts.push(`has=${describeTarget(t.has)}`);
  if (t.has_not) parts.push(`has_not=${describeTarget(t.has_not)}`);
  if (t.nth !== undefined) parts.push(`nth=${t.nth}`);
  if (t.first) parts.push('first');
  if (t.last) parts.push('last');
  return parts.join(' >> ');
}

function describeBase(t: BaseTarget): string {
  if ('selector' in t) return t.selector;
  if ('role' in t) {
    const options = ROLE_OPTIONS.filter((k) => t[k] !== undefined).map((k) => `[${k}=${String(t[k])}]`).join('');
    return `role=${t.role}${t.name !== undefined ? `[name=${JSON.stringify(t.name)}]` : ''}${options}`;
  }
  if ('text' in t) return `text=${JSON.stringify(t.text)}`;
  if ('label' in t) return `label=${JSON.stringify(t.label)}`;
  if ('placeholder' in t) return `placeholder=${JSON.stringify(t.placeholder)}`;
  if ('alt' in t) return `alt=${JSON.stringify(t.alt)}`;
  if ('title' in t) return `title=${JSON.stringify(t.title)}`;
  return `test_id=${JSON.stringify(t.test_id)}`;
}

function describeText(f: TextFilter): string {
  return typeof f === 'string' ? JSON.stringify(f) : `/${f.matches}/`;
}

/** `["milk", /br.ad/]` */
export function describeItems(items: TextItem[]): string {
  return `[${items.map((i) => (typeof i === 'string' ? JSON.stringify(i) : `/${i.matches}/`)).join(', ')}]`;
}

export function describeMatch(m: Match): string {
  if ('contains' in m) return `contains ${JSON.stringify(m.contains)}`;
  if ('matches' in m) return `matches /${m.matches}/`;
  return JSON.stringify(m.equals);
}

/** The default step name: the kind and what it acts on, e.g. `click role=button[name="Greet"]`. */
export function describeAction(action: PageAction, written: unknown): string {
  switch (action.action) {
    case 'goto':
      return `goto ${action.url}`;
    case 'go_back':
      return 'go back';
    case 'go_forward':
      return 'go forward';
    case 'reload':
      return 'reload';
    case 'click': {
      const count = action.click_count ?? 1;
      const times = count === 2 ? 'double ' : count === 3 ? 'triple ' : '';
      const button = action.button && action.button !== 'left' ? `${action.button} ` : '';
      return `${button}${times}click${count > 3 ? ` ×${count}` : ''} ${describeTarget(action.target)}`;
    }
    case 'fill':
    case 'hover':
    case 'check':
    case 'uncheck':
    case 'focus':
      return `${action.action} ${describeTarget(action.target)}`;
    case 'scroll_into_view':
      return `scroll to ${describeTarget(action.target)}`;
    case 'select':
      return `select ${action.option.map((o) => JSON.stringify(o)).join(', ')} in ${describeTarget(action.target)}`;
    case 'type':
      return `type ${JSON.stringify(action.text)}${action.target ? ` into ${describeTarget(action.target)}` : ''}`;
    case 'drag':
      return `drag ${describeTarget(action.target)} to ${describeTarget(action.to)}`;
    case 'set_input_files':
      return `set files of ${describeTarget(action.target)}: ${action.files.length ? action.files.map((f) => f.split('/').pop()).join(', ') : 'none'}`;
    case 'press':
      return `press ${action.key}`;
    case 'expect':
      return `expect ${describeExpectation(action, written as Obj)}`;
    case 'screenshot': {
      const name = screenshotName(written);
      return name === undefined ? 'screenshot' : `screenshot ${name}`;
    }
    case 'sleep':
      return `sleep ${typeof written === 'string' ? written : `${action.ms}ms`}`;
    default:
      // Page and traffic steps (web-steps.ts) name themselves.
      return action.action;
  }
}

/** The conditions in the order they are written, so the name reads like the YAML: `role=status text "3 items left"`. */
function describeExpectation(e: PageExpectation, written: Obj): string {
  const page: string[] = [];
  for (const key of Object.keys(written)) {
    if (key === 'text' && e.text !== undefined && !e.element) page.push(`text ${typeof e.text === 'string' ? JSON.stringify(e.text) : describeMatch(e.text)}`);
    if (key === 'visible' && e.visible) page.push(`visible ${describeTarget(e.visible)}`);
    if (key === 'url' && e.url) page.push(`url ${describeMatch(e.url)}`);
    if (key === 'title' && e.title) page.push(`title ${describeMatch(e.title)}`);
    if (key === 'aria_snapshot' && e.aria_snapshot !== undefined) page.push(`aria snapshot ${ariaSummary(e.aria_snapshot)}`);
  }
  const element = e.element ? [`${describeTarget(e.element)} ${(e.checks ?? []).map(describeCheck).join(', ')}`] : [];
  return `${e.not ? 'not ' : ''}${[...element, ...page].join(', ')}`;
}

function describeCheck(c: ElementCheck): string {
  switch (c.check) {
    case 'text': return `text ${describeMatch(c.match)}`;
    case 'texts': return `texts ${c.contains ? 'containing ' : ''}${describeItems(c.items)}`;
    case 'class': return `class ${describeMatch(c.match)}`;
    case 'classes': return `classes ${c.contains ? 'containing ' : ''}${describeItems(c.items)}`;
    case 'id':
    case 'accessible_name':
    case 'accessible_description':
    case 'accessible_error_message': return `${c.check.replace(/_/g, ' ')} ${describeMatch(c.match)}`;
    case 'role': return `aria role ${c.role}`;
    case 'js_property': return `property ${c.name} ${JSON.stringify(c.value)}`;
    case 'values': return `values ${describeItems(c.items)}`;
    case 'count': return `count ${c.count}`;
    case 'value': return `value ${describeMatch(c.match)}`;
    case 'attribute': return `attribute ${c.name}${c.match ? ` ${describeMatch(c.match)}` : ''}`;
    case 'css': return `css ${c.property} ${describeMatch(c.match)}`;
    case 'state': return c.is ? c.state.replace('_', ' ') : `not ${c.state.replace('_', ' ')}`;
    case 'aria': return `aria snapshot ${ariaSummary(c.snapshot)}`;
  }
}

/** A template's first line, enough to tell steps apart: `- heading "Cart" [level=1] …`. */
function ariaSummary(snapshot: string): string {
  const lines = snapshot.trim().split('\n');
  const first = lines[0]!.trim();
  return lines.length > 1 || first.length > 60 ? `${first.slice(0, 60)} …` : first;
}

export function screenshotName(written: unknown): string | undefined {
  if (typeof written === 'string') return written;
  if (written !== null && typeof written === 'object' && typeof (written as Obj).name === 'string') return (written as Obj).name as string;
  return undefined;
}

/**
 * `NN-slug.png`: NN orders files like the steps (1-based among main steps), slug keeps names filesystem-safe.
 * Run-time templates (`shot-{{ item }}`) stay, so each pass of a loop gets its own file; the runner makes
 * what they resolve to safe.
 */
export function screenshotFile(mainIndex: number, name: string | undefined): string {
  const parts = (name ?? 'screenshot').split(/(\{\{[^{}]*\}\})/);
  const slug = parts.map((part, i) => (i % 2 ? part : part.toLowerCase().replace(/[^a-z0-9]+/g, '-'))).join('')
    .replace(/^-+|-+$/g, '') || 'screenshot';
  return `${String(mainIndex).padStart(2, '0')}-${slug}.png`;
}
