// Function steps of TypeScript scenarios: arbitrary code the runner calls with the live objects. A Plan
// stays plain data: its `function` operation names an entry of the scenario's function table, which
// travels beside the plan (a CompiledScenario), never inside it.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Plan } from './plan.js';

export interface StepContext {
  page: Page;
  context: BrowserContext;
  browser: Browser;
  /** The scenario's session: its id and CDP URL, as the create or acquire answered. */
  session: { session_id: string; cdp_ws_url: string; [field: string]: unknown };
  /** Every variable in scope: `vars`, CLI `--var`s, values saved by earlier steps. */
  vars: Record<string, unknown>;
  /** Aborted when the step times out or the run is interrupted. */
  signal: AbortSignal;
}

/** What a function step returns is saved under its `save` name (when it has one) and reported as its output. */
export type StepFunction = (ctx: StepContext) => unknown;

export type FunctionTable = Record<string, StepFunction>;

/** A scenario ready to run: its plan, and the functions its `function` operations name. */
export interface CompiledScenario {
  plan: Plan;
  functions: FunctionTable;
  /**
   * Absolute paths of the files the scenario was compiled from, as the loader resolved them: its own file,
   * the parts it includes, its `each:` rows file, and the local modules a TypeScript file imports
   * (`bcs run --only-changed`). Folders and files the plan names to use at run time are in the plan.
   */
  sources?: string[];
}
