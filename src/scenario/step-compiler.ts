// The main steps of a scenario (and of the files it includes) → PlanSteps, in execution order. A step's
// templates are substituted with what is in scope where it runs (its place in the order, the loop
// variables around it); its options (timeout, retries, continue_on_error) become plain fields.

import path from 'node:path';
import { compileBlock, type BlockCompiler, type FileScope } from './control-flow.js';
import { durationAt } from './duration.js';
import type { ScenarioFile, StepNode } from './expand.js';
import type { CompiledKind, KindContext } from './host-steps.js';
import type { PlanStep } from './plan.js';
import type { SavedVariable } from './saves.js';
import { markerOperation } from './session-steps.js';
import { compileKind, isBlockKind } from './step-kinds.js';
import { compileValueExpect, isValueExpect } from './value-expect.js';
import type { DataPath } from './path.js';
import type { Substituter, UseSite } from './substitute.js';

/** The constructor of async functions, which a script's code is the body of. */
export const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => (...args: unknown[]) => Promise<unknown>;

export interface StepCompilerOptions {
  /** Each step's timeout unless it sets its own. */
  defaultTimeout: number;
  /** Every step of a recorded run starts with a replay marker. */
  recording: boolean;
  /** The function step ids a TypeScript scenario has; undefined for YAML. */
  functions: ReadonlySet<string> | undefined;
  saves: SavedVariable[];
  /** What relative gotos resolve against (a template such as `{{ serve.url }}` allowed). */
  baseUrl?: string;
  cliVars: Record<string, unknown>;
  substituterFor(file: ScenarioFile, given: Record<string, unknown>): Substituter;
}

export class StepCompiler implements BlockCompiler {
  readonly earlierSteps = new Set<string>();
  readonly cliVars: Record<string, unknown>;
  /** 1-based among main steps, for artifact file names. */
  #mainIndex = 0;
  readonly #o: StepCompilerOptions;

  constructor(options: StepCompilerOptions) {
    this.#o = options;
    this.cliVars = options.cliVars;
  }

  substituterFor(file: ScenarioFile, given: Record<string, unknown>): Substituter {
    return this.#o.substituterFor(file, given);
  }

  /** Indexes are left 0: compile.ts numbers the whole plan once it is complete. */
  list(nodes: StepNode[] | undefined, scope: FileScope, hook?: 'before' | 'after'): PlanStep[] {
    return (nodes ?? []).map((node) => {
      const step = this.#step(node, scope);
      if (hook) step.hook = hook;
      this.earlierSteps.add(step.name);
      return step;
    });
  }

  #step(node: StepNode, scope: FileScope): PlanStep {
    const { step: written, at, kind } = node;
    const site = { seq: node.seq, loopVars: node.loopVars };
    const explicitName = typeof written.name === 'string' ? scope.sub.substitute(written.name, [...at, 'name'], site) : undefined;
    const explicitTimeout = written.timeout !== undefined ? this.#duration(written.timeout, [...at, 'timeout'], scope, site) : undefined;
    const source = { file: scope.file.loaded.file, ...scope.file.loaded.locate(at) };
    let step: PlanStep;
    if (isBlockKind(kind)) {
      const { name, block } = compileBlock(node, scope, this);
      // A block has no budget of its own unless it sets one: its steps keep theirs.
      step = { index: 0, phase: 'main', kind, name: explicitName ?? name, source, timeout_ms: explicitTimeout ?? 0, operations: [], block };
    } else {
      const compiled = this.#leaf(node, scope);
      let timeout = explicitTimeout ?? this.#o.defaultTimeout;
      if (compiled.waitMs !== undefined) timeout = compiled.waitMs;
      else if (explicitTimeout === undefined && compiled.minTimeoutMs !== undefined) timeout = Math.max(timeout, compiled.minTimeoutMs);
      const name = explicitName ?? compiled.name;
      if (kind === 'marker' && !this.#o.recording) scope.file.report([...at, kind], "a marker needs the run to be recorded: add 'replay: { record: true }'");
      step = {
        index: 0, phase: 'main', kind, name, source, timeout_ms: timeout,
        // Every step of a recorded run marks where it starts in the video; a marker step is its own mark.
        operations: this.#o.recording && kind !== 'marker' ? [markerOperation(name), ...compiled.operations] : compiled.operations,
      };
      if (kind === 'expect_soft') step.soft = true;
      if (typeof written.retries === 'number' && written.retries > 0) step.retries = written.retries;
      if (written.retry_delay !== undefined) step.retry_delay_ms = this.#duration(written.retry_delay, [...at, 'retry_delay'], scope, site);
    }
    if (written.continue_on_error === true) step.continue_on_error = true;
    return step;
  }

  #duration(value: unknown, at: DataPath, scope: FileScope, site: UseSite): number {
    return durationAt(scope.sub.substitute(value, at, site), at, (where, message) => scope.file.report(where, message));
  }

  #leaf(node: StepNode, scope: FileScope): CompiledKind {
    const { step, at, kind } = node;
    const ctx: KindContext = {
      at: [...at, kind], seq: node.seq, mainIndex: ++this.#mainIndex, scenarioDir: scope.file.dir, scenarioFile: path.resolve(scope.file.loaded.file), saves: this.#o.saves, baseUrl: this.#o.baseUrl,
      report: (where, message) => scope.file.report(where, message),
    };
    if (kind === 'function') return this.#function(node, scope);
    if (kind === 'script') return this.#script(node, scope);
    if ((kind === 'expect' || kind === 'expect_soft') && isValueExpect(step[kind])) {
      return compileValueExpect(step[kind], ctx.at, { sub: scope.sub, site: { seq: node.seq, loopVars: node.loopVars }, report: ctx.report });
    }
    return compileKind(kind, scope.sub.substitute(step[kind], ctx.at, { seq: node.seq, loopVars: node.loopVars }), ctx);
  }

  /** A function step names an entry of the TypeScript scenario's function table, which a YAML file has none of. */
  #function(node: StepNode, scope: FileScope): CompiledKind {
    const id = String(node.step.function);
    const functions = this.#o.functions;
    if (!functions) scope.file.report([...node.at, 'function'], 'function steps exist only in TypeScript scenarios');
    else if (!functions.has(id)) {
      const known = [...functions];
      scope.file.report([...node.at, 'function'], `unknown function '${id}'; ${known.length ? `the scenario's functions are ${known.join(', ')}` : 'the scenario has no functions'}`);
    }
    const save = typeof node.step.save === 'string' ? { save: node.step.save } : {};
    return { name: `function ${id}`, operations: [{ op: 'function', id, ...save, ...this.#vars(node, scope, 'function') }] };
  }

  /** A script runs in the runner like a function step, its code written in the scenario itself. */
  #script(node: StepNode, scope: FileScope): CompiledKind {
    const at: DataPath = [...node.at, 'script'];
    const written = scope.sub.substitute(node.step.script, at, { seq: node.seq, loopVars: node.loopVars }) as string | { code: string; save?: string };
    const { code, save } = typeof written === 'string' ? { code: written, save: undefined } : written;
    try {
      // Compiled now, so a syntax error is reported by `bcs validate`, not half-way through a run.
      new AsyncFunction('page', 'context', 'browser', 'vars', 'signal', code);
    } catch (err) {
      scope.file.report([...at, ...(typeof written === 'string' ? [] : ['code'])], `the script does not compile: ${(err as Error).message}`);
    }
    const firstLine = code.trim().split('\n')[0]!;
    return {
      name: `script ${firstLine.length > 60 ? `${firstLine.slice(0, 60)}…` : firstLine}`,
      operations: [{ op: 'script', code, ...(save ? { save } : {}), ...this.#vars(node, scope, 'script') }],
    };
  }

  /**
   * The scenario's variables as the step's templates would see them: file vars overridden by --var (or an
   * include's `with`); `{{ name }}` per name lets the substituter apply exactly that order.
   */
  #vars(node: StepNode, scope: FileScope, kind: string): { vars?: Record<string, unknown> } {
    const names = new Set([...Object.keys((node.file.data.vars as Record<string, unknown> | undefined) ?? {}), ...Object.keys(this.cliVars)]);
    if (names.size === 0) return {};
    const refs = Object.fromEntries([...names].map((name) => [name, `{{ ${name} }}`]));
    return { vars: scope.sub.substitute(refs, [...node.at, kind], { seq: node.seq, loopVars: node.loopVars }) as Record<string, unknown> };
  }
}
