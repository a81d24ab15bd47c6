// A Plan is plain data: what the runner will do, in order, for one scenario.
// It is JSON-serialisable so `bcs plan --json` can print it and tests can compare it.
// Strings may hold `{{ ... }}` templates that only the runner can resolve (values known at run time:
// `serve.url`, `session.*`, saved values, loop variables, secrets); everything known at compile time is
// already substituted. Control blocks nest their steps (`PlanStep.block`); it is still plain data.

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

export * from './plan-page.js';
import type { Assertion, Condition, ContextOptions, PageAction } from './plan-page.js';

/** A request body that is not JSON: UTF-8 text, or the bytes of a local file (an absolute path). */
export type RawBody = { text: string } | { file: string };

/** One multipart/form-data field: a text value, or a local file's bytes (an absolute path). */
export type FormField = { name: string; value: string } | { name: string; file: string };

/**
 * How a response becomes the fields that `expect`, `until` and `save` see (runner/exec/decode.ts):
 * `exec` → exit_code, stdout, stderr (decoded from base64, one trailing newline removed), duration_ms, timed_out;
 * `spawn` → process_id, pid, started_at; `process_status` → state, exit_code;
 * `file` (bytes) → text, size_bytes, sha256, json (when the text parses); `file_info` → the FileInfo fields;
 * `clipboard` → text; `execute` → result, stdout, stderr (and `success: false` fails the step);
 * `invocation` → id, status, status_reason, output (the action's JSON text parsed).
 */
export type Decoder = 'exec' | 'spawn' | 'process_status' | 'file' | 'file_info' | 'clipboard' | 'execute' | 'invocation';

/**
 * A check of `expect: { var }` on a value the scenario has, Playwright's generic matchers: `equals` (toEqual,
 * a number also equals its text), `contains` (toContain: text, or an element of a list), `matches`
 * (toMatch), the comparisons, `length` (toHaveLength), `truthy`/`falsy`, `defined` (`false`: toBeUndefined).
 */
export type ValueCheck =
  | { equals: unknown }
  | { contains: unknown }
  | { matches: string }
  | { greater_than: number }
  | { greater_than_or_equal: number }
  | { less_than: number }
  | { less_than_or_equal: number }
  | { length: number }
  | { truthy: true }
  | { falsy: true }
  | { defined: boolean };

/** What an `if` compares a value with: a host check's conditions, and a value expect's other matchers. */
export type IfComparison = Condition | Exclude<ValueCheck, { equals: unknown } | { contains: unknown } | { matches: string } | { defined: boolean }>;

/** A call to the Browser Cloud API and what to do with its response. */
export interface ApiCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON. At most one of body, raw_body, form. */
  body?: unknown;
  /**
   * Fields of `body` the API takes as JSON text (an invocation's `payload`): each is serialised when the
   * call is made, after run-time templates inside it are resolved, so the plan shows it as data.
   */
  json_text?: string[];
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
  /**
   * What the call is to the scenario's recording, so that the runner can do without what a target lacks of
   * our replay extensions (markers, markers.vtt, a replay's `duration_ms`): `start` (the video's 0 is when
   * it answers), `marker` (the answer's `offset_ms` is where this step starts in the video), `stop` (the
   * answer's `duration_ms` is the video's length) and `markers_vtt` (the markers as a WebVTT track).
   */
  replay?: ReplayRole;
  /** Soft checks (`expect_soft`): failures are reported on the step, the run goes on, the scenario fails at the end. */
  expect_soft?: Assertion[];
}

export type ReplayRole = 'start' | 'marker' | 'stop' | 'markers_vtt';

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
  /**
   * Connect Playwright over CDP to `ws_url` (a template such as `{{ session.cdp_ws_url }}`); with `context`,
   * the steps' pages run in a new browser context made with those options.
   */
  | { op: 'connect'; ws_url: string; context?: ContextOptions }
  | { op: 'disconnect' }
  | AcquireBrowser
  | ReleaseBrowser
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
  | { op: 'function'; id: string; save?: string; vars?: Record<string, unknown> }
  /**
   * A `script` step: JavaScript (the body of an async function) the runner runs with its own page, context
   * and browser, the variables (`vars`, with the run's scope over them) and a signal; its result is saved under `save`.
   */
  | { op: 'script'; code: string; save?: string; vars?: Record<string, unknown> }
  /**
   * Reads the scenario's secrets (environment variables, local files) into `{{ secrets.NAME }}`; from then
   * on every value is masked as `***` in whatever the run reports. Values never appear in the plan.
   */
  | { op: 'secrets'; secrets: Record<string, SecretSource> }
  /**
   * `expect: { var }`: checks a value the scenario has (`var`, a template name such as `r.result.items[0]`;
   * `value` when compile time knows it) against every check, or with `not` against none. Not retried:
   * a retry block around the steps that produce the value polls it.
   */
  | { op: 'expect_value'; var: string; value?: unknown; checks: ValueCheck[]; not?: true }
  /**
   * Makes sure an auth connection is logged in before the browser is created from its profile: reads the
   * connection and, unless it is AUTHENTICATED with no flow in progress, starts a login flow (when none is in
   * progress) and follows the connection's event stream until the flow ends. Any end but SUCCESS fails the
   * step; a flow waiting for a person is reported, with where to complete it, while it waits. The
   * connection is saved under `save`, for the create body's `profile.name` (`{{ auth-connection.profile_name }}`).
   */
  | { op: 'auth'; connection: AuthConnectionRef; save: string }
  /** Starts the app under test (`sh -c command` in its own process group) and waits until `url` answers below 500. */
  | ({ op: 'web_server'; save: 'web_server' } & WebServerOptions)
  | { op: 'web_server_stop' };

/**
 * The scenario's browser, saved as `session` (its id, CDP URL and live view URL, as the service answered).
 * Without `pool`: created from `body` (`POST /browsers`; the suite may have created one from the same body
 * ahead of time, and hands that over instead). With `pool`: leased from it (`POST /browser_pools/{pool}/acquire`
 * with `body`, the lease's options), waiting up to `acquire_timeout_ms` for a free browser; none fails the step.
 */
export type AcquireBrowser =
  | { op: 'acquire_browser'; body: Record<string, unknown>; save: 'session' }
  | { op: 'acquire_browser'; pool: string; acquire_timeout_ms: number; body: Record<string, unknown>; save: 'session' };

/**
 * Gives the scenario's browser (`session`) back: deleted (`DELETE /browsers/{id}`), or with `pool`, released
 * to it (`POST /browser_pools/{pool}/release`) for reuse, unless a step failed: then for replacement.
 */
export type ReleaseBrowser = { op: 'release_browser' } | { op: 'release_browser'; pool: string };

/** An auth connection by id, or the one for a domain and profile name (`GET /auth/connections?domain=&profile_name=`). */
export type AuthConnectionRef = { id: string } | { domain: string; profile_name: string };

/** Where a secret comes from: an environment variable, or a local file (an absolute path; one trailing newline dropped). */
export type SecretSource = { env: string } | { file: string };

export interface WebServerOptions {
  command: string;
  url: string;
  timeout_ms: number;
  /** Absolute. */
  cwd: string;
  env?: Record<string, string>;
  /** When `url` already answers, use what answers and start nothing. */
  reuse_existing?: boolean;
}

/**
 * The condition of an `if` block, evaluated at run time. `var` reads a value (saved by a step, a loop
 * variable, a secret) by its template name; a variable known at compile time has its `value` here already.
 * `failed`/`passed` look at the latest run of the step with that name; `exists` asks whether a name has a
 * value (`known` when the compiler could tell).
 */
export type IfCondition =
  | ({ var: string; value?: unknown } & IfComparison)
  | { failed: string }
  | { passed: string }
  | { exists: string; known?: boolean }
  | { not: IfCondition }
  | { all: IfCondition[] }
  | { any: IfCondition[] };

/**
 * The steps a control block runs. Loop variables (`as`) are set in the template scope for each pass;
 * `repeat.times` and `for_each.items` are templates (a string) when their value only exists at run time.
 */
export type Block =
  | { type: 'if'; condition: IfCondition; then: PlanStep[]; else: PlanStep[] }
  | { type: 'repeat'; times: number | string; as?: string; steps: PlanStep[] }
  | { type: 'for_each'; items: unknown[] | string; as: string; steps: PlanStep[] }
  /**
   * Runs `steps` again until they pass: at most `attempts` times, and with `timeout_ms` (Playwright's
   * toPass) no new attempt once that long has passed since the first began. Between attempts it waits
   * `intervals_ms[n - 1]` after the n-th (the last repeating), else `delay_ms`.
   */
  | { type: 'retry'; attempts?: number; timeout_ms?: number; delay_ms: number; intervals_ms?: number[]; steps: PlanStep[] }
  | { type: 'include'; file: string; steps: PlanStep[] };

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
  /** For a block: the whole block's budget, 0 when it has none of its own (its steps keep theirs). */
  timeout_ms: number;
  /** Empty for blocks. */
  operations: Operation[];
  /** Control blocks (`if`, `repeat`, `for_each`, `retry`, `include`): the steps inside, numbered depth-first. */
  block?: Block;
  /** Main steps from the scenario's `before:` (run ahead of the steps) and `after:` (run even when a step failed). */
  hook?: 'before' | 'after';
  /** Runs again on failure, up to this many more times, `retry_delay_ms` apart. */
  retries?: number;
  retry_delay_ms?: number;
  /** A failure is reported and the scenario goes on without failing for it. */
  continue_on_error?: boolean;
  /** `expect_soft`: an assertion failure is reported, the run goes on, the scenario fails at the end. */
  soft?: boolean;
}

export interface Annotations {
  skip?: string;
  fixme?: string;
  only?: true;
  slow?: true;
}

/** A value a scenario took from a defaults file: `browser.viewport`, `serve`, `tags: smoke`, `before_each (2 steps)`. */
export interface DefaultedField {
  field: string;
  file: string;
  line: number;
  col: number;
}

export interface Plan {
  version: 1;
  scenario: {
    name: string;
    file: string;
    tags: string[];
    /** `skip`/`fixme` (with the reason), `only`, `slow`, as the scenario says. */
    annotations?: Annotations;
    /** With `each`: which row this plan is (1-based) and its values. */
    row?: { index: number; values: Record<string, unknown> };
    /** The values the scenario took from its folders' defaults files (`bcs.defaults.yaml`), and where each is written. */
    defaults?: DefaultedField[];
  };
  /** Steps in execution order: setup, then main (before hooks, steps, after hooks), then teardown (always runs). */
  steps: PlanStep[];
  /** `false` when the scenario turned off the page screenshot taken when a main step fails. */
  screenshot_on_failure?: boolean;
  /** When to record a Playwright trace of the scenario's pages (absent: never). */
  trace?: TraceMode;
}

export type TraceMode = 'on' | 'off' | 'retain-on-failure' | 'on-first-retry';
