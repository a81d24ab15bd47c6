// Playwright's recorder, as its `jsonl` language generator writes it (one JSON action per line: the action,
// its page, its signals and the locator the recorder picked), turned into scenario steps. Pure: the same
// recorded actions always give the same steps, so the recorder's session and this translation are
// tested apart.

/** A locator as Playwright's jsonl generator writes it: a chain of `{ kind, body, options }` parts. */
export interface RecordedLocator {
  kind: string;
  body: unknown;
  options?: Record<string, unknown>;
  next?: RecordedLocator;
}

export interface RecordedSignal {
  name: string;
  [field: string]: unknown;
}

/** One line of the recorder's jsonl output. */
export interface RecordedAction {
  name: string;
  pageGuid?: string;
  /** The recorder's own selector (Playwright's internal syntax), which `page.locator()` takes as it is. */
  selector?: string;
  locator?: RecordedLocator;
  signals?: RecordedSignal[];
  url?: string;
  text?: string;
  value?: string;
  key?: string;
  modifiers?: number;
  button?: string;
  clickCount?: number;
  options?: string[];
  files?: string[];
  checked?: boolean;
  substring?: boolean;
  ariaSnapshot?: string;
  [field: string]: unknown;
}

export type Step = Record<string, unknown>;
type Target = Record<string, unknown>;

/** What `translate` gives: the steps, and the recorded actions it could not say as steps (a comment each). */
export interface Translation {
  steps: Step[];
  skipped: string[];
}

const TEXT_KINDS: Record<string, string> = { text: 'text', label: 'label', placeholder: 'placeholder', alt: 'alt', title: 'title' };

/**
 * The target for a recorded locator, or undefined where our locator fields cannot say it (a regular
 * expression, which jsonl loses, `.or()`, `.and()`, a role's state attributes): the caller then uses the
 * recorder's selector string instead, which finds the same element.
 */
export function targetOf(locator: RecordedLocator | undefined): Target | undefined {
  if (!locator) return undefined;
  const frames: string[] = [];
  let node: RecordedLocator | undefined = locator;
  // Frames come first in the chain: `locator('iframe').contentFrame()` (or the older frameLocator()).
  while (node) {
    if (node.kind === 'default' && node.next?.kind === 'frame' && typeof node.body === 'string' && !hasFilterOptions(node)) {
      frames.push(node.body);
      node = node.next.next;
    } else if (node.kind === 'frame-locator' && typeof node.body === 'string') {
      frames.push(node.body);
      node = node.next;
    } else break;
  }
  if (!node) return undefined;
  let target: Target | undefined;
  for (; node; node = node.next) {
    const base = baseOf(node);
    if (base) {
      // A second getter in the chain looks inside what the chain found so far.
      target = target ? { ...base, within: target } : base;
      continue;
    }
    if (!target) return undefined;
    const filtered = filterOf(node, target);
    if (!filtered) return undefined;
    target = filtered;
  }
  if (!target) return undefined;
  if (frames.length) target.frame = frames.length === 1 ? frames[0] : frames;
  return target;
}

function hasFilterOptions(node: RecordedLocator): boolean {
  return node.options?.hasText !== undefined || node.options?.hasNotText !== undefined;
}

/** A getter (`getByRole`, `getByText`, `locator(css)`...) as our locator fields, or undefined. */
function baseOf(node: RecordedLocator): Target | undefined {
  const { kind, body, options = {} } = node;
  if (kind === 'role') {
    if (typeof body !== 'string' || (Array.isArray(options.attrs) && options.attrs.length)) return undefined;
    if (options.name !== undefined && typeof options.name !== 'string') return undefined;
    if (options.description !== undefined) return undefined;
    return { role: body, ...(options.name !== undefined ? { name: options.name } : {}), ...(options.exact && options.name !== undefined ? { exact: true } : {}) };
  }
  if (kind === 'test-id') return typeof body === 'string' ? { test_id: body } : undefined;
  const field = TEXT_KINDS[kind];
  if (field) return typeof body === 'string' ? { [field]: body, ...(options.exact ? { exact: true } : {}) } : undefined;
  if (kind === 'default' && typeof body === 'string') {
    const target: Target = { selector: body };
    if (options.hasText !== undefined) return typeof options.hasText === 'string' ? { ...target, has_text: options.hasText } : undefined;
    if (options.hasNotText !== undefined) return typeof options.hasNotText === 'string' ? { ...target, has_not_text: options.hasNotText } : undefined;
    return target;
  }
  return undefined;
}

/** `nth`, `first`, `last`, `filter({ hasText })` on what the chain found, or undefined. */
function filterOf(node: RecordedLocator, target: Target): Target | undefined {
  const picked = 'nth' in target || 'first' in target || 'last' in target;
  switch (node.kind) {
    case 'nth': {
      const n = Number(node.body);
      return Number.isInteger(n) && !picked ? { ...target, nth: n } : undefined;
    }
    case 'first':
      return picked ? undefined : { ...target, first: true };
    case 'last':
      return picked ? undefined : { ...target, last: true };
    case 'has-text':
      return typeof node.body === 'string' && !('has_text' in target) && !picked ? { ...target, has_text: node.body } : undefined;
    case 'has-not-text':
      return typeof node.body === 'string' && !('has_not_text' in target) && !picked ? { ...target, has_not_text: node.body } : undefined;
    default:
      return undefined;
  }
}

/** The target of an action: our locator fields, else the recorder's own selector. */
function actionTarget(action: RecordedAction): Target {
  const target = targetOf(action.locator);
  if (target) return target;
  if (!action.selector) throw new Error(`a recorded ${action.name} has neither a locator nor a selector`);
  return { selector: action.selector };
}

/**
 * The target of an element `expect`: there `text` and `title` are what is checked, not locators, so an
 * element found by its text (or title) is named by the recorder's selector instead.
 */
function expectTarget(action: RecordedAction): Target {
  const target = actionTarget(action);
  return 'text' in target || 'title' in target ? { selector: action.selector } : target;
}

/** A target alone: a selector string stays a string (`click: "#save"`), a getter an object. */
function bare(target: Target): Target | string {
  return Object.keys(target).length === 1 && typeof target.selector === 'string' ? target.selector : target;
}

const MODIFIERS: [number, string][] = [
  [1, 'Alt'],
  [2, 'Control'],
  [4, 'Meta'],
  [8, 'Shift'],
];

/** A key with the recorder's modifier bits (1 Alt, 2 Control, 4 Meta, 8 Shift), as Playwright names it. */
export function keyName(key: string, modifiers = 0): string {
  return [...MODIFIERS.filter(([bit]) => modifiers & bit).map(([, name]) => name), key].join('+');
}

/**
 * The steps for a recording. `startUrl` is where the recording began (its `goto` is the first step); the
 * recorder's own opening of that page and its first navigation there are not repeated.
 */
export function translate(actions: RecordedAction[], startUrl: string): Translation {
  const steps: Step[] = [{ goto: startUrl }];
  const skipped: string[] = [];
  // The open pages in the order they opened: what `switch_page: { index }` counts, as the run's context does.
  const pages: string[] = [];
  const known = (guid: string | undefined) => guid && !pages.includes(guid) && pages.push(guid);
  let current: string | undefined;
  let started = false;
  const switchTo = (guid: string) => {
    if (guid === current) return;
    steps.push({ switch_page: { index: pages.indexOf(guid) } });
    current = guid;
  };

  for (const action of actions) {
    const guid = action.pageGuid;
    known(guid);
    current ??= guid;
    if (action.name === 'openPage') continue;
    if (action.name === 'closePage') {
      if (!guid) continue;
      switchTo(guid);
      steps.push({ close_page: true });
      pages.splice(pages.indexOf(guid), 1);
      // The run goes back to the newest page still open, as this does.
      current = pages[pages.length - 1];
      continue;
    }
    if (guid) switchTo(guid);
    if (action.name === 'navigate' && !started && sameUrl(action.url, startUrl)) {
      started = true;
      continue;
    }
    started = true;
    const step = stepOrNothing(action);
    if (!step) {
      skipped.push(`${action.name}${action.selector ? ` on ${action.selector}` : ''}`);
    } else {
      // Clicking into a field before typing is how people fill it; `fill` focuses the field itself.
      if ((action.name === 'fill' || action.name === 'select') && isPlainClickOn(steps[steps.length - 1], step, action.name)) steps.pop();
      // Typing more into the field just filled: the field ends with the last value, which one fill gives.
      if (action.name === 'fill' && sameTarget(steps[steps.length - 1], 'fill', step)) steps.pop();
      steps.push(step);
    }
    for (const signal of action.signals ?? []) {
      if (signal.name === 'popup' && typeof signal.popupPageGuid === 'string') known(signal.popupPageGuid);
      if (signal.name === 'download' && step) steps.push({ wait_for_download: null });
    }
  }
  return { steps, skipped };
}

/** An action the recorder wrote without a target (never seen) is skipped like one no step says, not thrown. */
function stepOrNothing(action: RecordedAction): Step | undefined {
  try {
    return stepOf(action);
  } catch {
    return undefined;
  }
}

function sameUrl(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const strip = (u: string) => u.replace(/\/$/, '');
  return strip(a) === strip(b);
}

/** The step's target, without what it does there (a value, an option). */
function targetIn(step: Step, kind: string): string {
  const of = step[kind];
  const { value: _v, option: _o, ...target } = typeof of === 'string' ? { selector: of } : (of as Target);
  return JSON.stringify(target);
}

function isPlainClickOn(previous: Step | undefined, step: Step, kind: string): boolean {
  return Boolean(previous && 'click' in previous) && targetIn(previous!, 'click') === targetIn(step, kind);
}

function sameTarget(previous: Step | undefined, kind: string, step: Step): boolean {
  return Boolean(previous && kind in previous) && targetIn(previous!, kind) === targetIn(step, kind);
}

/** One recorded action as a step, or undefined for one no step says. */
export function stepOf(action: RecordedAction): Step | undefined {
  switch (action.name) {
    case 'navigate':
      return action.url ? { goto: action.url } : undefined;
    case 'click': {
      const target = actionTarget(action);
      const extra: Target = {};
      if (action.button && action.button !== 'left') extra.button = action.button;
      if (action.clickCount && action.clickCount > 1) extra.click_count = action.clickCount;
      // A click with a modifier held has no field of its own: press the modifier around it by hand.
      if (action.modifiers) return undefined;
      return { click: Object.keys(extra).length ? { ...target, ...extra } : bare(target) };
    }
    case 'fill':
      return { fill: { ...actionTarget(action), value: action.text ?? '' } };
    case 'press':
      return action.key ? { press: { key: keyName(action.key, action.modifiers), ...actionTarget(action) } } : undefined;
    case 'select': {
      const options = action.options ?? [];
      return { select: { ...actionTarget(action), option: options.length === 1 ? options[0] : options } };
    }
    case 'check':
    case 'uncheck':
      return { [action.name]: bare(actionTarget(action)) };
    case 'setInputFiles':
      // The recorder knows the files' names only: they are looked for next to the scenario file.
      return { set_input_files: { ...actionTarget(action), files: action.files ?? [] } };
    case 'assertText': {
      const text = action.text ?? '';
      return { expect: { ...expectTarget(action), text: action.substring ? { contains: text } : text } };
    }
    case 'assertValue':
      return { expect: { ...expectTarget(action), value: action.value ?? '' } };
    case 'assertChecked':
      return { expect: { ...expectTarget(action), checked: Boolean(action.checked) } };
    case 'assertVisible':
      return { expect: { ...expectTarget(action), visible: true } };
    case 'assertSnapshot':
      return action.ariaSnapshot ? { expect: { ...expectTarget(action), aria_snapshot: action.ariaSnapshot } } : undefined;
    default:
      return undefined;
  }
}

/**
 * The recording so far, from the recorder's events: an added action, or the last one updated (typing
 * grows one `fill`), or a signal (a popup, a download) joining the last action.
 */
export class Recording {
  readonly actions: RecordedAction[] = [];

  added(action: RecordedAction): void {
    this.actions.push({ ...action, signals: [...(action.signals ?? [])] });
  }

  updated(action: RecordedAction): void {
    if (this.actions.length) this.actions[this.actions.length - 1] = { ...action, signals: [...(action.signals ?? [])] };
    else this.added(action);
  }

  signal(signal: RecordedSignal): void {
    this.actions[this.actions.length - 1]?.signals?.push(signal);
  }
}
