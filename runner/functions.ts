// Runs a function step of a TypeScript scenario: looks its id up in the scenario's function table and
// calls it with the live Playwright objects, the session and every variable in scope.
import type { Browser, Page } from 'playwright-core';
import type { FunctionTable, StepContext } from '../src/scenario/functions.js';
import { StepFailure } from './failures.js';

export interface FunctionDeps {
  functions: FunctionTable;
  browser?: Browser;
  page?: Page;
  scope: Record<string, unknown>;
  signal: AbortSignal;
}

/** Calls the function; its result is saved under `save` in the scope and returned (as the step's output when JSON). */
export async function runFunction(op: { id: string; save?: string }, deps: FunctionDeps): Promise<unknown> {
  const fn = deps.functions[op.id];
  if (!fn) throw new StepFailure('infrastructure', `function step '${op.id}' is not in the scenario's function table`);
  const { browser, page } = deps;
  const session = deps.scope.session as StepContext['session'] | undefined;
  if (!browser || !page || !session) throw new StepFailure('infrastructure', 'no page: the browser was not connected');
  const result = await fn({ page, context: page.context(), browser, session, vars: { ...deps.scope }, signal: deps.signal });
  if (op.save) deps.scope[op.save] = result;
  return isJson(result) ? result : undefined;
}

function isJson(value: unknown): boolean {
  if (value === undefined) return false;
  try {
    return JSON.stringify(value) !== undefined;
  } catch {
    return false;
  }
}
