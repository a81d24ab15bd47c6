// Runs a function step of a TypeScript scenario: looks its id up in the scenario's function table and
// calls it with the live Playwright objects, the session and every variable in scope.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { FunctionTable, StepContext } from '../../src/scenario/functions.js';
import { StepFailure, classify } from './failures.js';

export interface FunctionDeps {
  functions: FunctionTable;
  browser?: Browser;
  page?: Page;
  scope: Record<string, unknown>;
  signal: AbortSignal;
}

export interface FunctionOperation {
  id: string;
  save?: string;
  /** The scenario's variables (its `vars`, overridden by `--var`), resolved; saved values come from the scope. */
  vars?: Record<string, unknown>;
}

/** Calls the function; its result is saved under `save` in the scope and returned (as the step's output when JSON). */
export async function runFunction(op: FunctionOperation, deps: FunctionDeps): Promise<unknown> {
  const fn = deps.functions[op.id];
  if (!fn) throw new StepFailure('infrastructure', `function step '${op.id}' is not in the scenario's function table`);
  const { browser, page } = deps;
  const session = deps.scope.session as StepContext['session'] | undefined;
  if (!browser || !page || !session) throw new StepFailure('infrastructure', 'no page: the browser was not connected');
  let result: unknown;
  try {
    result = await fn({ page, context: page.context(), browser, session, vars: { ...op.vars, ...deps.scope }, signal: deps.signal });
  } catch (err) {
    throw failureIn(err);
  }
  if (op.save) deps.scope[op.save] = result;
  return isJson(result) ? result : undefined;
}

/**
 * The step's location is the `.fn(...)` call; where inside the function it failed is the user's next
 * question, so the message names the first frame of their code (source-mapped to their TypeScript).
 */
function failureIn(err: unknown): StepFailure {
  const failure = classify(err, 'step');
  const where = err instanceof Error && !(err instanceof StepFailure) ? userFrame(err.stack ?? '') : undefined;
  return where ? new StepFailure(failure.kind, `${failure.message} (at ${where})`) : failure;
}

/** The first frame above this module's own that is neither Node's nor a package's: the function's code. */
export function userFrame(stack: string): string | undefined {
  for (const line of stack.split('\n').slice(1)) {
    const frame = line.trim();
    if (!frame.startsWith('at ')) continue;
    if (/\brunFunction\b/.test(frame)) return undefined;
    const m = /^at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(frame);
    if (!m) continue;
    let file = m[1]!.replace(/^async /, '');
    if (file.startsWith('node:') || file.includes('/node_modules/')) continue;
    if (file.startsWith('file://')) file = fileURLToPath(file);
    const relative = path.relative(process.cwd(), file);
    const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
    return `${shown}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

export function isJson(value: unknown): boolean {
  if (value === undefined) return false;
  try {
    return JSON.stringify(value) !== undefined;
  } catch {
    return false;
  }
}
