// What the parts of the executor share while one plan runs: the live objects steps acquire, the template
// scope, the results so far, and the one door to the reporters, which masks secrets on the way out.
import type { Browser, Page } from 'playwright-core';
import type { CloudClient } from '../../src/api/client.js';
import type { FunctionTable } from '../../src/scenario/functions.js';
import type { Plan, PlanStep, TraceMode } from '../../src/scenario/plan.js';
import { renderTemplate, resolveRuntime } from '../../src/scenario/template.js';
import type { BrowserLease, BrowserSource } from './browser-source.js';
import type { StepPause } from './debug-pause.js';
import type { UpdateSnapshots } from './page-snapshot.js';
import type { SnapshotPaths } from './snapshot-path.js';
import type { RunReporter } from '../reporters/reporter.js';
import type { KeptSession, StepResult, StepStatus } from '../reporters/results.js';
import { createMasker, maskDeep, type Masker } from './secrets.js';
import type { WebState } from './page-web.js';
import type { StaticServer } from './static-server.js';
import type { WebServer } from './web-server.js';
import type { Recording } from './replay-calls.js';
import { TargetGaps } from './target-gaps.js';

/** `--keep-on-failure` as the run gives it (keep-browser.ts). */
export interface KeepOnFailure {
  /** How long the service keeps the browser (it takes at most a day). */
  seconds: number;
  /** The run's id (`--run-id`, BCS_RUN_ID, the CI's), said in the keep's reason. */
  runId?: string;
}

/** What the executor is given for a scenario's last attempt, when failed browsers are kept. */
export interface KeepDeps extends KeepOnFailure {
  /** One line per kept browser, and why one could not be kept. */
  say(message: string): void;
}

/** What one plan's execution is given (executePlan's argument). */
export interface ExecuteDeps {
  client: CloudClient;
  outputDir: string;
  reporter: RunReporter;
  /** Aborted on Ctrl-C: the running step stops, later steps are skipped, teardown still runs. */
  signal: AbortSignal;
  /** The functions the plan's `function` operations name (TypeScript scenarios). */
  functions?: FunctionTable;
  /** This scenario's folder for artifacts; default `<outputDir>/<scenario name slug>`. */
  artifactDir?: string;
  /** The whole scenario's budget: when it runs out the running step stops, the rest is skipped, teardown runs. */
  timeoutMs?: number;
  /** 1-based attempt of this scenario (`--retries`); `on-first-retry` traces attempt 2. */
  attempt?: number;
  /** Overrides the plan's `trace` (`bcs run --trace`). */
  trace?: TraceMode;
  /** `bcs run --update-snapshots`: what happens to screenshot baselines; absent, missing ones are written and fail. */
  updateSnapshots?: UpdateSnapshots;
  /** Where baselines live (`snapshot_path_template`); absent, keyed by build beside the scenario, relative to the working directory. */
  snapshotPaths?: SnapshotPaths;
  /** `bcs run --debug`: asked before each main step. */
  pause?: StepPause;
  /** Browsers prepared ahead (runner/suite/browser-supply.ts); without it every scenario creates its own. */
  browsers?: BrowserSource;
  /**
   * The target runs on this machine (the embedded service): the run's own servers (these, plus a scenario's
   * `serve:` and `web_server:`) go into the network.private_hosts of the browser a scenario creates.
   */
  localServers?: { urls: string[] };
  /** What the run found its target lacks, shared by its scenarios (a plan run alone keeps its own). */
  gaps?: TargetGaps;
  /** `--keep-on-failure`, given for a scenario's last attempt: a failure keeps its browser (keep-browser.ts). */
  keep?: KeepDeps;
}

/** What steps acquire and later steps use. `scope` is what `{{ ... }}` templates resolve against. */
export interface RunState {
  scope: {
    serve?: { url: string };
    web_server?: { url: string };
    session?: { session_id: string; cdp_ws_url: string; browser_live_view_url?: string };
    secrets?: Record<string, string>;
    [name: string]: unknown;
  };
  server?: StaticServer;
  webServer?: WebServer;
  browser?: Browser;
  /** A browser the run prepared ahead: taken by the create step, given back by the delete step. */
  lease?: BrowserLease;
  page?: Page;
  /** The context's pages, dialogs, routes and responses, watched since Playwright connected. */
  web?: WebState;
  /** While a Playwright trace records: whether to keep it only when a step failed. */
  tracing?: { keepOnlyOnFailure: boolean };
  /** Whether the context records a HAR (`context.record_har`), which it writes when closed. */
  recordsHar?: boolean;
  /** The trace file kept, relative to the output directory. */
  trace?: string;
  /** The scenario's recording, from its start call on: its markers, start and length as the runner knows them. */
  recording?: Recording;
  /** Set once a step failed: a leased browser is then released for replacement, not reuse. */
  failed: boolean;
  /** The browser the service keeps after the failure (--keep-on-failure): teardown does not delete it. */
  kept?: KeptSession;
  /** Every result so far, flat, in the order the steps started (a block before its steps). */
  results: StepResult[];
}

/** Where in the plan's nesting a step runs. */
export interface Frame {
  /** 0 at the top; +1 inside each block. */
  depth: number;
  /** The pass of the innermost repeat/for_each, or attempt of the innermost retry block (1-based). */
  iteration?: number;
  /** Aborted on Ctrl-C, when the scenario's or an enclosing block's time runs out. */
  signal: AbortSignal;
}

/** A name made safe for a file or folder name: `Log in as Ada!` → `log-in-as-ada`. */
export function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'scenario';
}

export class RunContext {
  readonly state: RunState;
  /** Results of blocks that have started and not finished yet: not an outcome `failed:`/`passed:` may read. */
  readonly running = new Set<StepResult>();
  /** Results of retry-block attempts that were run again: their failures do not count against the scenario. */
  readonly superseded = new Set<StepResult>();
  readonly gaps: TargetGaps;
  #mask: Masker = (text) => text;
  /** The session reporters were last told of: a scenario may delete its browser and create another. */
  #toldSession: object | undefined;
  readonly #names = new Map<number, string>();

  constructor(
    readonly plan: Plan,
    readonly deps: ExecuteDeps,
    readonly artifactDir: string,
    startedAt: Date,
  ) {
    this.state = { scope: { run: { started_at: startedAt.toISOString() } }, failed: false, results: [] };
    this.gaps = deps.gaps ?? new TargetGaps();
    const index = (steps: PlanStep[]): void => {
      for (const step of steps) {
        this.#names.set(step.index, step.name);
        if (step.block?.type === 'if') {
          index(step.block.then);
          index(step.block.else);
        } else if (step.block) index(step.block.steps);
      }
    };
    index(plan.steps);
  }

  /** From now on these values never leave the executor unmasked. */
  setSecrets(values: Record<string, string>): void {
    this.state.scope.secrets = values;
    this.#mask = createMasker(Object.values(values));
  }

  mask<T>(value: T): T {
    return maskDeep(value, this.#mask);
  }

  started(step: PlanStep, name: string): void {
    this.deps.reporter.stepStarted?.(this.plan, step, this.#mask(name));
  }

  /** What a running step waits for, for the live step line (masked as everything reported is). */
  progress(step: PlanStep, status: string, detail?: string): void {
    this.deps.reporter.stepProgress?.(this.plan, step, this.#mask(status), detail === undefined ? undefined : this.#mask(detail));
  }

  finished(result: StepResult): void {
    this.deps.reporter.stepFinished?.(this.plan, this.mask(result));
    const session = this.state.scope.session;
    if (session && session !== this.#toldSession) {
      this.#toldSession = session;
      this.deps.reporter.sessionOpened?.(this.plan, { session_id: session.session_id, live_view_url: session.browser_live_view_url });
    }
  }

  /** The step's name with run-time templates resolved (as written when they cannot be yet). */
  /**
   * The step's name with what is known now filled in; a value not known (a step that would have saved it
   * never ran) reads as `<name>`, not as template syntax.
   */
  displayName(step: PlanStep): string {
    return renderTemplate(step.name, (name) => {
      try {
        return resolveRuntime(`{{ ${name} }}`, this.state.scope);
      } catch {
        return `<${name}>`;
      }
    });
  }

  lastStatus(name: string): StepStatus | undefined {
    for (let i = this.state.results.length - 1; i >= 0; i--) {
      const r = this.state.results[i]!;
      if (r.status === 'skipped' || this.running.has(r)) continue;
      if (this.#names.get(r.index) === name) return r.status;
    }
    return undefined;
  }
}
