// The shapes a TypeScript scenario passes to the builder: the same fields, names and shorthands a YAML
// scenario writes, because they are scenario.schema.json's own, turned into types at build time
// (runner/scenario-types.mjs → generated/scenario-types.ts, each field's description its doc comment).
// Nothing here declares a field: these are the names the builder's API and its docs use for them. The
// schema still validates everything, so a shape the types allow but the schema refuses (two locators, say)
// is reported at the builder call that wrote it.

import type * as S from './generated/scenario-types.js';

/** The fields of one step: its kind's value (`goto`, `click`, ...) and the options any step may carry. */
export type Step = S.Step;

/** Keys of a step that are not its kind. */
type StepOptionKey = 'name' | 'timeout' | 'retries' | 'retry_delay' | 'continue_on_error' | 'then' | 'else' | 'save';

/** Every step kind of the schema: `goto`, `click`, ..., `if`, `function`. */
export type StepKind = Exclude<keyof S.Step, StepOptionKey>;

/** What a step of this kind writes after its key, e.g. `StepValue<'goto'>` is a URL or `{ url, wait_until }`. */
export type StepValue<K extends StepKind> = NonNullable<S.Step[K]>;

/** Milliseconds, or a string such as `"500ms"`, `"1.5s"` or `"1m"`. */
export type Duration = S.Duration;

/** An element: one of Playwright's user-facing locators, narrowed as the YAML writes it. */
export type Locator = Exclude<S.Target, string>;

export type TargetValue = S.Target;

/** A string for equality, or one condition on it. `matches` is a regular expression source, without slashes. */
export type MatchValue = S.Match;

/** Fields every step may carry beside its kind. */
/** `go_back`, `go_forward`, `reload`: `true`, or which load event ends the navigation. */
export type NavigationValue = StepValue<'go_back'>;

export type StepOptions = Pick<S.Step, 'name' | 'timeout' | 'retries' | 'retry_delay' | 'continue_on_error'>;

export type GotoValue = StepValue<'goto'>;
export type ClickValue = StepValue<'click'>;
export type FillValue = StepValue<'fill'>;
export type PressValue = StepValue<'press'>;
export type ExpectValue = StepValue<'expect'>;
export type ContextValue = S.Context;
export type SwitchPageValue = StepValue<'switch_page'>;
export type DialogValue = StepValue<'dialog'>;
export type UrlPatternValue = S.UrlPattern;
export type RouteValue = StepValue<'route'>;
export type ResponseExpectValue = S.RequestExpect;
export type RequestValue = StepValue<'request'>;
export type WaitForResponseValue = StepValue<'wait_for_response'>;
/** Nothing (any download), the file's name, or what it must be and hold. */
export type WaitForDownloadValue = StepValue<'wait_for_download'> | null;
export type ImpactValue = S.Impact;
/** Nothing (any violation fails), the least impact that fails, or the audit's options. */
export type ExpectAccessibleValue = StepValue<'expect_accessible'> | null;
/** A baseline name, or the comparison's options. */
export type ExpectScreenshotValue = StepValue<'expect_screenshot'>;
export type ScreenshotValue = StepValue<'screenshot'> | null;
export type ScreenRegion = NonNullable<Extract<ScreenshotValue, object>['region']>;

export type HoldKeys = S.HoldKeys;
export type ClickMouse = S.ClickMouse;
export type MoveMouse = S.MoveMouse;
export type TypeText = S.TypeText;
export type PressKey = S.PressKey;
export type Scroll = S.Scroll;
export type DragMouse = S.DragMouse;
/** One OS-level input action, a one-key object as in YAML. */
export type ComputerAction = S.ComputerAction;

export type ClipboardValue = StepValue<'clipboard'>;
export type ExitCode = S.ExitCode;
/** Environment variables added for a command. */
export type EnvVars = S.EnvVars;
export type ExecValue = StepValue<'exec'>;
export type SpawnValue = StepValue<'spawn'>;
export type WaitProcessValue = StepValue<'wait_process'>;
/** A value inside a JSON document: equal to a JSON value, or a string that contains or matches text. */
export type JsonCheck = S.JsonCheck;
export type JsonExpect = S.JsonExpect;
export type FileExpect = S.FileExpect;
export type ReadFileValue = StepValue<'read_file'>;
/** Octal permissions: `"644"`, `"0600"`. */
export type FileMode = S.FileMode;
export type WriteFileValue = StepValue<'write_file'>;
export type UploadValue = StepValue<'upload'>;
/** A local file (relative to the scenario file) and its absolute destination on the browser host. */
export type UploadFile = UploadValue['files'][number];
export type WaitFileValue = StepValue<'wait_file'>;
export type ScriptValue = StepValue<'script'>;
export type ExecuteValue = StepValue<'execute'>;
export type InvokeExpect = S.InvokeExpect;
/** An action of a deployed app: `version` defaults to `latest`; `payload` is any JSON value. */
export type InvokeValue = StepValue<'invoke'>;

/** The body of `POST /browsers` (profile, extensions and proxy included), or `pool` to lease one. */
export type BrowserOptions = S.Browser;
/** An auth connection by id, or by its domain and profile name; `timeout` bounds the login (default 15 minutes). */
export type AuthConnection = Exclude<S.BrowserAuth, string>;
export type ReplayOptions = NonNullable<S.Scenario['replay']>;
export type TelemetryOptions = NonNullable<S.Scenario['telemetry']>;
/** A string, number or boolean; or a list or mapping (the items of a `for_each`). */
export type VarValue = S.Var;
/** The condition of an `if` step, checked when the step is reached. */
export type ConditionValue = S.Condition;
/** Another scenario file whose steps run here, relative to this one; `with` sets its `vars`. */
export type IncludeValue = StepValue<'include'>;
/** Where a secret comes from: an environment variable, or a local file relative to the scenario. */
export type SecretValue = S.Secret;
/** The app under test, started for the run and stopped after it. */
export type WebServerValue = S.WebServer;

/** Options of a function step: `save` stores what the function returns, for later steps' `{{ name }}`. */
export type FunctionStepOptions = Omit<StepOptions, 'name'> & Pick<S.Step, 'save'>;
