// The page side of a Plan: locators, page actions, context options and what an `expect` checks on a page.
// Plain data, as the whole Plan is (plan.ts re-exports all of it).

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

/** A condition on one value. `equals` compares JSON values deeply; `one_of` is equality with any of them. */
export type Condition =
  | { equals: unknown }
  | { one_of: unknown[] }
  | { contains: string }
  | { matches: string }
  | { at_least: number };

/** A check on one field of a decoded response; with `json_path` (`$.a.b[0]`), on the value at that path inside it. */
export type Assertion = { subject: string; json_path?: string } & Condition;
