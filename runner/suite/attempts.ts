// One scenario of a run, with `--retries`: a failed attempt runs again, each attempt in its own artifact
// folder, the earlier ones kept in the final result's `previous_attempts`; passing after failing is flaky.
import { join, relative, resolve, sep } from 'node:path';
import type { CloudClient } from '../../src/api/client.js';
import type { CompiledScenario, TraceMode } from '../../src/scenario/index.js';
import { executePlan, slug } from '../exec/execute.js';
import { freshArtifactDir } from './artifact-dir.js';
import { stripScenarioExtension } from './files.js';
import type { ReporterHooks } from '../reporters/reporter.js';
import type { BrowserSource } from '../exec/browser-source.js';
import type { StepPause } from '../exec/debug-pause.js';
import type { UpdateSnapshots } from '../exec/page-snapshot.js';
import type { SnapshotPaths } from '../exec/snapshot-path.js';
import type { TargetGaps } from '../exec/target-gaps.js';
import type { KeepOnFailure } from '../exec/run-context.js';
import type { ScenarioResult } from '../reporters/results.js';
import type { RunScenario } from './repeat.js';

export interface AttemptDeps {
  client: CloudClient;
  outputDir: string;
  reporter: ReporterHooks;
  signal: AbortSignal;
  /** Extra attempts after a failed one. */
  retries: number;
  timeoutMs?: number;
  /** The scenario's folder; attempt N > 1 writes into `attempt-N` inside it. */
  artifactDir: string;
  notice(message: string): void;
  /** Overrides each scenario's `trace` (`bcs run --trace`). */
  trace?: TraceMode;
  /** `bcs run --update-snapshots`. */
  updateSnapshots?: UpdateSnapshots;
  /** `snapshot_path_template` (bcs.config.yaml) and its `{test_dir}`. */
  snapshotPaths?: SnapshotPaths;
  /** `bcs run --debug`. */
  pause?: StepPause;
  /** Browsers prepared ahead by the run. */
  browsers?: BrowserSource;
  /** See ExecuteDeps.localServers. */
  localServers?: { urls: string[] };
  /** Marks the result as one of the suite's `before`/`after` hooks (reporters see the mark too). */
  suiteHook?: 'before' | 'after';
  /** What the run found its target lacks (shared by all its scenarios). */
  gaps?: TargetGaps;
  /** `--keep-on-failure`: the last attempt of a scenario that fails keeps its browser. */
  keepOnFailure?: KeepOnFailure;
}

export async function runAttempts(scenario: RunScenario, deps: AttemptDeps): Promise<ScenarioResult> {
  const { plan, functions } = scenario;
  const previous: ScenarioResult[] = [];
  await freshArtifactDir(deps.artifactDir).catch((err: Error) => deps.notice(`could not empty ${deps.artifactDir}: ${err.message}`));
  for (let attempt = 1; ; attempt++) {
    deps.reporter.scenarioStarted(plan);
    const result = await executePlan(plan, {
      client: deps.client,
      outputDir: deps.outputDir,
      reporter: deps.reporter,
      signal: deps.signal,
      functions,
      artifactDir: attempt === 1 ? deps.artifactDir : join(deps.artifactDir, `attempt-${attempt}`),
      attempt,
      ...(deps.trace ? { trace: deps.trace } : {}),
      ...(deps.updateSnapshots ? { updateSnapshots: deps.updateSnapshots } : {}),
      ...(deps.snapshotPaths ? { snapshotPaths: deps.snapshotPaths } : {}),
      ...(deps.pause ? { pause: deps.pause } : {}),
      ...(deps.browsers ? { browsers: deps.browsers } : {}),
      ...(deps.localServers ? { localServers: deps.localServers } : {}),
      ...(deps.gaps ? { gaps: deps.gaps } : {}),
      ...(deps.timeoutMs !== undefined ? { timeoutMs: deps.timeoutMs } : {}),
      // Only the last attempt: an earlier one that fails is run again, in a browser of its own.
      ...(deps.keepOnFailure && attempt > deps.retries ? { keep: { ...deps.keepOnFailure, say: deps.notice } } : {}),
    });
    if (deps.retries > 0) result.attempt = attempt;
    if (scenario.repeat) result.repeat = scenario.repeat;
    if (deps.suiteHook) Object.assign(result, { hook: deps.suiteHook });
    const again = result.status !== 'passed' && !result.interrupted && !deps.signal.aborted && attempt <= deps.retries;
    if (!again) {
      if (previous.length) {
        result.previous_attempts = previous;
        if (result.status === 'passed') result.flaky = true;
      }
      deps.reporter.scenarioFinished(result, plan);
      return result;
    }
    deps.reporter.scenarioRetrying(plan, result, attempt + 1);
    previous.push(result);
    deps.notice(`retrying '${plan.scenario.name}' (attempt ${attempt + 1} of ${deps.retries + 1}) after it ${result.timed_out ? 'timed out' : result.status}`);
  }
}

/**
 * Each scenario's artifact folder under the output dir: `<name>` while that name is unique among all the
 * scenarios found (so folders are stable whatever --grep or --shard picks), else `<file>--<name>`, and a
 * numbered suffix should even that collide.
 */
export function artifactDirs(scenarios: CompiledScenario[], outputDir: string, cwd = process.cwd()): Map<CompiledScenario, string> {
  const nameCount = new Map<string, number>();
  for (const { plan } of scenarios) nameCount.set(slug(plan.scenario.name), (nameCount.get(slug(plan.scenario.name)) ?? 0) + 1);
  const taken = new Set<string>();
  const dirs = new Map<CompiledScenario, string>();
  for (const scenario of scenarios) {
    const name = slug(scenario.plan.scenario.name);
    const file = relative(cwd, resolve(cwd, stripScenarioExtension(scenario.plan.scenario.file))).split(sep).join('/');
    const base = nameCount.get(name)! > 1 ? `${slug(file)}--${name}` : name;
    let dir = base;
    for (let n = 2; taken.has(dir); n++) dir = `${base}-${n}`;
    taken.add(dir);
    dirs.set(scenario, join(outputDir, dir));
  }
  return dirs;
}
