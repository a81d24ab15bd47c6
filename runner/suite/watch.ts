// `bcs run --watch`: runs the selection, then again whenever a file it depends on changes, only the
// scenarios that depend on it. One target serves every run (the embedded service stays up), and a file
// that does not compile while it is being edited is reported without ending the watch.
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { CompiledScenario } from '../../src/scenario/index.js';
import { dependenciesOf, realPath, touches } from './changed.js';
import { prepareSuite, runScenarios, type RunOptions, type RunOutcome } from './run.js';
import type { Target } from './target.js';

/** Editors write a file in bursts (truncate, write, rename): one run per burst. */
const SETTLE_MS = 300;

export interface WatchDeps {
  /** Opens the target every run shares. */
  open(): Promise<Target>;
  /** Reporters for one run (each run writes its own reports). */
  reporters(): RunOptions['reporters'];
  /** Prints what a run left to say: diagnostics, messages, the JSON result. */
  settle(outcome: RunOutcome): void;
  say(message: string): void;
  /** Aborted on Ctrl-C: the running run stops (reports written), and so does the watch. */
  signal: AbortSignal;
}

/** Runs until Ctrl-C; resolves with the exit code of the last run (130 when a run was interrupted). */
export async function watchRuns(opts: Omit<RunOptions, 'reporters' | 'target'>, deps: WatchDeps): Promise<number> {
  const target = await deps.open();
  const watchers: FSWatcher[] = [];
  try {
    let last = await runOnce(opts, opts.paths, target, deps);
    const changed = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    let wake: () => void = () => {};
    // The run's own output (reports, artifacts) changes on every run: never a reason for another.
    const output = resolve(opts.outputDir);
    const onChange = (file: string) => {
      if (file === output || file.startsWith(`${output}${sep}`)) return;
      changed.add(file);
      clearTimeout(timer);
      timer = setTimeout(() => wake(), SETTLE_MS);
    };
    for (const path of opts.paths) watchers.push(await watchPath(resolve(path), onChange));
    deps.signal.addEventListener('abort', () => wake(), { once: true });
    deps.say(`watching ${opts.paths.join(', ')} for changes; Ctrl-C to stop`);
    for (;;) {
      await new Promise<void>((r) => (wake = r));
      if (deps.signal.aborted) return last;
      const files = [...changed];
      changed.clear();
      const paths = await affected(opts, files);
      if (!paths.length) {
        deps.say(`changed: ${files.map((f) => relativeToCwd(f)).join(', ')}; no scenario depends on ${files.length === 1 ? 'it' : 'them'}`);
        continue;
      }
      deps.say(`changed: ${files.map((f) => relativeToCwd(f)).join(', ')}; running ${paths.map(relativeToCwd).join(', ')}`);
      // --only-changed chose the first run; after it, what changed under the watch decides.
      last = await runOnce({ ...opts, onlyChanged: undefined }, paths, target, deps);
      if (deps.signal.aborted) return last;
      deps.say(`watching ${opts.paths.join(', ')} for changes; Ctrl-C to stop`);
    }
  } finally {
    for (const w of watchers) w.close();
    await target.close();
  }
}

async function runOnce(opts: Omit<RunOptions, 'reporters' | 'target'>, paths: string[], target: Target, deps: WatchDeps): Promise<number> {
  const outcome = await runScenarios({ ...opts, paths, target, reporters: deps.reporters(), signal: deps.signal });
  deps.settle(outcome);
  return outcome.exitCode;
}

async function watchPath(path: string, onChange: (file: string) => void): Promise<FSWatcher> {
  const isDir = (await stat(path)).isDirectory();
  const dir = isDir ? path : dirname(path);
  return watch(dir, { recursive: isDir }, (_event, name) => {
    if (!name) return;
    const file = resolve(dir, name.toString());
    if (isDir ? !file.split(sep).includes('node_modules') : file === path) onChange(file);
  });
}

/**
 * The scenario files to run again: those a changed file is part of (the file itself, a part it includes,
 * a file or folder its plan names, rows or other files its text mentions by name), and new scenario files.
 * Compiled afresh, so a scenario that now includes another part is judged by what it is now.
 */
async function affected(opts: Omit<RunOptions, 'reporters' | 'target'>, changed: string[]): Promise<string[]> {
  let scenarios: CompiledScenario[];
  try {
    const suite = await prepareSuite({ ...opts, lastFailed: false, forbidOnly: false, onlyChanged: undefined, repeatEach: 1 });
    scenarios = [...suite.selected, ...suite.marked];
  } catch {
    // Does not compile as it stands: run the changed scenario files, which reports where and why.
    return changed.filter((f) => /\.(ya?ml|scenario\.ts)$/.test(f) && !/\.part\.ya?ml$/.test(f));
  }
  // What the loader built each scenario from and what its plan names (changed.ts, as --only-changed uses),
  // compared by real path; the text fallback catches a file a scenario names in a way the plan does not keep.
  const realChanged = new Set(changed.map(realPath));
  const files = new Set<string>();
  for (const c of scenarios) {
    const deps = await dependenciesOf(c);
    const texts = await Promise.all(deps.files.filter((f) => /\.(ya?ml|ts)$/.test(f)).map((f) => readFile(f, 'utf8').catch(() => '')));
    if (touches(deps, realChanged) || changed.some((f) => texts.some((t) => mentions(t, basename(f))))) {
      files.add(resolve(c.plan.scenario.file));
    }
  }
  return [...files];
}

function basename(file: string): string {
  return file.slice(file.lastIndexOf(sep) + 1);
}

/** Whether a scenario's text names the file (`each: users.csv`, `file: ./fixtures/items.json`). */
function mentions(text: string, name: string): boolean {
  if (!/.\../.test(name)) return false; // a name without an extension is too likely to match by chance
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[\\s/'":,\\[{])${escaped}($|[\\s'",\\]}])`, 'm').test(text);
}

function relativeToCwd(file: string): string {
  const cwd = process.cwd() + sep;
  return file.startsWith(cwd) ? file.slice(cwd.length) : file;
}
