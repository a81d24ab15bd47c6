// A validated scenario → a Plan: implicit setup (serve, create browser), one step per scenario step (page
// steps here, host steps in host-steps.ts and computer-steps.ts), implicit teardown (delete browser, stop
// serving). See plan.ts for the shapes.

import path from 'node:path';
import type { Diagnostic } from './diagnostics.js';
import { ScenarioError, sortDiagnostics } from './diagnostics.js';
import { describeAction, hasLocator, screenshotFile, screenshotName, toMatch, toTarget } from './describe.js';
import { parseDuration } from './duration.js';
import type { LoadedScenario } from './load.js';
import type { DataPath } from './path.js';
import type { Operation, PageAction, Plan, PlanStep, SourceLocation } from './plan.js';
import { compileComputer } from './computer-steps.js';
import { HOST_KINDS, compileHostStep, compileScreenScreenshot, type CompiledKind, type KindContext } from './host-steps.js';
import { checkSavedUse, collectSaves } from './saves.js';
import { createSubstituter } from './substitute.js';
import { markerOperation, sessionSteps } from './session-steps.js';
import { STEP_KINDS } from './validate.js';

export interface CompileOptions {
  /** Override (or add to) the scenario's `vars`; taken literally. */
  vars?: Record<string, string>;
  /** Where `{{ env.NAME }}` comes from; default `process.env`. */
  env?: Record<string, string | undefined>;
}

type Obj = Record<string, unknown>;

interface ScenarioData {
  name: string;
  tags?: string[];
  vars?: Obj;
  serve?: string;
  browser?: Obj;
  replay?: { record: boolean; framerate?: number };
  telemetry?: boolean | { console?: boolean; network?: boolean };
  timeout?: number | string;
  steps: Obj[];
}

const DEFAULT_STEP_TIMEOUT_MS = 10_000;
const SERVE_TIMEOUT_MS = 10_000;
/** Headroom over a sleep's own length, so a long `sleep` without an explicit timeout cannot time out. */
const SLEEP_HEADROOM_MS = 1_000;

/** Assumes validateScenario found nothing; throws ScenarioError for template problems. */
export function compileScenario(loaded: LoadedScenario, opts: CompileOptions = {}): Plan {
  const raw = loaded.data as ScenarioData;
  const problems: Diagnostic[] = [];
  const report = (at: DataPath, message: string): void => {
    problems.push({ file: loaded.file, ...loaded.locate(at), message });
  };
  const source = (at: DataPath, which: 'key' | 'value' = 'value'): SourceLocation => ({ file: loaded.file, ...loaded.locate(at, which) });

  const saves = collectSaves(raw.steps, { fileVars: raw.vars ?? {}, cliVars: opts.vars ?? {}, report });
  const { substitute } = createSubstituter({
    fileVars: raw.vars ?? {},
    cliVars: opts.vars ?? {},
    env: opts.env ?? process.env,
    hasServe: typeof raw.serve === 'string',
    savedUse: (name, usedAt) => checkSavedUse(saves, name, usedAt),
    report,
  });
  const { vars: _vars, ...rest } = raw;
  const data = substitute(rest, []) as Omit<ScenarioData, 'vars'>;

  const defaultTimeout = data.timeout !== undefined ? parseDuration(data.timeout) : DEFAULT_STEP_TIMEOUT_MS;
  const setup: Omit<PlanStep, 'index'>[] = [];
  const main: Omit<PlanStep, 'index'>[] = [];
  const teardown: Omit<PlanStep, 'index'>[] = [];

  if (data.serve !== undefined) {
    setup.push({
      phase: 'setup', kind: 'serve', name: `serve ${data.serve}`, source: source(['serve'], 'key'), timeout_ms: SERVE_TIMEOUT_MS,
      operations: [{ op: 'serve', dir: path.resolve(path.dirname(loaded.file), data.serve), save: 'serve' }],
    });
  }
  const session = sessionSteps(data, source, report);
  setup.push(...session.setup);

  const scenarioDir = path.dirname(loaded.file);
  data.steps.forEach((step, i) => {
    const at: DataPath = ['steps', i];
    const kind = STEP_KINDS.find((k) => k in step) as string;
    const ctx: KindContext = { at: [...at, kind], step: i, mainIndex: main.length + 1, scenarioDir, saves, report };
    const compiled = compileKind(kind, step[kind], ctx);
    const explicit = step.timeout !== undefined ? parseDuration(step.timeout as number | string) : undefined;
    let timeout = explicit ?? defaultTimeout;
    if (compiled.waitMs !== undefined) timeout = compiled.waitMs;
    else if (explicit === undefined && compiled.minTimeoutMs !== undefined) timeout = Math.max(timeout, compiled.minTimeoutMs);
    const name = typeof step.name === 'string' ? step.name : compiled.name;
    if (kind === 'marker' && !session.recording) report([...at, kind], "a marker needs the run to be recorded: add 'replay: { record: true }'");
    main.push({
      phase: 'main', kind, name, source: source(at), timeout_ms: timeout,
      // Every step of a recorded run marks where it starts in the video; a marker step is its own mark.
      operations: session.recording && kind !== 'marker' ? [markerOperation(name), ...compiled.operations] : compiled.operations,
    });
  });

  teardown.push(...session.teardown);
  if (data.serve !== undefined) {
    teardown.push({
      phase: 'teardown', kind: 'serve_stop', name: `stop serving ${data.serve}`, source: source(['serve'], 'key'),
      timeout_ms: SERVE_TIMEOUT_MS, operations: [{ op: 'serve_stop' }],
    });
  }

  if (problems.length > 0) throw new ScenarioError(sortDiagnostics(problems));
  return {
    version: 1,
    scenario: { name: data.name, file: loaded.file, tags: data.tags ?? [] },
    steps: [...setup, ...main, ...teardown].map((s, index) => ({ index, ...s })),
  };
}

/** One step's value (already substituted) → its operations, default name and timeout needs. */
function compileKind(kind: string, written: unknown, ctx: KindContext): CompiledKind {
  if (kind === 'marker') return { name: `marker ${String(written)}`, operations: [markerOperation(String(written))] };
  if (kind === 'computer') return compileComputer(written as Obj | Obj[], ctx);
  if (kind === 'screenshot' && isObj(written) && written.screen === true) return compileScreenScreenshot(written, ctx);
  if ((HOST_KINDS as readonly string[]).includes(kind)) return compileHostStep(kind, written, ctx);
  if (kind === 'screenshot' && isObj(written) && written.region !== undefined) {
    ctx.report([...ctx.at, 'region'], "'region' needs 'screen: true': a page screenshot is the page's viewport or full page");
  }
  const action = toAction(kind, written, ctx.mainIndex, ctx.at, ctx.report);
  return {
    name: describeAction(action, written),
    operations: [{ op: 'page', ...action } as Operation],
    waitMs: action.action === 'expect' && isObj(written) && written.timeout !== undefined
      ? parseDuration(written.timeout as number | string)
      : undefined,
    minTimeoutMs: action.action === 'sleep' ? action.ms + SLEEP_HEADROOM_MS : undefined,
  };
}

/** One page step's value (already substituted) → its page action. */
function toAction(kind: string, v: unknown, mainIndex: number, at: DataPath, report: (at: DataPath, m: string) => void): PageAction {
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
    case 'expect': {
      const o = v as Obj;
      const action: PageAction = { action: 'expect' };
      if (typeof o.text === 'string') action.text = o.text;
      if (o.visible !== undefined) action.visible = toTarget(o.visible as string | Obj);
      for (const key of ['url', 'title'] as const) {
        if (o[key] === undefined) continue;
        const match = toMatch(o[key] as string | Obj);
        if ('matches' in match) checkRegExp(match.matches, [...at, key, 'matches'], report);
        action[key] = match;
      }
      return action;
    }
    case 'screenshot':
      return {
        action: 'screenshot', file: screenshotFile(mainIndex, screenshotName(v)),
        ...(isObj(v) ? pick(v, 'full_page') : {}),
      } as PageAction;
    case 'sleep':
      return { action: 'sleep', ms: parseDuration(v as number | string) };
    default:
      throw new Error(`unknown step kind '${kind}'`); // unreachable after validation
  }
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
