// TypeScript scenarios: `scenario('name').browser({...}).goto(...).fill(...)` builds the data a YAML
// scenario holds (same field names, same step kinds) and compiles it through the same schema and compiler.
// Builders are mutable: each call adds to the builder and returns it, so loops and helpers can add steps.

import type { CompileOptions } from './compile.js';
import {
  SCENARIO_DEFINITION, compileDefinition, defaultFile, type Definable, type ScenarioDefinition,
} from './builder-compile.js';
import { SiteTable, callerOf, type CallSite } from './builder-sites.js';
import { StepsBuilder, steps, toPlain, type BlockSteps, type BuildContext } from './builder-steps.js';
import type {
  BrowserOptions, ContextValue, Duration, ReplayOptions, SecretValue, TelemetryOptions, VarValue, WebServerValue,
} from './builder-types.js';
import type { CompiledScenario } from './functions.js';

/**
 * The builder method for each top-level field of the schema (`null`: set by `scenario(name)` and the step
 * methods). Tests check the schema has no field missing here.
 */
export const SCENARIO_METHODS = {
  name: null, description: 'description', tags: 'tags', vars: 'vars', secrets: 'secrets', serve: 'serve',
  web_server: 'webServer', base_url: 'baseUrl', browser: 'browser', context: 'context', replay: 'replay', telemetry: 'telemetry', timeout: 'timeout',
  screenshot_on_failure: 'screenshotOnFailure', trace: 'trace', skip: 'skip', fixme: 'fixme', only: 'only', slow: 'slow',
  // TypeScript makes one scenario per row with `.map` over the rows (a default export may be a list).
  each: null,
  before: 'before', steps: null, after: 'after',
} as const satisfies Record<string, keyof ScenarioBuilder | null>;

interface Field {
  value: unknown;
  site: CallSite | undefined;
}

export class ScenarioBuilder extends StepsBuilder implements Definable {
  readonly #name: string;
  readonly #site: CallSite | undefined;
  /** Scenario-level fields in the order they were first set. */
  readonly #fields = new Map<string, Field>();
  /** Which `vars(...)` call set each variable, so a bad variable points at its own call. */
  readonly #varSites = new Map<string, CallSite>();

  /** @internal use `scenario(name)`. */
  constructor(name: string, site: CallSite | undefined) {
    super();
    this.#name = name;
    this.#site = site;
  }

  /** The scenario's name, as reports show it. */
  get name(): string {
    return this.#name;
  }

  description(text: string): this {
    return this.set('description', text, this.description);
  }

  /** Labels for selecting scenarios; replaces earlier tags. */
  tags(...tags: string[]): this {
    return this.set('tags', tags, this.tags);
  }

  /** Variables for `{{ name }}` templates; added to earlier ones. `--var name=value` overrides them. */
  vars(vars: Record<string, VarValue>): this {
    const earlier = this.#fields.get('vars')?.value;
    this.set('vars', { ...(isRecord(earlier) ? earlier : {}), ...vars }, this.vars);
    const site = this.#fields.get('vars')?.site;
    if (site) for (const name of Object.keys(vars)) this.#varSites.set(name, site);
    return this;
  }

  /** Values read when the run starts, as `{{ secrets.NAME }}`; added to earlier ones. Masked in every output. */
  secrets(secrets: Record<string, SecretValue>): this {
    const earlier = this.#fields.get('secrets')?.value;
    return this.set('secrets', { ...(isRecord(earlier) ? earlier : {}), ...secrets }, this.secrets);
  }

  /** The app under test: started for the run (`sh -c command`), awaited at `url`, stopped afterwards. */
  webServer(options: WebServerValue): this {
    return this.set('web_server', options, this.webServer);
  }

  /** Playwright context options for the scenario's pages: device, locale, timezone, storage state, ... */
  context(options: ContextValue): this {
    return this.set('context', options, this.context);
  }

  /** Record a Playwright trace: `on`, `retain-on-failure`, `on-first-retry` or `off`. */
  trace(mode: 'on' | 'off' | 'retain-on-failure' | 'on-first-retry' = 'on'): this {
    return this.set('trace', mode, this.trace);
  }

  /** Not run; reported as skipped with the reason. */
  skip(reason: true | string = true): this {
    return this.set('skip', reason, this.skip);
  }

  /** Known broken: not run, reported as skipped with the reason. */
  fixme(reason: true | string = true): this {
    return this.set('fixme', reason, this.fixme);
  }

  /** While any selected scenario is `only`, only those run. */
  only(): this {
    return this.set('only', true, this.only);
  }

  /** Triple the timeouts. */
  slow(): this {
    return this.set('slow', true, this.slow);
  }

  /** What relative gotos resolve against (default: the served folder's or the web server's URL). */
  baseUrl(url: string): this {
    return this.set('base_url', url, this.baseUrl);
  }

  /** Whether a failing step leaves a screenshot of the page (default true). */
  screenshotOnFailure(enabled = true): this {
    return this.set('screenshot_on_failure', enabled, this.screenshotOnFailure);
  }

  /** Steps run ahead of the steps once the browser is ready; added to earlier ones. */
  before(body: BlockSteps): this {
    return this.set('before', this.hook('before', body), this.before);
  }

  /** Steps run after the steps even when one failed, before the browser is released; added to earlier ones. */
  after(body: BlockSteps): this {
    return this.set('after', this.hook('after', body), this.after);
  }

  /** A folder, relative to the scenario file, served on loopback for the run as `{{ serve.url }}`. */
  serve(dir: string): this {
    return this.set('serve', dir, this.serve);
  }

  /**
   * The body of `POST /browsers` (`auth` to start logged in from an auth connection's profile), or
   * `{ pool, acquire_timeout }` to lease a browser from a pool.
   */
  browser(options: BrowserOptions): this {
    return this.set('browser', options, this.browser);
  }

  /** Record the run: `replay()` or `replay({ record: true, framerate: 10 })`. */
  replay(options: ReplayOptions | boolean = true): this {
    return this.set('replay', typeof options === 'boolean' ? { record: options } : options, this.replay);
  }

  /** Capture console and network events: `telemetry()` for both, or `{ console: true }`. */
  telemetry(options: TelemetryOptions = true): this {
    return this.set('telemetry', options, this.telemetry);
  }

  /** The default step timeout. */
  timeout(duration: Duration): this {
    return this.set('timeout', duration, this.timeout);
  }

  /** Any scenario field by its YAML name, for fields this builder has no method for yet. */
  field(name: string, value: unknown): this {
    return this.set(name, value, this.field);
  }

  /**
   * Validates and compiles the scenario to its plan and function table, as `bcs` would; throws a
   * ScenarioError with every problem at the call that caused it. `file` is what the plan and diagnostics
   * name (default: the file that called `scenario(...)`); `serve` and local files resolve next to it.
   */
  compile(opts: CompileOptions & { file?: string } = {}): CompiledScenario {
    const { file, ...rest } = opts;
    const def = this[SCENARIO_DEFINITION]();
    return compileDefinition(def, file ?? defaultFile(def), rest);
  }

  /** The scenario as plain data with its call sites and functions, for loaders (see builder-compile.ts). */
  [SCENARIO_DEFINITION](): ScenarioDefinition {
    const ctx: BuildContext = { functions: {}, sites: new SiteTable() };
    ctx.sites.set([], this.#site);
    const data: Record<string, unknown> = { name: this.#name };
    for (const [key, field] of this.#fields) {
      ctx.sites.set([key], field.site);
      data[key] = toPlain(field.value, [key], ctx);
    }
    for (const [name, site] of this.#varSites) ctx.sites.set(['vars', name], site);
    data.steps = this.buildSteps(['steps'], ctx);
    return { version: 1, data, sites: ctx.sites.entries(), functions: ctx.functions };
  }

  private hook(key: 'before' | 'after', body: BlockSteps): StepsBuilder {
    const earlier = this.#fields.get(key)?.value;
    const list = earlier instanceof StepsBuilder ? earlier : new StepsBuilder();
    return body instanceof StepsBuilder ? list.append(body) : list.append(steps(body));
  }

  private set(key: string, value: unknown, method: Function): this {
    // Re-setting a field keeps its place but points at the latest call, which is the value that counts.
    this.#fields.set(key, { value, site: callerOf(method) });
    return this;
  }
}

/** Starts a TypeScript scenario; export it (or a list of them) as the file's default export. */
export function scenario(name: string): ScenarioBuilder {
  return new ScenarioBuilder(name, callerOf(scenario));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
