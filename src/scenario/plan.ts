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

/** A request body that is not JSON: UTF-8 text, or the bytes of a local file (an absolute path). */
export type RawBody = { text: string } | { file: string };

/** One multipart/form-data field: a text value, or a local file's bytes (an absolute path). */
export type FormField = { name: string; value: string } | { name: string; file: string };

/**
 * How a response becomes the fields that `expect`, `until` and `save` see (runner/decode.ts):
 * `exec` → exit_code, stdout, stderr (decoded from base64, one trailing newline removed), duration_ms, timed_out;
 * `spawn` → process_id, pid, started_at; `process_status` → state, exit_code;
 * `file` (bytes) → text, size_bytes, sha256, json (when the text parses); `file_info` → the FileInfo fields;
 * `clipboard` → text; `execute` → result, stdout, stderr (and `success: false` fails the step).
 */
export type Decoder = 'exec' | 'spawn' | 'process_status' | 'file' | 'file_info' | 'clipboard' | 'execute';

/** A condition on one value. `equals` compares JSON values deeply; `one_of` is equality with any of them. */
export type Condition =
  | { equals: unknown }
  | { one_of: unknown[] }
  | { contains: string }
  | { matches: string }
  | { at_least: number };

/** A check on one field of a decoded response; with `json_path` (`$.a.b[0]`), on the value at that path inside it. */
export type Assertion = { subject: string; json_path?: string } & Condition;

/** A call to the Browser Cloud API and what to do with its response. */
export interface ApiCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON. At most one of body, raw_body, form. */
  body?: unknown;
  raw_body?: RawBody;
  form?: FormField[];
  /** `bytes` for binary responses (screenshots, files); default `json`. */
  response?: 'json' | 'bytes';
  decode?: Decoder;
  /** Checked against the decoded response; any that fails fails the step (kind `assertion`). */
  expect?: Assertion[];
  /** The variable the decoded response (or, without `decode`, the JSON response) is stored under. */
  save?: string;
  /** Writes the response bytes to this file in the scenario's output folder and reports it. */
  artifact?: { type: 'screenshot' | 'file' | 'video'; file: string };
  /** Sent instead of `body` when an earlier step failed (a pool lease is released without reuse then). */
  body_if_failed?: unknown;
  /** A response without a body (204) fails the step with this message (a pool acquire that timed out). */
  empty_response_error?: string;
  /** The response's `offset_ms` is where this step starts in the scenario's replay video. */
  marks_step?: boolean;
}

/**
 * Repeats an API call until every `until` assertion holds or the step's time runs out (an assertion
 * failure naming `waiting_for`). Responses with a `pending_status` (e.g. 404 for a file that does not exist
 * yet) mean "not yet". `expect` and `save` then apply to the last response.
 */
export interface PollCall extends ApiCall {
  until: Assertion[];
  interval_ms: number;
  pending_status?: number[];
  /** What is awaited, for the timeout message: `file /tmp/report.pdf to exist`. */
  waiting_for: string;
}

export type Operation =
  /** Serve a local folder over HTTP on loopback for the run; its URL becomes `serve.url`. */
  | { op: 'serve'; dir: string; save: 'serve' }
  | { op: 'serve_stop' }
  | ({ op: 'api' } & ApiCall)
  | ({ op: 'poll' } & PollCall)
  /** Connect Playwright over CDP to `ws_url` (a template such as `{{ session.cdp_ws_url }}`). */
  | { op: 'connect'; ws_url: string }
  | { op: 'disconnect' }
  | ({ op: 'page' } & PageAction)
  /**
   * Reads the session's telemetry events (GET `path` with `query`, every page) and attaches the console
   * errors and failed requests to the step that was running when each happened.
   */
  | { op: 'attach_telemetry'; path: string; query: Record<string, string> }
  /**
   * Calls entry `id` of the scenario's function table (TypeScript scenarios, src/scenario/functions.ts)
   * with the page, context, browser, session and variables; its result is saved under `save`.
   */
  | { op: 'function'; id: string; save?: string };

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
