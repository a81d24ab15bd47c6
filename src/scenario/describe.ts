// Scenario step values → Plan shapes (targets, string conditions), and the short default names of steps.

import type { Match, PageAction, Target } from './plan.js';

type Obj = Record<string, unknown>;

const LOCATORS = ['selector', 'text', 'role', 'label', 'placeholder', 'test_id'] as const;

export function hasLocator(value: Obj): boolean {
  return LOCATORS.some((k) => k in value);
}

/** A target as written (selector string or object with one locator) → the Plan's Target. */
export function toTarget(value: string | Obj): Target {
  if (typeof value === 'string') return { selector: value };
  const exact = typeof value.exact === 'boolean' ? { exact: value.exact } : {};
  if (typeof value.selector === 'string') return { selector: value.selector };
  if (typeof value.text === 'string') return { text: value.text, ...exact };
  if (typeof value.role === 'string') {
    return { role: value.role, ...(typeof value.name === 'string' ? { name: value.name } : {}), ...exact };
  }
  if (typeof value.label === 'string') return { label: value.label, ...exact };
  if (typeof value.placeholder === 'string') return { placeholder: value.placeholder, ...exact };
  if (typeof value.test_id === 'string') return { test_id: value.test_id };
  throw new Error('target has no locator'); // unreachable after validation
}

/** A plain string means equality. */
export function toMatch(value: string | Obj): Match {
  if (typeof value === 'string') return { equals: value };
  if (typeof value.contains === 'string') return { contains: value.contains };
  if (typeof value.matches === 'string') return { matches: value.matches };
  return { equals: String(value.equals) };
}

/** Reads like Playwright's own locator descriptions: `role=button[name="Greet"]`, `label="Your name"`. */
export function describeTarget(t: Target): string {
  if ('selector' in t) return t.selector;
  if ('role' in t) return `role=${t.role}${t.name !== undefined ? `[name=${JSON.stringify(t.name)}]` : ''}`;
  if ('text' in t) return `text=${JSON.stringify(t.text)}`;
  if ('label' in t) return `label=${JSON.stringify(t.label)}`;
  if ('placeholder' in t) return `placeholder=${JSON.stringify(t.placeholder)}`;
  return `test_id=${JSON.stringify(t.test_id)}`;
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
    case 'click': {
      const count = action.click_count ?? 1;
      const times = count === 2 ? 'double ' : count === 3 ? 'triple ' : '';
      const button = action.button && action.button !== 'left' ? `${action.button} ` : '';
      return `${button}${times}click${count > 3 ? ` ×${count}` : ''} ${describeTarget(action.target)}`;
    }
    case 'fill':
      return `fill ${describeTarget(action.target)}`;
    case 'press':
      return `press ${action.key}`;
    case 'expect': {
      // Conditions in the order they are written, so the name reads like the YAML.
      const parts: string[] = [];
      for (const key of Object.keys(written as Obj)) {
        if (key === 'text' && action.text !== undefined) parts.push(`text ${JSON.stringify(action.text)}`);
        if (key === 'visible' && action.visible) parts.push(`visible ${describeTarget(action.visible)}`);
        if (key === 'url' && action.url) parts.push(`url ${describeMatch(action.url)}`);
        if (key === 'title' && action.title) parts.push(`title ${describeMatch(action.title)}`);
      }
      return `expect ${parts.join(', ')}`;
    }
    case 'screenshot': {
      const name = screenshotName(written);
      return name === undefined ? 'screenshot' : `screenshot ${name}`;
    }
    case 'sleep':
      return `sleep ${typeof written === 'string' ? written : `${action.ms}ms`}`;
  }
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
