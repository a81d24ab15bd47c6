// A validated scenario → a Plan: implicit setup (secrets, serve, web server, create browser), the main
// steps (`before`, `steps`, `after`; blocks hold theirs, numbered depth-first), implicit teardown (delete
// browser, stop the web server, stop serving). A scenario whose steps need no browser (invoke steps) gets
// none. See plan.ts for the shapes.

import { statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from './diagnostics.js';
import { ScenarioError, sortDiagnostics } from './diagnostics.js';
import { durationAt } from './duration.js';
import { expandScenario, scenarioFile, type ScenarioFile } from './expand.js';
import { isDefaulted } from './defaults.js';
import type { LoadedScenario } from './load.js';
import type { DataPath } from './path.js';
import type { Annotations, ContextOptions, Plan, PlanStep, SourceLocation, TraceMode } from './plan.js';
import { checkSavedUse } from './saves.js';
import { closest } from './schema.js';
import { hasTemplate } from './template.js';
import { secretsStep } from './secrets.js';
import { sessionSteps } from './session-steps.js';
import { StepCompiler } from './step-compiler.js';
import { createSubstituter, type Substituter } from './substitute.js';
import { webServerSteps } from './web-server.js';

export interface CompileOptions {
  /** Override (or add to) the scenario's `vars`; taken literally. */
  vars?: Record<string, string>;
  /** Where `{{ env.NAME }}` and `{ env: NAME }` secrets come from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * The ids of the scenario's function table (TypeScript scenarios): a list, a set, or the table itself.
   * Without it a `function` step is an error, as in YAML.
   */
  functions?: Iterable<string> | Record<string, unknown>;
  /**
   * Whether each secret's source must exist now (default true). Only a run reads secrets; `validate`,
   * `list` and `plan` turn this off so they work where the secrets are not set.
   */
  checkSecrets?: boolean;
  /** One row of the scenario's `each`: its values are variables over the file's, under `vars`. */
  row?: { index: number; values: Record<string, unknown> };
  /**
   * The device names `context.device` may take (Playwright's registry), asked for only when a scenario
   * names one; without it the device is checked when the browser context is made.
   */
  devices?: () => readonly string[];
  /** `bcs run --headed`: every browser the scenario creates is headful (`headless: false`). */
  headed?: boolean;
}

type Obj = Record<string, unknown>;

interface ScenarioData {
  name: string;
  tags?: string[];
  vars?: Obj;
  serve?: string;
  web_server?: Obj;
  base_url?: string;
  browser?: Obj;
  context?: ContextOptions;
  replay?: { record: boolean; framerate?: number };
  telemetry?: boolean | { console?: boolean; network?: boolean };
  timeout?: number | string;
  screenshot_on_failure?: boolean;
  skip?: true | string;
  fixme?: true | string;
  only?: true;
  slow?: true;
  trace?: TraceMode;
}

const DEFAULT_STEP_TIMEOUT_MS = 10_000;
const SERVE_TIMEOUT_MS = 10_000;
/** Read from the file and the command line, never templated. */
const NOT_SUBSTITUTED = ['vars', 'secrets', 'before', 'steps', 'after', 'each'];
/** `slow: true` triples the step timeouts, as Playwright's `test.slow()` triples a test's. */
const SLOW_FACTOR = 3;

/** Assumes validateScenario found nothing; throws ScenarioError for template problems. */
export function compileScenario(loaded: LoadedScenario, opts: CompileOptions = {}): Plan {
  const problems: Diagnostic[] = [];
  const env = opts.env ?? process.env;
  const cliVars: Record<string, unknown> = { ...(opts.row?.values ?? {}), ...(opts.vars ?? {}) };
  const root = scenarioFile(loaded, [], problems);
  const source = (at: DataPath, which: 'key' | 'value' = 'value'): SourceLocation => ({ file: loaded.file, ...loaded.locate(at, which) });

  // Hooks from folder defaults run as the scenario's steps, written (and reported) in their own file; they see the scenario's vars.
  const hookFiles = (isDefaulted(loaded) ? loaded.hooks : []).map((h): ScenarioFile => ({ ...scenarioFile(h.loaded, root.chain, problems), data: { ...h.data, vars: root.data.vars } }));
  const tree = expandScenario(root, cliVars, problems, hookFiles);
  const raw = root.data as unknown as ScenarioData;
  const secretNames = new Set(tree.secrets.map((s) => s.name));
  const substituterFor = (file: ScenarioFile, given: Record<string, unknown>): Substituter =>
    createSubstituter({
      fileVars: (file.data.vars as Obj | undefined) ?? {},
      givenVars: given,
      env,
      hasServe: typeof raw.serve === 'string',
      hasWebServer: raw.web_server !== undefined,
      secrets: secretNames,
      savedUse: (name, site) => checkSavedUse(tree.saves, name, site?.seq),
      report: file.report,
    });
  const sub = substituterFor(root, cliVars);
  const rest = Object.fromEntries(Object.entries(root.data).filter(([k]) => !NOT_SUBSTITUTED.includes(k)));
  const data = sub.substitute(rest, []) as unknown as ScenarioData;

  const setup: Omit<PlanStep, 'index'>[] = [];
  const teardown: Omit<PlanStep, 'index'>[] = [];
  const secrets = secretsStep(tree.secrets, env, opts.checkSecrets ?? true);
  if (secrets) setup.push(secrets);
  if (data.serve !== undefined) {
    const dir = path.resolve(root.dir, data.serve);
    const problem = notAFolder(dir);
    if (problem) root.report(['serve'], `cannot serve ${dir}: ${problem}`);
    setup.push({
      phase: 'setup', kind: 'serve', name: `serve ${data.serve}`, source: source(['serve'], 'key'), timeout_ms: SERVE_TIMEOUT_MS,
      operations: [{ op: 'serve', dir: path.resolve(root.dir, data.serve), save: 'serve' }],
    });
  }
  const server = data.web_server ? webServerSteps(data.web_server, root.dir, source, root.report) : undefined;
  if (server) setup.push(server.setup);
  const headed = opts.headed && typeof data.browser?.pool !== 'string';
  const session = sessionSteps(headed ? { ...data, browser: { ...data.browser, headless: false } } : data, source, root.report);
  if (data.context) {
    withContext(session.setup, contextOptions(data.context, root.dir));
    const device = data.context.device;
    if (device !== undefined && opts.devices && !hasTemplate(device) && !opts.devices().includes(device)) {
      const near = closest(device, [...opts.devices()]);
      root.report(['context', 'device'], `unknown device '${device}'${near ? `; did you mean '${near}'?` : ''} (Playwright's device registry names ${opts.devices().length})`);
    }
  }

  const steps = new StepCompiler({
    defaultTimeout: (data.timeout !== undefined ? durationAt(data.timeout, ['timeout'], root.report) : DEFAULT_STEP_TIMEOUT_MS) * (data.slow ? SLOW_FACTOR : 1),
    recording: session.recording,
    functions: functionIds(opts.functions),
    saves: tree.saves,
    baseUrl: data.base_url ?? (data.serve !== undefined ? '{{ serve.url }}' : data.web_server ? '{{ web_server.url }}' : env.BCS_WEB_SERVER_URL),
    cliVars,
    substituterFor,
  });
  const scope = { file: root, sub };
  const hookScopes = new Map<ScenarioFile, typeof scope>(hookFiles.map((f) => [f, { file: f, sub: substituterFor(f, cliVars) }]));
  const listed = (nodes: typeof tree.before, hook: 'before' | 'after') => nodes.flatMap((n) => steps.list([n], hookScopes.get(n.file) ?? scope, hook));
  const main = [...listed(tree.before, 'before'), ...steps.list(tree.steps, scope), ...listed(tree.after, 'after')];

  // A scenario whose steps act on no browser (invoking deployed actions) is not given one it would not use.
  if (needsBrowser(data, main)) {
    setup.push(...session.setup);
    teardown.push(...session.teardown);
  }
  if (server) teardown.push(server.teardown);
  if (data.serve !== undefined) {
    teardown.push({
      phase: 'teardown', kind: 'serve_stop', name: `stop serving ${data.serve}`, source: source(['serve'], 'key'),
      timeout_ms: SERVE_TIMEOUT_MS, operations: [{ op: 'serve_stop' }],
    });
  }

  if (problems.length > 0) throw new ScenarioError(sortDiagnostics(problems, loaded.file));
  const plan: Plan = {
    version: 1,
    scenario: { name: data.name, file: loaded.file, tags: data.tags ?? [] },
    steps: number([...setup.map((s) => ({ index: 0, ...s })), ...main, ...teardown.map((s) => ({ index: 0, ...s }))]),
  };
  if (data.screenshot_on_failure === false) plan.screenshot_on_failure = false;
  const annotations = annotationsOf(data);
  if (annotations) plan.scenario.annotations = annotations;
  if (opts.row) plan.scenario.row = opts.row;
  if (isDefaulted(loaded) && loaded.defaults.length) plan.scenario.defaults = loaded.defaults;
  if (data.trace && data.trace !== 'off') plan.trace = data.trace;
  return plan;
}

/** Step kinds that call no API of the session and touch no page (and expects on values, by their operation). */
const BROWSERLESS_KINDS = new Set(['invoke']);
/** Blocks need a browser only for what their steps (and conditions) do. */
const BLOCK_KINDS = new Set(['if', 'repeat', 'for_each', 'retry', 'include']);
/** Scenario fields that configure the browser, its pages or what is recorded of them. */
const BROWSER_FIELDS = ['browser', 'context', 'replay', 'telemetry', 'trace'] as const;

/**
 * Whether the scenario uses a browser: any step that is not browserless, a use of `{{ session.* }}`
 * anywhere in the steps, or a browser setting of its own (asking for a browser gets one).
 */
function needsBrowser(data: ScenarioData, main: PlanStep[]): boolean {
  if (BROWSER_FIELDS.some((f) => data[f] !== undefined)) return true;
  const leafNeeds = (step: PlanStep): boolean => {
    const b = step.block;
    if (!b) return !BROWSERLESS_KINDS.has(step.kind) && !step.operations.every((o) => o.op === 'expect_value');
    if (!BLOCK_KINDS.has(step.kind)) return true;
    return (b.type === 'if' ? [...b.then, ...b.else] : b.steps).some(leafNeeds);
  };
  return main.some(leafNeeds) || /\{\{\s*session\./.test(JSON.stringify(main));
}

function annotationsOf(data: ScenarioData): Annotations | undefined {
  const out: Annotations = {};
  const reason = (v: true | string, what: string) => (v === true ? what : v);
  if (data.skip !== undefined) out.skip = reason(data.skip, 'skipped');
  if (data.fixme !== undefined) out.fixme = reason(data.fixme, 'marked fixme');
  if (data.only) out.only = true;
  if (data.slow) out.slow = true;
  return Object.keys(out).length ? out : undefined;
}

/** The browser context the steps' pages run in, made when Playwright connects. */
function withContext(steps: Omit<PlanStep, 'index'>[], context: ContextOptions): void {
  for (const step of steps) for (const op of step.operations) if (op.op === 'connect') op.context = context;
}

/** A storage state file may be written by an earlier scenario of the run (a suite `before` hook), so it is read, not checked, now. */
function contextOptions(written: ContextOptions, dir: string): ContextOptions {
  return written.storage_state === undefined ? { ...written } : { ...written, storage_state: path.resolve(dir, written.storage_state) };
}

function notAFolder(dir: string): string | undefined {
  try {
    return statSync(dir).isDirectory() ? undefined : 'not a folder';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (err as Error).message;
  }
}

/** Indexes in execution order, depth-first: a block, then its steps, then the step after it. */
function number(steps: PlanStep[]): PlanStep[] {
  let next = 0;
  const visit = (list: PlanStep[]): void => {
    for (const step of list) {
      step.index = next++;
      const b = step.block;
      if (b?.type === 'if') {
        visit(b.then);
        visit(b.else);
      } else if (b) visit(b.steps);
    }
  };
  visit(steps);
  return steps;
}

function functionIds(functions: CompileOptions['functions']): ReadonlySet<string> | undefined {
  if (functions === undefined) return undefined;
  if (typeof (functions as Iterable<string>)[Symbol.iterator] === 'function') return new Set(functions as Iterable<string>);
  return new Set(Object.keys(functions));
}
