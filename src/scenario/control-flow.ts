// Blocks — if, repeat, for_each, retry, include — compiled to plain-data `Block`s the runner walks. What is
// known now (a list variable's items, a repeat count from vars, a condition on a variable) is decided
// here; what only a run knows (values steps save, loop variables) stays a template for the runner.

import { preview } from './assertions.js';
import { compileCondition, describeIfCondition, itemsOf } from './conditions.js';
import { durationAt } from './duration.js';
import type { ScenarioFile, StepNode } from './expand.js';
import type { DataPath } from './path.js';
import type { Block, PlanStep } from './plan.js';
import type { Substituter, UseSite } from './substitute.js';
import { hasTemplate, isPlainObject, templateNames } from './template.js';

type Obj = Record<string, unknown>;

/** A file being compiled with the variables it sees (an included file sees its `with` parameters). */
export interface FileScope {
  file: ScenarioFile;
  sub: Substituter;
}

/** What a block needs from the compiler of steps around it. */
export interface BlockCompiler {
  list(nodes: StepNode[] | undefined, scope: FileScope): PlanStep[];
  /** Names of the steps compiled so far: those that run before the block. */
  earlierSteps: ReadonlySet<string>;
  cliVars: Record<string, unknown>;
  substituterFor(file: ScenarioFile, given: Record<string, unknown>): Substituter;
}

export function compileBlock(node: StepNode, scope: FileScope, c: BlockCompiler): { name: string; block: Block } {
  const { at, step, kind } = node;
  const site: UseSite = { seq: node.seq, loopVars: node.loopVars };
  const report = (where: DataPath, message: string) => scope.file.report(where, message);
  const v = step[kind];
  switch (kind) {
    case 'if': {
      // Before the branches: a step inside them does not run before the condition is checked.
      const condition = compileCondition(v as Obj, [...at, 'if'], { sub: scope.sub, site, earlierSteps: c.earlierSteps, report });
      const then = c.list(node.children.then, scope);
      const otherwise = c.list(node.children.else, scope);
      return { name: `if ${describeIfCondition(condition)}`, block: { type: 'if', condition, then, else: otherwise } };
    }
    case 'repeat': {
      const o = v as Obj;
      const timesAt: DataPath = [...at, kind, 'times'];
      let times = scope.sub.substitute(o.times, timesAt, site) as number | string;
      if (typeof times === 'string' && !hasTemplate(times)) {
        if (/^\s*\d+\s*$/.test(times)) times = Number(times);
        else report(timesAt, `'times' must be a whole number, got ${JSON.stringify(times)}`);
      }
      const as = typeof o.as === 'string' ? o.as : undefined;
      const steps = c.list(node.children.steps, scope);
      const count = typeof times === 'number' ? `${times} time${times === 1 ? '' : 's'}` : `${times} times`;
      return { name: `repeat ${count}${as ? ` as ${as}` : ''}`, block: { type: 'repeat', times, ...(as ? { as } : {}), steps } };
    }
    case 'for_each': {
      const o = v as Obj;
      const as = typeof o.as === 'string' ? o.as : 'item';
      const items = forEachItems(o.items, [...at, kind, 'items'], scope.sub, site, report);
      const steps = c.list(node.children.steps, scope);
      // Run-time items are named, not templated: a step name's templates are resolved when it runs, and
      // a saved stdout would make a name of many lines.
      const shown = typeof items === 'string' ? templateNames(items).join(', ') : preview(items, 60);
      return { name: `for each ${as} in ${shown}`, block: { type: 'for_each', items, as, steps } };
    }
    case 'retry': {
      const o = v as Obj;
      const duration = (value: unknown, where: DataPath) => durationAt(scope.sub.substitute(value, where, site), where, report);
      const block: Extract<Block, { type: 'retry' }> = { type: 'retry', delay_ms: o.delay !== undefined ? duration(o.delay, [...at, kind, 'delay']) : 0, steps: [] };
      if (typeof o.attempts === 'number') block.attempts = o.attempts;
      if (o.timeout !== undefined) block.timeout_ms = duration(o.timeout, [...at, kind, 'timeout']);
      if (Array.isArray(o.intervals)) {
        if (o.delay !== undefined) report([...at, kind, 'intervals'], "use 'delay' (one pause) or 'intervals' (a pause per attempt), not both");
        block.intervals_ms = o.intervals.map((d, i) => duration(d, [...at, kind, 'intervals', i]));
      } else if (block.timeout_ms !== undefined && o.delay === undefined) block.intervals_ms = [...TO_PASS_INTERVALS_MS];
      block.steps = c.list(node.children.steps, scope);
      return { name: retryName(block), block };
    }
    case 'include': {
      const file = node.included?.loaded.file ?? (typeof v === 'string' ? v : String((v as Obj).file));
      const name = `include ${file}`;
      // An include that could not be read or is invalid was reported where the problem is.
      if (!node.included) return { name, block: { type: 'include', file, steps: [] } };
      // Parameters are resolved here, in the including file; inside, they are plain values.
      const given = isPlainObject(v) && isPlainObject(v.with) ? scope.sub.substitute(v.with, [...at, kind, 'with'], site) : {};
      const inner: FileScope = { file: node.included, sub: c.substituterFor(node.included, { ...c.cliVars, ...given }) };
      return { name, block: { type: 'include', file, steps: c.list(node.children.steps, inner) } };
    }
    default:
      throw new Error(`unknown block kind '${kind}'`); // unreachable after validation
  }
}

/** Playwright's toPass pauses between attempts when a `timeout` is given without its own. */
const TO_PASS_INTERVALS_MS = [100, 250, 500, 1000];

/** `retry up to 3 attempts`, `retry for 10000 ms`, `retry up to 5 attempts within 10000 ms`. */
function retryName(b: Extract<Block, { type: 'retry' }>): string {
  const attempts = b.attempts !== undefined ? `up to ${b.attempts} attempt${b.attempts === 1 ? '' : 's'}` : '';
  const within = b.timeout_ms !== undefined ? `${attempts ? 'within' : 'for'} ${b.timeout_ms} ms` : '';
  return ['retry', attempts, within].filter(Boolean).join(' ');
}

/**
 * A list as written (its strings substituted), the items of a variable known now, or the template of a
 * value only the run has (`{{ r.result }}`), resolved by the runner.
 */
function forEachItems(written: unknown, at: DataPath, sub: Substituter, site: UseSite, report: (at: DataPath, m: string) => void): unknown[] | string {
  if (Array.isArray(written)) return sub.substitute(written, at, site);
  const text = String(written);
  const single = /^\s*\{\{([^{}]*)\}\}\s*$/.exec(text);
  if (single) {
    const found = sub.probe(single[1]!.trim(), at, site);
    if (!found.known) {
      if (!found.runtime) report(at, found.error);
      return text.trim();
    }
    const items = itemsOf(found.value);
    if ('error' in items) report(at, `for_each items: ${items.error}`);
    return Array.isArray(items) ? items : [];
  }
  const rendered = sub.substitute(text, at, site);
  if (hasTemplate(rendered)) return rendered;
  const items = itemsOf(rendered);
  return Array.isArray(items) ? items : [];
}
