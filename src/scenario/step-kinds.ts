// One step's kind, its value already substituted, → the operations it performs: page steps here, host
// steps in host-steps.ts, computer batches in computer-steps.ts, replay markers in session-steps.ts,
// invocations of deployed actions in invoke-steps.ts.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { describeAction, hasLocator, screenshotFile, screenshotName, toMatch, toTarget } from './describe.js';
import { durationAt } from './duration.js';
import { compileComputer } from './computer-steps.js';
import { HOST_KINDS, compileHostStep, compileScreenScreenshot, type CompiledKind, type KindContext } from './host-steps.js';
import type { DataPath } from './path.js';
import type { ElementCheck, ElementState, Match, Operation, PageAction } from './plan.js';
import { hasTemplate } from './template.js';
import { markerOperation } from './session-steps.js';
import { ACCESSIBILITY_KINDS, compileAccessibilityStep } from './accessibility-steps.js';
import { INVOKE_KINDS, compileInvokeStep } from './invoke-steps.js';
import { SNAPSHOT_KINDS, compileSnapshotStep } from './snapshot-steps.js';
import { WEB_KINDS, baseFor, compileWebStep } from './web-steps.js';

type Obj = Record<string, unknown>;

/** Headroom over a sleep's own length, so a long `sleep` without an explicit timeout cannot time out. */
const SLEEP_HEADROOM_MS = 1_000;

export function compileKind(kind: string, written: unknown, ctx: KindContext): CompiledKind {
  if (kind === 'marker') return { name: `marker ${String(written)}`, operations: [markerOperation(String(written))] };
  if (kind === 'computer') return compileComputer(written as Obj | Obj[], ctx);
  if (kind === 'screenshot' && isObj(written) && written.screen === true) return compileScreenScreenshot(written, ctx);
  if ((HOST_KINDS as readonly string[]).includes(kind)) return compileHostStep(kind, written, ctx);
  if ((WEB_KINDS as readonly string[]).includes(kind)) return compileWebStep(kind, written, ctx);
  if ((SNAPSHOT_KINDS as readonly string[]).includes(kind)) return compileSnapshotStep(kind, written, ctx);
  if ((ACCESSIBILITY_KINDS as readonly string[]).includes(kind)) return compileAccessibilityStep(kind, written, ctx);
  if ((INVOKE_KINDS as readonly string[]).includes(kind)) return compileInvokeStep(kind, written, ctx);
  if (kind === 'screenshot' && isObj(written) && written.region !== undefined) {
    ctx.report([...ctx.at, 'region'], "'region' needs 'screen: true': a page screenshot is the page's viewport or full page");
  }
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
      const o = v as Obj;
      const delay = o.delay !== undefined ? { delay_ms: durationAt(o.delay, [...at, 'delay'], report) } : {};
      return { action: 'type', target: toTarget(o), text: String(o.value), ...delay };
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

const STATES: readonly ElementState[] = ['hidden', 'enabled', 'disabled', 'checked', 'focused', 'editable', 'empty', 'in_viewport'];
const ELEMENT_ONLY = ['count', 'value', 'attribute', 'css', ...STATES];

function compileExpect(o: Obj, at: DataPath, report: (at: DataPath, m: string) => void): PageAction {
  const action: Extract<PageAction, { action: 'expect' }> = { action: 'expect' };
  const matchAt = (key: string, value: unknown): Match => {
    const match = toMatch(value as string | Obj);
    // A pattern made at run time (`{{ item }}`) is checked when it is used.
    if ('matches' in match && !hasTemplate(match.matches)) checkRegExp(match.matches, [...at, key, 'matches'], report);
    return match;
  };
  const element = hasLocator(o, true);
  if (element) {
    action.element = toTarget(o, true);
    const checks: ElementCheck[] = [];
    if (o.text !== undefined) checks.push({ check: 'text', match: matchAt('text', o.text) });
    if (typeof o.visible === 'boolean') checks.push({ check: 'state', state: 'visible', is: o.visible });
    if (typeof o.count === 'number') checks.push({ check: 'count', count: o.count });
    if (o.value !== undefined) checks.push({ check: 'value', match: matchAt('value', o.value) });
    if (isObj(o.attribute)) {
      const a = o.attribute;
      checks.push({ check: 'attribute', name: String(a.name), ...(a.value !== undefined ? { match: toMatch(a.value as string | Obj) } : {}) });
    }
    if (isObj(o.css)) checks.push({ check: 'css', property: String(o.css.property), match: toMatch(o.css.value as string | Obj) });
    for (const state of STATES) if (typeof o[state] === 'boolean') checks.push({ check: 'state', state, is: o[state] as boolean });
    if (typeof o.aria_snapshot === 'string') checks.push({ check: 'aria', snapshot: o.aria_snapshot });
    if (checks.length === 0) report(at, 'an element expectation needs something to check: text, visible, count, value, attribute, css, aria_snapshot, or a state such as enabled or checked');
    action.checks = checks;
  } else {
    for (const key of ELEMENT_ONLY) {
      if (o[key] !== undefined) report([...at, key], `'${key}' checks an element: add a locator (role, test_id, label, placeholder, alt or selector)`);
    }
    if (typeof o.visible === 'boolean') report([...at, 'visible'], "'visible: true|false' checks an element: add a locator, or name the target (visible: { role: ... })");
    if (typeof o.text === 'string') action.text = o.text;
    else if (o.text !== undefined) action.text = matchAt('text', o.text);
    if (typeof o.aria_snapshot === 'string') action.aria_snapshot = o.aria_snapshot;
  }
  if (isObj(o.visible) || typeof o.visible === 'string') action.visible = toTarget(o.visible as string | Obj);
  for (const key of ['url', 'title'] as const) if (o[key] !== undefined) action[key] = matchAt(key, o[key]);
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
