// A Plan is plain data: what the runner will do, in order, for one scenario.
// It is JSON-serialisable so `bcs plan --json` can print it and tests can compare it.
// Strings may hold `{{ ... }}` templates that only the runner can resolve (values known at run time:
// `serve.url`, `session.*`); everything known at compile time is already substituted.

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

/** A locator for page steps: a Playwright selector string, or one of Playwright's user-facing getters. */
export type Target =
  | { selector: string }
  | { text: string; exact?: boolean }
  | { role: string; name?: string; exact?: boolean }
  | { label: string; exact?: boolean }
  | { placeholder: string; exact?: boolean }
  | { test_id: string };

/** A string condition: exact match, substring, or regular expression (source, no slashes). */
export type Match = { equals: string } | { contains: string } | { matches: string };

export type PageAction =
  | { action: 'goto'; url: string; wait_until?: 'load' | 'domcontentloaded' | 'networkidle' | 'commit' }
  | { action: 'click'; target: Target; button?: 'left' | 'right' | 'middle'; click_count?: number }
  | { action: 'fill'; target: Target; value: string }
  | { action: 'press'; key: string; target?: Target }
  | { action: 'expect'; text?: string; visible?: Target; url?: Match; title?: Match }
  | { action: 'screenshot'; file: string; full_page?: boolean }
  | { action: 'sleep'; ms: number };

export type Operation =
  /** Serve a local folder over HTTP on loopback for the run; its URL becomes `serve.url`. */
  | { op: 'serve'; dir: string; save: 'serve' }
  | { op: 'serve_stop' }
  /** A call to the Browser Cloud API. `save` names the variable the JSON response is stored under. */
  | { op: 'api'; method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; body?: unknown; save?: string }
  /** Connect Playwright over CDP to `ws_url` (a template such as `{{ session.cdp_ws_url }}`). */
  | { op: 'connect'; ws_url: string }
  | { op: 'disconnect' }
  | ({ op: 'page' } & PageAction);

export type StepPhase = 'setup' | 'main' | 'teardown';

export interface PlanStep {
  /** Position in `Plan.steps`; operations refer to it. */
  index: number;
  phase: StepPhase;
  /** The step kind as written (`goto`, `click`, ...) or the implicit step (`browser`, `serve`, `release`). */
  kind: string;
  name: string;
  /** Where the step is written; implicit steps point at what caused them. */
  source: SourceLocation;
  timeout_ms: number;
  operations: Operation[];
}

export interface Plan {
  version: 1;
  scenario: {
    name: string;
    file: string;
    tags: string[];
  };
  /** Steps in execution order: setup, then main, then teardown (teardown always runs). */
  steps: PlanStep[];
}
