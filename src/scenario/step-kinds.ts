// Every step kind of the schema → how it compiles: the one table a new kind is added to (a test checks it
// lists exactly the schema's kinds, and the type below refuses a kind the schema lacks or a kind left out).
// A leaf kind's compiler turns its value, already substituted, into the operations it performs: page steps
// here, host steps in host-steps.ts, computer batches in computer-steps.ts, replay markers in
// session-steps.ts, invocations of deployed actions in invoke-steps.ts, and so on.

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { StepKind } from './builder-types.js';
import { describeAction, hasLocator, screenshotFile, screenshotName, toMatch, toTarget } from './describe.js';
import { durationAt } from './duration.js';
import { compileComputer } from './computer-steps.js';
import { compileHostStep, compileScreenScreenshot, type CompiledKind, type KindContext } from './host-steps.js';
import type { DataPath } from './path.js';
import type { ElementCheck, ElementState, Match, Operation, PageAction } from './plan.js';
import { hasTemplate } from './template.js';
import { markerOperation } from './session-steps.js';
import { compileAccessibilityStep } from './accessibility-steps.js';
import { compileInvokeStep } from './invoke-steps.js';
import { compileSnapshotStep } from './snapshot-steps.js';
import { baseFor, compileWebStep } from './web-steps.js';
import { EXTRA_CHECKS, extraCheck, textCheck, toItem, type CheckReaders } from './expect-checks.js';

type Obj = Record<string, unknown>;

/** A leaf kind's compiler: the kind (a module may compile several), its value, where it is. */
export type KindCompiler = (kind: string, written: unknown, ctx: KindContext) => CompiledKind;

/**
 * How each kind compiles: a leaf kind by its compiler; `block` kinds hold steps of their own (control-flow.ts);
 * `scope` kinds need the file's scope and the scenario's variables (step-compiler.ts: function, script).
 */
export const STEP_COMPILERS = {
  goto: compilePageStep, go_back: compilePageStep, go_forward: compilePageStep, reload: compilePageStep, click: compilePageStep, fill: compilePageStep, press: compilePageStep, hover: compilePageStep,
  check: compilePageStep, uncheck: compilePageStep, select: compilePageStep, type: compilePageStep, focus: compilePageStep,
  scroll_into_view: compilePageStep, drag: compilePageStep, set_input_files: compilePageStep, expect: compilePageStep,
  expect_soft: compilePageStep, sleep: compilePageStep, screenshot: compileScreenshot,
  switch_page: compileWebStep, close_page: compileWebStep, dialog: compileWebStep, route: compileWebStep, unroute: compileWebStep,
  request: compileWebStep, wait_for_response: compileWebStep, wait_for_download: compileWebStep, save_storage_state: compileWebStep,
  expect_screenshot: compileSnapshotStep, expect_accessible: compileAccessibilityStep,
  computer: (_kind, written, ctx) => compileComputer(written as Obj | Obj[], ctx),
  clipboard: compileHostStep, exec: compileHostStep, spawn: compileHostStep, wait_process: compileHostStep, read_file: compileHostStep,
  write_file: compileHostStep, upload: compileHostStep, wait_file: compileHostStep, execute: compileHostStep,
  invoke: compileInvokeStep,
  marker: (_kind, written) => ({ name: `marker ${String(written)}`, operations: [markerOperation(String(written))] }),
  if: 'block', repeat: 'block', for_each: 'block', retry: 'block', include: 'block',
  function: 'scope', script: 'scope',
} as const satisfies Record<StepKind, KindCompiler | 'block' | 'scope'>;

export function isBlockKind(kind: string): boolean {
  return (STEP_COMPILERS as Record<string, unknown>)[kind] === 'block';
}

export function compileKind(kind: string, written: unknown, ctx: KindContext): CompiledKind {
  const compiler = (STEP_COMPILERS as Record<string, KindCompiler | 'block' | 'scope' | undefined>)[kind];
  if (typeof compiler !== 'function') throw new Error(`'${kind}' is not a leaf step kind`); // unreachable after validation
  return compiler(kind, written, ctx);
}

/** A page screenshot, or with `screen: true` one of the whole screen (a computer API call). */
function compileScreenshot(kind: string, written: unknown, ctx: KindContext): CompiledKind {
  if (isObj(written) && written.screen === true) return compileScreenScreenshot(written, ctx);
  if (isObj(written) && written.region !== undefined) {
    ctx.report([...ctx.at, 'region'], "'region' needs 'screen: true': a page screenshot is the page's viewport or full page");
  }
  return compilePageStep(kind, written, ctx);
}

/** Headroom over a sleep's own length, so a long `sleep` without an explicit timeout cannot time out. */
const SLEEP_HEADROOM_MS = 1_000;

/** A step on the page or one of its elements → one page action. */
function compilePageStep(kind: string, written: unknown, ctx: KindContext): CompiledKind {
  // A soft expect is an expect whose failure the runner lets the run go on from (PlanStep.soft).
  const pageKind = kind === 'expect_soft' ? 'expect' : kind;
  const action = toAction(pageKind, written, ctx.mainIndex, ctx.at, ctx.report, ctx.scenarioDir);
  if (action.action === 'goto') Object.assign(action, baseFor(action.url, ctx.at, ctx));
  const name = describeAction(action, written);
  return {
    name: kind === 'expect_soft' ? name.replace(/^expect/, 'expect_soft') : name,
    operations: [{ op: 'page', ...action } as Operation],
    waitMs: action.action === 'expect' && isObj(written) && written.timeout !== undefined
      ? durationAt(written.timeout, [...ctx.at, 'timeout'], ctx.report)
      : undefined,
    minTimeoutMs: action.action === 'sleep' ? action.ms + SLEEP_HEADROOM_MS : undefined,
  };
}

/** One page step's value (already substituted) → its page action. */
function toAction(kind: string, v: unknown, mainIndex: number, at: DataPath, report: (at: DataPath, m: string) => void, scenarioDir: string): PageAction {
  switch (kind) {
    case 'goto':
      if (typeof v === 'string') return { action: 'goto', url: v };
      return { action: 'goto', url: String((v as Obj).url), ...pick(v as Obj, 'wait_until') } as PageAction;
    case 'go_back':
    case 'go_forward':
    case 'reload':
      return { action: kind, ...(isObj(v) ? pick(v, 'wait_until') : {}) } as PageAction;
    case 'click':
      if (typeof v === 'string') return { action: 'click', target: toTarget(v) };
      return { action: 'click', target: toTarget(v as Obj), ...pick(v as Obj, 'button', 'click_count') } as PageAction;
    case 'fill':
      return { action: 'fill', target: toTarget(v as Obj), value: String((v as Obj).value) };
    case 'press':
      if (typeof v === 'string') return { action: 'press', key: v };
      return { action: 'press', key: String((v as Obj).key), ...(hasLocator(v as Obj) ? { target: toTarget(v as Obj) } : {}) };
    case 'expect':
      return compileExpect(v as Obj, at, report);
    case 'hover':
    case 'check':
    case 'uncheck':
    case 'focus':
    case 'scroll_into_view':
      return { action: kind, target: toTarget(v as string | Obj) };
    case 'select': {
      const option = (v as Obj).option;
      return { action: 'select', target: toTarget(v as Obj), option: Array.isArray(option) ? option.map(String) : [String(option)] };
    }
    case 'type': {
      if (typeof v === 'string') return { action: 'type', text: v };
      const o = v as Obj;
      const delay = o.delay !== undefined ? { delay_ms: durationAt(o.delay, [...at, 'delay'], report) } : {};
      return { action: 'type', ...(hasLocator(o) ? { target: toTarget(o) } : {}), text: String(o.value), ...delay };
    }
    case 'drag':
      return { action: 'drag', target: toTarget((v as Obj).from as string | Obj), to: toTarget((v as Obj).to as string | Obj) };
    case 'set_input_files': {
      const written = (v as Obj).files;
      const files = (Array.isArray(written) ? written : [written]).map((f) => path.resolve(scenarioDir, String(f)));
      files.forEach((file, i) => {
        if (!existsSync(file)) report([...at, 'files', ...(Array.isArray(written) ? [i] : [])], `no such file: ${file}`);
      });
      return { action: 'set_input_files', target: toTarget(v as Obj), files };
    }
    case 'screenshot':
      return {
        action: 'screenshot', file: screenshotFile(mainIndex, screenshotName(v)),
        ...(isObj(v) ? pick(v, 'full_page') : {}),
      } as PageAction;
    case 'sleep':
      return { action: 'sleep', ms: durationAt(v, at, report) };
    default:
      throw new Error(`unknown step kind '${kind}'`); // unreachable after validation
  }
}

const STATES: readonly ElementState[] = ['attached', 'hidden', 'enabled', 'disabled', 'checked', 'focused', 'editable', 'empty', 'in_viewport'];
const ELEMENT_ONLY = ['count', 'value', 'attribute', 'css', ...EXTRA_CHECKS, ...STATES];

/**
 * Conditions are kept in the order they were written (the keys' order): the runner checks them in that
 * order, each waiting in turn, so `count: 1, text: ...` waits for one element before reading its text, as
 * the same two checks written as two steps do. An element's checks sit at the place of its first.
 */
function compileExpect(o: Obj, at: DataPath, report: (at: DataPath, m: string) => void): PageAction {
  const action: Extract<PageAction, { action: 'expect' }> = { action: 'expect' };
  const matchAt = (key: string, value: unknown): Match => {
    const match = toMatch(value as string | Obj);
    // A pattern made at run time (`{{ item }}`) is checked when it is used.
    if ('matches' in match && !hasTemplate(match.matches)) checkRegExp(match.matches, [...at, key, 'matches'], report);
    return match;
  };
  const readers: CheckReaders = {
    matchAt,
    itemsAt: (key, items) => items.map((item, i) => {
      const it = toItem(item);
      if (typeof it !== 'string' && !hasTemplate(it.matches)) checkRegExp(it.matches, [...at, key, ...(Array.isArray(o[key]) ? [] : ['contains']), i, 'matches'], report);
      return it;
    }),
  };
  const element = hasLocator(o, true);
  const checks: ElementCheck[] = [];
  const check = (c: ElementCheck) => {
    if (!action.element) {
      action.element = toTarget(o, true);
      action.checks = checks;
    }
    checks.push(c);
  };
  for (const key of Object.keys(o)) {
    const v = o[key];
    if (v === undefined) continue;
    if (key === 'url' || key === 'title') action[key] = matchAt(key, v);
    else if (key === 'visible' && (isObj(v) || typeof v === 'string')) action.visible = toTarget(v as string | Obj);
    else if (!element) {
      if (key === 'text' && (Array.isArray(v) || (isObj(v) && Array.isArray(v.contains)))) report([...at, key], "a list of texts checks the elements a locator finds, one text each: add a locator (role, test_id, label, placeholder, alt or selector)");
      else if (key === 'text') action.text = typeof v === 'string' ? v : matchAt('text', v);
      else if (key === 'aria_snapshot' && typeof v === 'string') action.aria_snapshot = v;
      else if (key === 'visible' && typeof v === 'boolean') report([...at, 'visible'], "'visible: true|false' checks an element: add a locator, or name the target (visible: { role: ... })");
      else if (ELEMENT_ONLY.includes(key)) report([...at, key], `'${key}' checks an element: add a locator (role, test_id, label, placeholder, alt or selector)`);
    } else if (key === 'text') check(textCheck(v, readers));
    else if ((EXTRA_CHECKS as readonly string[]).includes(key)) {
      const c = extraCheck(key as (typeof EXTRA_CHECKS)[number], v, readers);
      if (c) check(c);
    }
    else if (key === 'visible' && typeof v === 'boolean') check({ check: 'state', state: 'visible', is: v });
    else if (key === 'count' && typeof v === 'number') check({ check: 'count', count: v });
    else if (key === 'value') check({ check: 'value', match: matchAt('value', v) });
    else if (key === 'attribute' && isObj(v)) check({ check: 'attribute', name: String(v.name), ...(v.value !== undefined ? { match: toMatch(v.value as string | Obj) } : {}) });
    else if (key === 'css' && isObj(v)) check({ check: 'css', property: String(v.property), match: toMatch(v.value as string | Obj) });
    else if ((STATES as readonly string[]).includes(key) && typeof v === 'boolean') check({ check: 'state', state: key as ElementState, is: v });
    else if (key === 'aria_snapshot' && typeof v === 'string') check({ check: 'aria', snapshot: v });
  }
  if (element && checks.length === 0) {
    report(at, 'an element expectation needs something to check: text, visible, count, value, attribute, css, class, id, accessible_name, aria_role, js_property, values, aria_snapshot, or a state such as enabled or checked');
    action.element = toTarget(o, true);
    action.checks = checks;
  }
  if (o.not === true) action.not = true;
  const positions = ['nth', 'first', 'last'].filter((k) => o[k] !== undefined);
  if (positions.length > 1) report([...at, positions[1]!], `use one of nth, first and last, not ${positions.join(' and ')}`);
  return action;
}

function checkRegExp(sourceText: string, at: DataPath, report: (at: DataPath, m: string) => void): void {
  try {
    new RegExp(sourceText);
  } catch (err) {
    report(at, `invalid regular expression: ${(err as Error).message}`);
  }
}

function pick(o: Obj, ...keys: string[]): Obj {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
