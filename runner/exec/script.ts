// A `script` step: JavaScript from the scenario run by the runner with its own Playwright objects, so what
// it sets up (routes, dialog handlers, init scripts) acts on the page the later steps use. The code is the
// scenario author's, as a TypeScript function step is; it runs with the runner's rights, like Playwright Test.
import type { Browser, Page } from 'playwright-core';
import { AsyncFunction } from '../../src/scenario/step-compiler.js';
import { StepFailure, classify } from './failures.js';
import { isJson } from './functions.js';

export interface ScriptOperation {
  code: string;
  save?: string;
  vars?: Record<string, unknown>;
}

export interface ScriptDeps {
  browser?: Browser;
  page?: Page;
  scope: Record<string, unknown>;
  signal: AbortSignal;
}

/** Runs the code; what it returns is saved under `save` and returned (as the step's output when JSON). */
export async function runScript(op: ScriptOperation, deps: ScriptDeps): Promise<unknown> {
  const { browser, page } = deps;
  if (!browser || !page) throw new StepFailure('infrastructure', 'no page: the browser was not connected');
  const fn = new AsyncFunction('page', 'context', 'browser', 'vars', 'signal', op.code);
  let result: unknown;
  try {
    result = await fn(page, page.context(), browser, { ...op.vars, ...deps.scope }, deps.signal);
  } catch (err) {
    const failure = classify(err, 'step');
    const line = err instanceof Error ? scriptLine(err.stack ?? '') : undefined;
    throw line === undefined ? failure : new StepFailure(failure.kind, `${failure.message} (at line ${line} of the script)`);
  }
  if (op.save) deps.scope[op.save] = result;
  return isJson(result) ? result : undefined;
}

/** V8 numbers a Function's body from line 3 (`async function anonymous(...\n) {\n` comes first). */
const HEADER_LINES = 2;

function scriptLine(stack: string): number | undefined {
  const m = /<anonymous>:(\d+):\d+/.exec(stack);
  return m ? Number(m[1]) - HEADER_LINES : undefined;
}
