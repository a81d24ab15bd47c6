// The step methods of the TypeScript builder: one per step kind of the schema, each appending exactly the
// step a YAML scenario would write (same kind, same fields), plus function steps that run the user's own
// code. Nothing is checked here: the schema checks the built data and reports at each call's position.

import { ComputerActions } from './builder-computer.js';
import { callerOf, type CallSite, type SiteTable } from './builder-sites.js';
import type {
  ClickValue, ClipboardValue, ComputerAction, ConditionValue, Duration, ExecValue, ExecuteValue, ScriptValue, ExpectValue, FillValue,
  DialogValue, FunctionStepOptions, GotoValue, NavigationValue, StepKind, InvokeValue, Locator, RequestValue, RouteValue, SwitchPageValue, UrlPatternValue, WaitForResponseValue, WaitForDownloadValue, ExpectScreenshotValue, ExpectAccessibleValue, IncludeValue, PressValue, ReadFileValue, ScreenshotValue, SpawnValue, StepOptions,
  TargetValue, UploadFile, UploadValue, WaitFileValue, WaitProcessValue, WriteFileValue,
} from './builder-types.js';
import type { FunctionTable, StepFunction } from './functions.js';
import type { DataPath } from './path.js';

type Obj = Record<string, unknown>;

/** The steps of a block: a callback that adds them (`(s) => s.goto(...).click(...)`), or `steps(...)`. */
export type BlockSteps = ((s: StepsBuilder) => unknown) | StepsBuilder;

type Entry =
  | { type: 'step'; step: Obj; site: CallSite | undefined; inner: [DataPath, CallSite | undefined][] }
  | { type: 'function'; code: StepFunction; name: string; opts: FunctionStepOptions; site: CallSite | undefined };

/** Shared while one scenario is built: its function table and where each part was written. */
export interface BuildContext {
  functions: FunctionTable;
  sites: SiteTable;
}

/**
 * The builder method for each schema step kind. Typed against the schema's kinds and the class, so a kind
 * without a method (or a renamed method) breaks the build; tests check each method writes its kind.
 */
export const STEP_METHODS = {
  goto: 'goto', go_back: 'goBack', go_forward: 'goForward', reload: 'reload', click: 'click', fill: 'fill', press: 'press', hover: 'hover', check: 'check', uncheck: 'uncheck',
  select: 'select', type: 'type', focus: 'focus', scroll_into_view: 'scrollIntoView', drag: 'drag',
  set_input_files: 'setInputFiles', switch_page: 'switchPage', close_page: 'closePage', dialog: 'dialog', route: 'route',
  unroute: 'unroute', request: 'request', wait_for_response: 'waitForResponse', wait_for_download: 'waitForDownload', save_storage_state: 'saveStorageState', expect: 'expect', expect_soft: 'expectSoft',
  screenshot: 'screenshot', expect_screenshot: 'expectScreenshot', expect_accessible: 'expectAccessible', sleep: 'sleep', computer: 'computer', clipboard: 'clipboard', exec: 'exec',
  spawn: 'spawn', wait_process: 'waitProcess', read_file: 'readFile', write_file: 'writeFile', upload: 'upload',
  wait_file: 'waitFile', execute: 'execute', invoke: 'invoke', script: 'script', marker: 'marker', if: 'if', repeat: 'repeat', for_each: 'forEach',
  retry: 'retry', include: 'include', function: 'fn',
} as const satisfies Record<StepKind, keyof StepsBuilder>;

/** A selector string as the locator object it stands for, so fields can go beside it. */
function asLocator(target: TargetValue): Locator {
  return typeof target === 'string' ? { selector: target } : target;
}

/** The step of a function step: the id names its entry in the function table that travels beside the plan. */
export function functionStep(id: string, name: string, opts: FunctionStepOptions): Obj {
  return { function: id, name, ...opts };
}

export class StepsBuilder {
  readonly #entries: Entry[] = [];

  goto(url: GotoValue, opts?: StepOptions): this {
    return this.add('goto', url, opts, this.goto);
  }

  /** Playwright's page.goBack(); `{ wait_until }` as goto's. */
  goBack(wait: NavigationValue = true, opts?: StepOptions): this {
    return this.add('go_back', wait, opts, this.goBack);
  }

  goForward(wait: NavigationValue = true, opts?: StepOptions): this {
    return this.add('go_forward', wait, opts, this.goForward);
  }

  reload(wait: NavigationValue = true, opts?: StepOptions): this {
    return this.add('reload', wait, opts, this.reload);
  }

  click(target: ClickValue, opts?: StepOptions): this {
    return this.add('click', target, opts, this.click);
  }

  /** `fill({ label: 'Name', value: 'Ada' })`, or `fill(target, value)` with a selector string or locator. */
  fill(field: FillValue, opts?: StepOptions): this;
  fill(target: TargetValue, value: string | number, opts?: StepOptions): this;
  fill(a: FillValue | TargetValue, b?: string | number | StepOptions, c?: StepOptions): this {
    if (typeof b === 'string' || typeof b === 'number') {
      return this.add('fill', { ...asLocator(a as TargetValue), value: b }, c, this.fill);
    }
    return this.add('fill', a, b, this.fill);
  }

  press(key: PressValue, opts?: StepOptions): this {
    return this.add('press', key, opts, this.press);
  }

  hover(target: TargetValue, opts?: StepOptions): this {
    return this.add('hover', target, opts, this.hover);
  }

  check(target: TargetValue, opts?: StepOptions): this {
    return this.add('check', target, opts, this.check);
  }

  uncheck(target: TargetValue, opts?: StepOptions): this {
    return this.add('uncheck', target, opts, this.uncheck);
  }

  /** Options of a `<select>` by value or label. */
  select(target: TargetValue, option: string | string[], opts?: StepOptions): this {
    return this.add('select', { ...asLocator(target), option }, opts, this.select);
  }

  /**
   * Key by key, as a person types (`fill` sets the value at once): `type(target, text)` into an element,
   * `type(text)` into whatever has focus (Playwright's `page.keyboard.type`).
   */
  type(target: TargetValue, text: string, opts?: StepOptions & { delay?: Duration }): this;
  type(text: string, opts?: StepOptions & { delay?: Duration }): this;
  type(a: TargetValue, b?: string | (StepOptions & { delay?: Duration }), c?: StepOptions & { delay?: Duration }): this {
    const keyboard = typeof b !== 'string';
    const { delay, ...rest } = (keyboard ? b : c) ?? {};
    const where = keyboard ? {} : asLocator(a);
    return this.add('type', { ...where, value: keyboard ? a : b, ...(delay !== undefined ? { delay } : {}) }, rest, this.type);
  }

  focus(target: TargetValue, opts?: StepOptions): this {
    return this.add('focus', target, opts, this.focus);
  }

  scrollIntoView(target: TargetValue, opts?: StepOptions): this {
    return this.add('scroll_into_view', target, opts, this.scrollIntoView);
  }

  drag(from: TargetValue, to: TargetValue, opts?: StepOptions): this {
    return this.add('drag', { from, to }, opts, this.drag);
  }

  /** Files next to the scenario for an `<input type=file>`; `[]` clears it. */
  setInputFiles(target: TargetValue, files: string | string[], opts?: StepOptions): this {
    return this.add('set_input_files', { ...asLocator(target), files }, opts, this.setInputFiles);
  }

  /** Act on another page from now on (a popup, a tab), waiting until it exists. */
  switchPage(page: SwitchPageValue, opts?: StepOptions): this {
    return this.add('switch_page', page, opts, this.switchPage);
  }

  /** Close the page acted on and go back to the newest other one. */
  closePage(opts?: StepOptions): this {
    return this.add('close_page', true, opts, this.closePage);
  }

  /** How the next dialog is answered; written before the step that opens it. */
  dialog(answer: DialogValue, opts?: StepOptions): this {
    return this.add('dialog', answer, opts, this.dialog);
  }

  /** Fulfil, abort or change requests matching `url` until the scenario ends (or `unroute`). */
  route(route: RouteValue, opts?: StepOptions): this {
    return this.add('route', route, opts, this.route);
  }

  unroute(url: UrlPatternValue | 'all', opts?: StepOptions): this {
    return this.add('unroute', url, opts, this.unroute);
  }

  /** An HTTP request with the browser context's cookies. */
  request(request: RequestValue, opts?: StepOptions): this {
    return this.add('request', request, opts, this.request);
  }

  waitForResponse(response: WaitForResponseValue, opts?: StepOptions): this {
    return this.add('wait_for_response', response, opts, this.waitForResponse);
  }

  /** A download the step before started, finished, kept as an artifact and readable on the host. */
  waitForDownload(download: WaitForDownloadValue = null, opts?: StepOptions): this {
    return this.add('wait_for_download', download, opts, this.waitForDownload);
  }

  /** Cookies and local storage to a JSON file next to the scenario, for another scenario's `context.storage_state`. */
  saveStorageState(file: string, opts?: StepOptions): this {
    return this.add('save_storage_state', file, opts, this.saveStorageState);
  }

  /** Playwright's toHaveScreenshot: the page or an element against `<scenario file>-snapshots/<name>.png`. */
  expectScreenshot(screenshot: ExpectScreenshotValue, opts?: StepOptions): this {
    return this.add('expect_screenshot', screenshot, opts, this.expectScreenshot);
  }

  /** An axe-core audit of the page: no violation of `impact` (default: any) or worse. */
  expectAccessible(audit: ExpectAccessibleValue = null, opts?: StepOptions): this {
    return this.add('expect_accessible', audit, opts, this.expectAccessible);
  }

  expect(conditions: ExpectValue, opts?: StepOptions): this {
    return this.add('expect', conditions, opts, this.expect);
  }

  /** Like `expect`, but a failure is reported and the run goes on; the scenario fails at the end. */
  expectSoft(conditions: ExpectValue, opts?: StepOptions): this {
    return this.add('expect_soft', conditions, opts, this.expectSoft);
  }

  /** A page screenshot (`NN-name.png`); `{ screen: true }` for the whole screen. */
  screenshot(value: ScreenshotValue = null, opts?: StepOptions): this {
    return this.add('screenshot', value, opts, this.screenshot);
  }

  sleep(duration: Duration, opts?: StepOptions): this {
    return this.add('sleep', duration, opts, this.sleep);
  }

  /** OS-level input as one batch: `c => c.click(x, y).type('hi').key('ctrl+a')`, or the actions as data. */
  computer(actions: ComputerAction | ComputerAction[] | ((c: ComputerActions) => unknown), opts?: StepOptions): this {
    if (typeof actions !== 'function') return this.add('computer', actions, opts, this.computer);
    const c = new ComputerActions();
    actions(c);
    const inner = c.entries.map((e, i): [DataPath, CallSite | undefined] => [['computer', i], e.site]);
    return this.add('computer', c.entries.map((e) => e.action), opts, this.computer, inner);
  }

  clipboard(value: ClipboardValue, opts?: StepOptions): this {
    return this.add('clipboard', value, opts, this.clipboard);
  }

  /** A shell command line, or `{ command, args, ... }` run without a shell. */
  exec(command: ExecValue, opts?: StepOptions): this {
    return this.add('exec', command, opts, this.exec);
  }

  spawn(command: SpawnValue, opts?: StepOptions): this {
    return this.add('spawn', command, opts, this.spawn);
  }

  waitProcess(process: WaitProcessValue, opts?: StepOptions): this {
    return this.add('wait_process', process, opts, this.waitProcess);
  }

  readFile(file: ReadFileValue, opts?: StepOptions): this {
    return this.add('read_file', file, opts, this.readFile);
  }

  writeFile(file: WriteFileValue, opts?: StepOptions): this {
    return this.add('write_file', file, opts, this.writeFile);
  }

  /** `{ files: [{ from, to }] }`, or just the list. */
  upload(files: UploadValue | UploadFile[], opts?: StepOptions): this {
    return this.add('upload', Array.isArray(files) ? { files } : files, opts, this.upload);
  }

  waitFile(file: WaitFileValue, opts?: StepOptions): this {
    return this.add('wait_file', file, opts, this.waitFile);
  }

  /** Playwright code run next to the browser by the service (a string: no closures); see `fn` for local code. */
  execute(code: ExecuteValue, opts?: StepOptions): this {
    return this.add('execute', code, opts, this.execute);
  }

  /** Runs an action of a deployed app and checks how it ended (it must succeed unless `expect.status` says otherwise). */
  invoke(invocation: InvokeValue, opts?: StepOptions): this {
    return this.add('invoke', invocation, opts, this.invoke);
  }

  /** JavaScript the runner runs with the scenario's own `page`, `context`, `browser`, `vars`, `signal` (see `fn` for a real function). */
  script(code: ScriptValue, opts?: StepOptions): this {
    return this.add('script', code, opts, this.script);
  }

  marker(name: string, opts?: StepOptions): this {
    return this.add('marker', name, opts, this.marker);
  }

  /** Steps run when `condition` holds, else the `otherwise` steps (if any). */
  if(condition: ConditionValue, then: BlockSteps, otherwise?: BlockSteps, opts?: StepOptions): this {
    const branches = { then: block(then), ...(otherwise ? { else: block(otherwise) } : {}) };
    this.#entries.push({ type: 'step', step: { ...opts, if: condition, ...branches }, site: callerOf(this.if), inner: [] });
    return this;
  }

  /** The steps `times` times (a number, or a template); with `as`, `{{ as }}` is the pass number. */
  repeat(times: number | string | { times: number | string; as?: string }, body: BlockSteps, opts?: StepOptions): this {
    const value = typeof times === 'object' ? times : { times };
    return this.add('repeat', { ...value, steps: block(body) }, opts, this.repeat);
  }

  /** The steps once per item (a list, or a template naming one); `{{ item }}` (or the `as` name) is the item. */
  forEach(items: unknown[] | string | { items: unknown[] | string; as?: string }, body: BlockSteps, opts?: StepOptions): this {
    const value = Array.isArray(items) || typeof items === 'string' ? { items } : items;
    return this.add('for_each', { ...value, steps: block(body) }, opts, this.forEach);
  }

  /**
   * The steps again from the start until they all pass: at most `attempts` times, or until `timeout` has
   * passed (toPass), `delay` or `intervals` apart.
   */
  retry(attempts: number | { attempts?: number; timeout?: Duration; delay?: Duration; intervals?: Duration[] }, body: BlockSteps, opts?: StepOptions): this {
    const value = typeof attempts === 'number' ? { attempts } : attempts;
    return this.add('retry', { ...value, steps: block(body) }, opts, this.retry);
  }

  /** The steps of another scenario file, relative to this one; `{ file, with }` sets its `vars`. */
  include(file: IncludeValue, opts?: StepOptions): this {
    return this.add('include', file, opts, this.include);
  }

  /**
   * A function step: `code` runs in the runner's process with `{ page, context, browser, session, vars,
   * signal }`; what it returns is the step's output, and with `save` a variable for later steps.
   */
  fn(name: string, code: StepFunction, opts: FunctionStepOptions = {}): this {
    if (typeof code !== 'function') throw new TypeError(`fn('${name}', ...) needs a function`);
    this.#entries.push({ type: 'function', code, name, opts, site: callerOf(this.fn) });
    return this;
  }

  /** Any step kind by its YAML name, for kinds this builder has no method for yet. */
  step(kind: string, value: unknown, opts?: StepOptions & Obj): this {
    return this.add(kind, value, opts, this.step);
  }

  /** Adds the steps of a list built with `steps(...)`, e.g. one shared by several scenarios. */
  append(list: StepsBuilder): this {
    this.#entries.push(...list.#entries);
    return this;
  }

  /** Applies a reusable part: `.use(login)` where `login = (b) => b.goto(...).fill(...)`. */
  use(part: (builder: this) => unknown): this {
    part(this);
    return this;
  }

  private add(kind: string, value: unknown, opts: Obj | StepOptions | undefined, method: Function, inner: [DataPath, CallSite | undefined][] = []): this {
    this.#entries.push({ type: 'step', step: { ...opts, [kind]: value }, site: callerOf(method), inner });
    return this;
  }

  /** @internal the steps as plain data at `at`; function steps get the next free id of the table. */
  buildSteps(at: DataPath, ctx: BuildContext): Obj[] {
    return this.#entries.map((entry, i) => {
      const stepAt = [...at, i];
      ctx.sites.set(stepAt, entry.site);
      if (entry.type === 'function') {
        const id = `fn-${Object.keys(ctx.functions).length + 1}`;
        ctx.functions[id] = entry.code;
        return toPlain(functionStep(id, entry.name, entry.opts), stepAt, ctx) as Obj;
      }
      for (const [rel, site] of entry.inner) ctx.sites.set([...stepAt, ...rel], site);
      return toPlain(entry.step, stepAt, ctx) as Obj;
    });
  }
}

/**
 * A copy as a YAML file would hold it: fields set to `undefined` (an option passed on) are left out, and
 * a nested StepsBuilder (the steps of a block) becomes its list of steps.
 */
export function toPlain(value: unknown, at: DataPath, ctx: BuildContext): unknown {
  if (value instanceof StepsBuilder) return value.buildSteps(at, ctx);
  if (Array.isArray(value)) return value.map((item, i) => toPlain(item, [...at, i], ctx));
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, toPlain(v, [...at, k], ctx)]),
    );
  }
  return value;
}

/** A list of steps built on its own, for a block or `.step(kind, { ..., steps: steps((s) => s.goto(...)) })`. */
export function steps(build: (s: StepsBuilder) => unknown): StepsBuilder {
  const s = new StepsBuilder();
  build(s);
  return s;
}

function block(body: BlockSteps): StepsBuilder {
  return body instanceof StepsBuilder ? body : steps(body);
}

function isPlainObject(value: unknown): value is Obj {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
