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

/** A locator for page steps: a Playwright selector string, or one of Playwright's user-facing getters, then narrowed. */
export type Target = BaseTarget & Narrowing;

export type BaseTarget =
  | { selector: string }
  | { text: string; exact?: boolean }
  | ({ role: string; name?: string; exact?: boolean } & RoleOptions)
  | { label: string; exact?: boolean }
  | { placeholder: string; exact?: boolean }
  | { test_id: string }
  | { alt: string; exact?: boolean }
  | { title: string; exact?: boolean };

/** getByRole's options beyond the name, as Playwright takes them (`include_hidden` is `includeHidden`). */
export interface RoleOptions {
  level?: number;
  checked?: boolean;
  pressed?: boolean;
  expanded?: boolean;
  selected?: boolean;
  disabled?: boolean;
  include_hidden?: boolean;
}

export const ROLE_OPTIONS = ['level', 'checked', 'pressed', 'expanded', 'selected', 'disabled', 'include_hidden'] as const;

/** Text a filter looks for: a case-insensitive substring, or a regular expression (source, no slashes). */
export type TextFilter = string | { matches: string };

/**
 * How a locator is narrowed, applied in this order: inside `frame` (iframe selectors, outermost first),
 * inside `within`, the getter, `has_text` .. `has_not` filters, then one of `nth`, `first`, `last`.
 */
export interface Narrowing {
  frame?: string[];
  within?: Target;
  has_text?: TextFilter;
  has_not_text?: TextFilter;
  has?: Target;
  has_not?: Target;
  nth?: number;
  first?: true;
  last?: true;
}

export type WaitUntil = 'load' | 'domcontentloaded' | 'networkidle' | 'commit';

/** One expected text of a list: a string (whole, whitespace normalised) or a regular expression (source, no slashes). */
export type TextItem = string | { matches: string };

/** A string condition: exact match, substring, or regular expression (source, no slashes). */
export type Match = { equals: string } | { contains: string } | { matches: string };

export type PageAction =
  /** A relative `url` is resolved against `base_url` when the step runs (the base may be a run-time template). */
  | { action: 'goto'; url: string; base_url?: string; wait_until?: WaitUntil }
  /** Playwright's goBack, goForward and reload. */
  | { action: 'go_back' | 'go_forward' | 'reload'; wait_until?: WaitUntil }
  | { action: 'click'; target: Target; button?: 'left' | 'right' | 'middle'; click_count?: number }
  | { action: 'fill'; target: Target; value: string }
  | { action: 'press'; key: string; target?: Target }
  | { action: 'hover' | 'check' | 'uncheck' | 'focus' | 'scroll_into_view'; target: Target }
  /** Options by value or label. */
  | { action: 'select'; target: Target; option: string[] }
  /** Key by key (`fill` sets the value at once); without `target`, into whatever has focus (`page.keyboard.type`). */
  | { action: 'type'; target?: Target; text: string; delay_ms?: number }
  | { action: 'drag'; target: Target; to: Target }
  /** Absolute paths of local files; none clears the input. */
  | { action: 'set_input_files'; target: Target; files: string[] }
  /** Waits until a page of the context matches, and acts on it from then on. */
  | { action: 'switch_page'; url?: Match; title?: Match; index?: number }
  | { action: 'close_page' }
  /** How the next dialog is answered; a `message` it does not match fails the step that opened it. */
  | { action: 'dialog'; accept: boolean; prompt_text?: string; message?: Match }
  /** Until the scenario ends or an unroute: requests matching `url`, in every page, are fulfilled, aborted or continued. */
  | { action: 'route'; url: UrlPattern; fulfill?: RouteFulfill; abort?: string; headers?: Record<string, string>; times?: number }
  /** Without `url`: every route. */
  | { action: 'unroute'; url?: UrlPattern }
  | ({ action: 'request' } & HttpRequest)
  /** A response since the previous step began whose URL matches; decoded as `request`'s responses are. */
  | { action: 'wait_for_response'; url: UrlPattern; method?: string; status?: number; expect?: Assertion[]; expect_soft?: Assertion[]; save?: string }
  /**
   * A download since the previous step began (or until the timeout) whose file name and URL match: waited
   * out, then read from `folder` (where the service puts a session's downloads) through the fs API at
   * `session_path`, kept as an artifact and decoded as `read_file`'s files are.
   */
  | { action: 'wait_for_download'; session_path: string; folder: string; name?: Match; url?: UrlPattern; expect?: Assertion[]; expect_soft?: Assertion[]; save?: string }
  /** Writes the context's cookies and local storage as JSON to `file` (absolute). */
  | { action: 'save_storage_state'; file: string }
  | ({ action: 'expect' } & PageExpectation)
  | { action: 'screenshot'; file: string; full_page?: boolean }
  /**
   * The page (or `element`) as Playwright's toHaveScreenshot sees it: a stable screenshot compared by
   * Playwright's own comparator with the baseline named `name` for the browser build that runs, at the path
   * the run's `snapshot_path_template` makes of `scenario_file` (absolute). `snapshot_dir` (absolute) is the
   * default folder of baselines, where unkeyed ones of before are looked for.
   */
  | ({ action: 'expect_screenshot'; name: string; scenario_file: string; snapshot_dir: string } & ScreenshotComparison)
  /**
   * An axe-core audit of the page (or the `include`d parts, less the `exclude`d): fails on a violation of
   * `impact` or worse; the full results are kept as the artifact `report` (a JSON file name).
   */
  | { action: 'expect_accessible'; impact: Impact; include?: string[]; exclude?: string[]; tags?: string[]; disable_rules?: string[]; report: string }
  | { action: 'sleep'; ms: number };

/** axe-core's impact levels, least severe first. */
export type Impact = 'minor' | 'moderate' | 'serious' | 'critical';

export interface ScreenshotComparison {
  element?: Target;
  full_page?: boolean;
  /** Painted over with `mask_color` (Playwright's default pink) before comparing. */
  mask?: Target[];
  mask_color?: string;
  /** Per pixel, 0 (exact) to 1 (anything); Playwright's default 0.2. */
  threshold?: number;
  max_diff_pixels?: number;
  max_diff_pixel_ratio?: number;
}

/**
 * Playwright context options as a scenario writes them; `storage_state` is an absolute local path. The
 * page's size: `viewport`, else the `device`'s, else the browser's window (the session's `viewport`).
 */
export interface ContextOptions {
  device?: string;
  viewport?: { width: number; height: number };
  locale?: string;
  timezone?: string;
  geolocation?: { latitude: number; longitude: number; accuracy?: number };
  permissions?: string[];
  color_scheme?: 'light' | 'dark' | 'no-preference';
  reduced_motion?: 'reduce' | 'no-preference';
  offline?: boolean;
  extra_headers?: Record<string, string>;
  user_agent?: string;
  javascript_enabled?: boolean;
  storage_state?: string;
  http_credentials?: { username: string; password: string; origin?: string; send?: 'unauthorized' | 'always' };
  device_scale_factor?: number;
  is_mobile?: boolean;
  has_touch?: boolean;
  screen?: { width: number; height: number };
  forced_colors?: 'active' | 'none';
  contrast?: 'more' | 'no-preference';
  bypass_csp?: boolean;
  ignore_https_errors?: boolean;
  service_workers?: 'allow' | 'block';
  accept_downloads?: boolean;
  strict_selectors?: boolean;
  /** Written as `network.har` in the scenario's artifact folder when the context closes. */
  record_har?: true | { content?: 'embed' | 'omit'; mode?: 'full' | 'minimal'; url_filter?: UrlPattern };
}

/** A glob (`**` crosses path segments, `*` does not) or a regular expression over whole URLs. */
export type UrlPattern = string | { matches: string };

/** A route's answer; `file` is an absolute local path. */
export interface RouteFulfill {
  status?: number;
  headers?: Record<string, string>;
  content_type?: string;
  json?: unknown;
  body?: string;
  file?: string;
}

/**
 * An HTTP request through the browser context (its cookies go along). The response decodes to `status`,
 * `headers` (names lower-cased), `text` and, when it parses, `json`; `expect` checks those fields.
 */
export interface HttpRequest {
  method: string;
  url: string;
  /** A relative `url` resolves against it. */
  base_url?: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string | number | boolean>;
  data?: string;
  expect?: Assertion[];
  expect_soft?: Assertion[];
  save?: string;
}

/**
 * What an `expect` step waits for, each condition with Playwright's own assertions (retried until the step's
 * timeout). Page-wide: `text` visible anywhere (a string: case-insensitive substring), a `visible` target,
 * the `url`, the `title`. On `element`: its `checks`. `not` expects the opposite of every condition.
 * Conditions are checked one after the other in the order of this object's keys (`element` standing for
 * its `checks`, in their order): the compiler writes them in the order the scenario did.
 */
export interface PageExpectation {
  text?: string | Match;
  visible?: Target;
  url?: Match;
  title?: Match;
  element?: Target;
  checks?: ElementCheck[];
  /** The whole page's accessibility tree against a template in Playwright's aria snapshot format. */
  aria_snapshot?: string;
  not?: true;
}

export type ElementState = 'attached' | 'visible' | 'hidden' | 'enabled' | 'disabled' | 'checked' | 'focused' | 'editable' | 'empty' | 'in_viewport';

export type ElementCheck =
  /** The whole text, whitespace normalised (`equals`), or part of it (`contains`), or a pattern (`matches`). */
  | { check: 'text'; match: Match }
  /**
   * One text per element the locator finds, in order: each whole (toHaveText([...]), as many elements as
   * items) or, with `contains`, contained in the elements of a subsequence (toContainText([...])).
   */
  | { check: 'texts'; items: TextItem[]; contains?: true }
  /** The class attribute: whole (`equals`, toHaveClass), these classes among the element's (`contains`, toContainClass), or a pattern. */
  | { check: 'class'; match: Match }
  /** One class attribute per element, in order (toHaveClass([...])); with `contains`, toContainClass([...]). */
  | { check: 'classes'; items: TextItem[]; contains?: true }
  | { check: 'id' | 'accessible_name' | 'accessible_description' | 'accessible_error_message'; match: Match }
  /** The element's ARIA role (toHaveRole). */
  | { check: 'role'; role: string }
  /** A JavaScript property of the DOM node, compared deeply (toHaveJSProperty). */
  | { check: 'js_property'; name: string; value: unknown }
  /** The selected options of a multiple select (toHaveValues). */
  | { check: 'values'; items: TextItem[] }
  | { check: 'count'; count: number }
  | { check: 'value'; match: Match }
  /** Without `match`: the attribute is there. */
  | { check: 'attribute'; name: string; match?: Match }
  | { check: 'css'; property: string; match: Match }
  /** The element's accessibility tree matches the template (Playwright's toMatchAriaSnapshot). */
  | { check: 'aria'; snapshot: string }
  /** `is: false` expects the state not to hold (`checked: false` is unchecked). */
  | { check: 'state'; state: ElementState; is: boolean };

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

/** A condition on one value. `equals` compares JSON values deeply; `one_of` is equality with any of them. */
export type Condition =
  | { equals: unknown }
  | { one_of: unknown[] }
  | { contains: string }
  | { matches: string }
  | { at_least: number };

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

/** A check on one field of a decoded response; with `json_path` (`$.a.b[0]`), on the value at that path inside it. */
export type Assertion = { subject: string; json_path?: string } & Condition;

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
  | ({ var: string; value?: unknown } & Condition)
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
