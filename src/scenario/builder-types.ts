// The shapes a TypeScript scenario passes to the builder: the same fields, names and shorthands a YAML
// scenario writes (scenario.schema.json), typed. The schema still validates everything, so a shape the
// types allow but the schema refuses (two locators, say) is reported at the builder call that wrote it.

import type {
  BrowserCreateParams,
  ClickParams,
  DragParams,
  MoveParams,
  PressKeyParams,
  Region,
  ScrollParams,
  TypeParams,
} from '../api/types.js';
import type { BaseTarget, ContextOptions, TextFilter } from './plan.js';

/** Milliseconds, or a string such as `"500ms"`, `"1.5s"` or `"1m"`. */
export type Duration = number | `${number}ms` | `${number}s` | `${number}m`;

/** An element: one of Playwright's user-facing locators, narrowed as the YAML writes it. */
export type Locator = BaseTarget & {
  frame?: string | string[];
  within?: TargetValue;
  has_text?: TextFilter;
  has_not_text?: TextFilter;
  has?: TargetValue;
  has_not?: TargetValue;
  nth?: number;
  first?: true;
  last?: true;
};

export type TargetValue = string | Locator;

/** A string for equality, or one condition on it. `matches` is a regular expression source, without slashes. */
export type MatchValue = string | { equals: string } | { contains: string } | { matches: string };

/** Fields every step may carry beside its kind. */
export interface StepOptions {
  /** Shown in reports instead of the default description. */
  name?: string;
  /** Overrides the scenario's default step timeout; on a block, the whole block's. */
  timeout?: Duration;
  /** Run the step again when it fails, up to this many more times. */
  retries?: number;
  /** With `retries`: the pause before each new attempt. */
  retry_delay?: Duration;
  /** When the step fails, report it and go on; the scenario does not fail for it. */
  continue_on_error?: boolean;
}

export type GotoValue = string | { url: string; wait_until?: 'load' | 'domcontentloaded' | 'networkidle' | 'commit' };

/** `go_back`, `go_forward`, `reload`: `true`, or which load event ends the navigation. */
export type NavigationValue = true | { wait_until?: 'load' | 'domcontentloaded' | 'networkidle' | 'commit' };

export type ClickValue = string | (Locator & { button?: 'left' | 'right' | 'middle'; click_count?: number });

export type FillValue = Locator & { value: string | number };

export type PressValue = string | { key: string } | (Locator & { key: string });

/** An element's locator fields (in an `expect`, `text` and `title` are what is checked, so they do not locate). */
type ExpectLocator = Partial<Omit<Extract<Locator, { role: string }>, 'role'>> & {
  selector?: string; role?: string; label?: string; placeholder?: string; test_id?: string; alt?: string;
};

/** An expected text of a list: a string, or a pattern. */
export type TextItemValue = string | { matches: string };

/** One text, or one per element the locator finds (a list), or parts of them (`{ contains: [...] }`). */
export type TextListValue = MatchValue | TextItemValue[] | { contains: string[] };

export interface ExpectValue extends ExpectLocator {
  text?: TextListValue;
  values?: TextItemValue[];
  class?: TextListValue;
  id?: MatchValue;
  accessible_name?: MatchValue;
  accessible_description?: MatchValue;
  accessible_error_message?: MatchValue;
  /** toHaveRole (`role` is the locator). */
  aria_role?: string;
  js_property?: { name: string; value: unknown };
  attached?: boolean;
  visible?: boolean | TargetValue;
  url?: MatchValue;
  title?: MatchValue;
  count?: number;
  value?: MatchValue;
  attribute?: { name: string; value?: MatchValue };
  css?: { property: string; value: MatchValue };
  hidden?: boolean;
  enabled?: boolean;
  disabled?: boolean;
  checked?: boolean;
  focused?: boolean;
  editable?: boolean;
  empty?: boolean;
  in_viewport?: boolean;
  /** Playwright's aria snapshot template: the element's (or the page's) accessibility tree. */
  aria_snapshot?: string;
  not?: true;
  /** How long to wait for the conditions; overrides the step timeout. */
  timeout?: Duration;
}

export type ContextValue = ContextOptions;

export type SwitchPageValue = { url?: MatchValue; title?: MatchValue; index?: number };

export type DialogValue = 'accept' | 'dismiss' | { accept: boolean; prompt_text?: string; message?: MatchValue };

export type UrlPatternValue = string | { matches: string };

export interface RouteValue {
  url: UrlPatternValue;
  fulfill?: { status?: number; headers?: Record<string, string>; content_type?: string; json?: unknown; body?: string; file?: string };
  abort?: true | string;
  headers?: Record<string, string>;
  times?: number;
}

export interface ResponseExpectValue {
  status?: number | number[];
  headers?: Record<string, MatchValue>;
  json?: JsonExpect;
  text?: MatchValue;
}

export interface RequestValue {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string | number | boolean>;
  data?: string;
  expect?: ResponseExpectValue;
  expect_soft?: ResponseExpectValue;
  save?: string;
}

export type WaitForResponseValue =
  | UrlPatternValue
  | { url: UrlPatternValue; method?: string; status?: number; expect?: ResponseExpectValue; expect_soft?: ResponseExpectValue; save?: string };

/** Nothing (any download), the file's name, or what it must be and hold. */
export type WaitForDownloadValue =
  | null
  | string
  | { name?: MatchValue; url?: UrlPatternValue; expect?: FileExpect; expect_soft?: FileExpect; save?: string };

export type ImpactValue = 'minor' | 'moderate' | 'serious' | 'critical';

/** Nothing (any violation fails), the least impact that fails, or the audit's options. */
export type ExpectAccessibleValue =
  | null
  | ImpactValue
  | { impact?: ImpactValue; include?: string | string[]; exclude?: string | string[]; tags?: string[]; disable_rules?: string[] };

/** A baseline name, or the comparison's options. */
export type ExpectScreenshotValue =
  | string
  | {
      name: string;
      element?: TargetValue;
      full_page?: boolean;
      mask?: TargetValue[];
      mask_color?: string;
      threshold?: number;
      max_diff_pixels?: number;
      max_diff_pixel_ratio?: number;
    };

export type ScreenRegion = Region;

export type ScreenshotValue = null | string | { name?: string; full_page?: boolean; screen?: boolean; region?: ScreenRegion };

/** X11 key names held down during a computer action, e.g. `['ctrl']`. */
export type HoldKeys = string[];

export type ClickMouse = ClickParams;

export type MoveMouse = MoveParams;

export type TypeText = string | TypeParams;

export type PressKey = string | string[] | PressKeyParams;

export type Scroll = ScrollParams;

export type DragMouse = DragParams;

/** One OS-level input action, a one-key object as in YAML. */
export type ComputerAction =
  | { click_mouse: ClickMouse }
  | { move_mouse: MoveMouse }
  | { type_text: TypeText }
  | { press_key: PressKey }
  | { scroll: Scroll }
  | { drag_mouse: DragMouse }
  | { set_cursor: { hidden: boolean } }
  | { sleep: Duration };

export type ClipboardValue = { write: string } | { read: true; save?: string; expect?: MatchValue };

export type ExitCode = number | number[] | 'any';

/** Environment variables added for a command. */
export type EnvVars = Record<string, string | number | boolean>;

interface CommandFields {
  /** The program, found on PATH; no shell. */
  command: string;
  args?: (string | number)[];
  cwd?: string;
  env?: EnvVars;
  as_user?: string;
  as_root?: boolean;
}

export type ExecValue =
  | string
  | (CommandFields & {
      timeout?: Duration;
      expect?: { exit_code?: ExitCode; stdout?: MatchValue; stderr?: MatchValue };
      save?: string;
    });

export type SpawnValue = string | (CommandFields & { save?: string });

export type WaitProcessValue = string | { process: string; timeout?: Duration; expect?: { exit_code?: ExitCode } };

/** A value inside a JSON document: equal to a JSON value, or a string that contains or matches text. */
export type JsonCheck = {
  /** `$.items[0].name`; default `$`, the whole document. */
  path?: string;
} & ({ equals: unknown } | { contains: string } | { matches: string });

export type JsonExpect = JsonCheck | JsonCheck[];

export interface FileExpect {
  equals?: string;
  contains?: string;
  matches?: string;
  bytes_at_least?: number;
  sha256?: string;
  json?: JsonExpect;
}

export type ReadFileValue = string | { path: string; save?: string; save_to?: string; expect?: FileExpect };

/** Octal permissions: `"644"`, `"0600"`. */
export type FileMode = string | number;

export type WriteFileValue = { path: string; content: string; mode?: FileMode } | { path: string; from: string; mode?: FileMode };

/** A local file (relative to the scenario file) and its absolute destination on the browser host. */
export interface UploadFile {
  from: string;
  to: string;
}

export type UploadValue = { files: UploadFile[] };

export type WaitFileValue = string | { path: string; timeout?: Duration; min_bytes?: number };

export type ScriptValue = string | { code: string; save?: string };

export type ExecuteValue =
  | string
  | { code: string; timeout?: Duration; expect?: { result?: unknown; json?: JsonExpect }; save?: string };

export interface InvokeExpect {
  /** Default `succeeded`. */
  status?: 'succeeded' | 'failed';
  status_reason?: MatchValue;
  /** The action's return value, compared deeply. */
  output?: unknown;
  /** Values at paths inside the output. */
  json?: JsonExpect;
}

/** An action of a deployed app: `version` defaults to `latest`; `payload` is any JSON value. */
export interface InvokeValue {
  app: string;
  action: string;
  version?: string;
  payload?: unknown;
  async?: boolean;
  timeout?: Duration;
  expect?: InvokeExpect;
  expect_soft?: InvokeExpect;
  save?: string;
}

/**
 * The body of `POST /browsers` (profile, extensions and proxy included), or `pool` (plus `acquire_timeout`,
 * `name`, `tags`, `start_url`) to lease one.
 */
export interface BrowserOptions
  extends Pick<BrowserCreateParams, 'headless' | 'stealth' | 'timeout_seconds' | 'viewport' | 'start_url' | 'name' | 'tags' | 'kiosk_mode' | 'chrome_policy'> {
  /** A profile to start from, by name or id; `save_changes: true` writes the run's changes back. Not with `pool`. */
  profile?: ({ name: string; id?: never } | { id: string; name?: never }) & { save_changes?: boolean };
  /**
   * Start logged in: an auth connection (`bcs auth create`) by id, or found by domain and profile name. It is
   * logged in first when it needs it (waiting for a person when the flow asks for one, up to `timeout`), and
   * the browser starts from its profile, read-only. Not with `profile` or `pool`.
   */
  auth?: string | AuthConnection;
  /** Uploaded extensions to load, each by name or id. Not with `pool`. */
  extensions?: ({ name: string; id?: never } | { id: string; name?: never })[];
  /** A proxy by name or id, or `{ mode: 'direct' }`. Not with `pool`. */
  proxy?:
    | { name: string; id?: never; mode?: never }
    | { id: string; name?: never; mode?: never }
    | { mode: 'direct' | 'default'; name?: never; id?: never };
  /** @deprecated Write `proxy: { id }`. */
  proxy_id?: BrowserCreateParams['proxy_id'];
  pool?: string;
  acquire_timeout?: Duration;
}

/** An auth connection by id, or by its domain and profile name; `timeout` bounds the login (default 15 minutes). */
export type AuthConnection =
  | { id: string; domain?: never; profile?: never; timeout?: Duration }
  | { domain: string; profile: string; id?: never; timeout?: Duration };

export interface ReplayOptions {
  record: boolean;
  framerate?: number;
}

export type TelemetryOptions = boolean | { console?: boolean; network?: boolean };

/** A string, number or boolean; or a list or mapping (the items of a `for_each`). */
export type VarValue = string | number | boolean | unknown[] | { [key: string]: unknown };

/** The condition of an `if` step, checked when the step is reached. */
export type ConditionValue =
  | ({ var: string } & ({ equals: unknown } | { one_of: unknown[] } | { contains: string } | { matches: string } | { at_least: number }))
  | { failed: string }
  | { passed: string }
  | { exists: string }
  | { not: ConditionValue }
  | { all: ConditionValue[] }
  | { any: ConditionValue[] };

/** Another scenario file whose steps run here, relative to this one; `with` sets its `vars`. */
export type IncludeValue = string | { file: string; with?: Record<string, VarValue> };

/** Where a secret comes from: an environment variable, or a local file relative to the scenario. */
export type SecretValue = { env: string } | { file: string };

/** The app under test, started for the run and stopped after it. */
export interface WebServerValue {
  command: string;
  url: string;
  timeout?: Duration;
  cwd?: string;
  env?: EnvVars;
  reuse_existing?: boolean;
}

/** Options of a function step: `save` stores what the function returns, for later steps' `{{ name }}`. */
export interface FunctionStepOptions extends Omit<StepOptions, 'name'> {
  save?: string;
}
