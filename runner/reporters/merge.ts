// The run an unsharded run would have reported, made from the blobs of its shards: every scenario once, in
// the order of the whole selection; each suite hook once (every shard ran it: the first failure shows, else
// the first run); the summary counted anew. Artifacts keep their paths relative to the output directory
// (each scenario's folder is named over the whole suite, so shards never share one); should two shards
// still name the same path, the later one's scenario moves under `shard-<i>-of-<n>/`.
import type { Plan } from '../../src/scenario/plan.js';
import type { BlobManifest } from './blob-archive.js';
import { attemptsOf, referencedPaths } from './blob.js';
import { checkShards, type ShardBlob } from './merge-checks.js';
import type { RunInfo, RunTargetInfo } from './reporter.js';
import { summarize, type RunResult, type ScenarioResult } from './results.js';

export { MergeError, type ShardBlob } from './merge-checks.js';

export interface MergedFile<T> {
  from: T;
  /** The file's path in the shard's archive. */
  path: string;
  /** Where it goes, relative to the merged output directory. */
  to: string;
}

export interface Merged<T> {
  /** Absent when no shard had anything to run (`nothing` says why). */
  run?: RunResult;
  nothing?: string;
  target?: RunTargetInfo;
  plans: Plan[];
  /** Each merged scenario's plan, to replay the run to reporters that follow it step by step. */
  planOf: Map<ScenarioResult, Plan>;
  /**
   * Each merged scenario's file relative to the directory its shard ran in (`/`-separated): a shard's own
   * paths are those of its machine's checkout, which the merging machine's need not share.
   */
  pathOf: Map<ScenarioResult, string>;
  info: RunInfo;
  files: MergedFile<T>[];
  /** The merged scenarios' artifact folders (relative), to empty of an earlier merge first. */
  artifactDirs: string[];
  shards: number;
  notes: string[];
}

interface Kept<T> {
  blob: T;
  result: ScenarioResult;
  plan?: Plan;
  path?: string;
}

/** Throws MergeError when the blobs are not every shard of one run once. */
export function mergeShards<T extends ShardBlob>(blobs: T[]): Merged<T> {
  const notes = checkShards(blobs);
  const sorted = [...blobs].sort((a, b) => a.manifest.shard.index - b.manifest.shard.index);
  const ran = sorted.filter((b) => b.manifest.result);
  const info: RunInfo = { workers: Math.max(...sorted.map((b) => b.manifest.workers)), retries: Math.max(...sorted.map((b) => b.manifest.retries)) };
  const base = { planOf: new Map<ScenarioResult, Plan>(), pathOf: new Map<ScenarioResult, string>(), info, files: [], artifactDirs: [], shards: sorted.length, notes };
  if (!ran.length) return { ...base, plans: [], nothing: sorted[0]!.manifest.empty ?? 'no shard had a scenario to run' };

  const selectionSize = sorted[0]!.manifest.suite.selection.length;
  const ordered: Array<Kept<T> & { at: number }> = [];
  const skipped: Array<NonNullable<RunResult['skipped']>[number] & { at: number }> = [];
  const hooks = { before: new Map<number, Kept<T>>(), after: new Map<number, Kept<T>>() };
  const hookPlans = { before: [] as Plan[], after: [] as Plan[] };
  // Every scenario each shard set out to run, started or not: what an unsharded run counts as planned.
  const planned: Array<{ plan: Plan; at: number }> = [];
  for (const blob of ran) {
    const m = blob.manifest;
    const position = matcher(m.suite.selection);
    const hookAt = { before: matcher(m.suite.before), after: matcher(m.suite.after) };
    const plans = planLookup(m);
    for (const result of m.result!.scenarios) {
      const plan = plans(result);
      if (result.hook) {
        // Each shard ran the suite's hooks: one of each is kept, the first that did not pass if any did not.
        const at = hookAt[result.hook](result) ?? m.suite[result.hook].length;
        const kept = hooks[result.hook].get(at);
        if (!kept || (kept.result.status === 'passed' && !kept.result.interrupted && (result.status !== 'passed' || result.interrupted))) {
          hooks[result.hook].set(at, { blob, result, ...(plan ? { plan } : {}) });
        }
      } else {
        const at = position(result) ?? selectionSize;
        const path = m.suite.selection.find((ref) => ref.file === result.file && ref.name === result.name)?.path;
        ordered.push({ blob, result, ...(plan ? { plan } : {}), ...(path ? { path } : {}), at });
      }
    }
    for (const s of m.result!.skipped ?? []) skipped.push({ ...s, at: position(s) ?? selectionSize });
    const [nBefore, nAfter] = [m.suite.before.length, m.suite.after.length];
    if (blob === ran[0]) hookPlans.before = m.plans.slice(0, nBefore);
    if (blob === ran[0]) hookPlans.after = m.plans.slice(m.plans.length - nAfter);
    const planAt = matcher(m.suite.selection);
    for (const plan of m.plans.slice(nBefore, m.plans.length - nAfter)) planned.push({ plan, at: planAt(plan.scenario) ?? selectionSize });
  }
  // Sorting is stable: anything not found in the selection keeps its shard order, after the rest.
  ordered.sort((a, b) => a.at - b.at);
  skipped.sort((a, b) => a.at - b.at);
  planned.sort((a, b) => a.at - b.at);
  const byIndex = (map: Map<number, Kept<T>>) => [...map.entries()].sort((a, b) => a[0] - b[0]).map(([, k]) => k);
  const kept = [...byIndex(hooks.before), ...ordered, ...byIndex(hooks.after)];

  const files: MergedFile<T>[] = [];
  const claimed = new Map<string, T>();
  const scenarios = kept.map((k) => rebased(k, claimed, files));
  const planOf = new Map<ScenarioResult, Plan>();
  const pathOf = new Map<ScenarioResult, string>();
  scenarios.forEach((s, i) => {
    if (kept[i]!.plan) planOf.set(s, kept[i]!.plan!);
    if (kept[i]!.path) pathOf.set(s, kept[i]!.path!);
  });
  const plans = [...hookPlans.before, ...planned.map((p) => p.plan), ...hookPlans.after];

  const results = ran.map((b) => b.manifest.result!);
  const start = Math.min(...results.map((r) => Date.parse(r.started_at)));
  const end = Math.max(...results.map((r) => Date.parse(r.started_at) + r.duration_ms));
  const lacks = new Map(results.flatMap((r) => r.target.lacks ?? []).map((l) => [l.feature, l]));
  const notStarted = skipped.map(({ at: _, ...s }) => s);
  const run: RunResult = {
    version: 1,
    started_at: new Date(start).toISOString(),
    duration_ms: end - start,
    target: { kind: results[0]!.target.kind, base_url: results[0]!.target.base_url, ...(lacks.size ? { lacks: [...lacks.values()] } : {}) },
    scenarios,
    summary: summarize(scenarios, notStarted.length),
    ...(notStarted.length ? { skipped: notStarted } : {}),
  };
  const target = ran.find((b) => b.manifest.target)?.manifest.target;
  const artifactDirs = [...new Set(scenarios.flatMap(artifactDirsOf))];
  return { ...base, run, ...(target ? { target } : {}), plans, planOf, pathOf, files, artifactDirs };
}

/**
 * Where a scenario of one shard stands in `refs` (the whole selection, or the hooks): by its file as that
 * shard named it and its name, each place taken once, so a file and name found twice fill both places.
 */
function matcher(refs: BlobManifest['suite']['selection']): (r: { file: string; name: string }) => number | undefined {
  const used = new Set<number>();
  return (r) => {
    const at = refs.findIndex((s, i) => !used.has(i) && s.file === r.file && s.name === r.name);
    if (at < 0) return undefined;
    used.add(at);
    return at;
  };
}

function planLookup(m: BlobManifest): (r: ScenarioResult) => Plan | undefined {
  const left = [...m.plans];
  return (r) => {
    const i = left.findIndex((p) => p.scenario.file === r.file && p.scenario.name === r.name);
    return i < 0 ? undefined : left.splice(i, 1)[0];
  };
}

/** The result with its paths where its files go in the merged output, and those files added to `files`. */
function rebased<T extends ShardBlob>(k: Kept<T>, claimed: Map<string, T>, files: MergedFile<T>[]): ScenarioResult {
  const { blob, result } = k;
  // A retried scenario's later attempts write into folders inside its own.
  const dirs = artifactDirsOf(result);
  const refs = new Set(referencedPaths(result));
  const own = blob.manifest.files.filter((p) => refs.has(p) || dirs.some((d) => p.startsWith(`${d}/`)));
  const clash = [...dirs, ...own].some((p) => claimed.has(p) && claimed.get(p) !== blob);
  const prefix = clash ? `shard-${blob.manifest.shard.index}-of-${blob.manifest.shard.total}/` : '';
  for (const p of [...dirs, ...own]) claimed.set(prefix + p, blob);
  for (const p of own) files.push({ from: blob, path: p, to: prefix + p });
  return prefix ? withPrefix(result, prefix, new Set(blob.manifest.files)) : result;
}

function artifactDirsOf(s: ScenarioResult): string[] {
  return [...new Set(attemptsOf(s).map((a) => a.artifact_dir))];
}

/** A copy of `s` whose paths that the blob carries (and its folder) start with `prefix`. */
function withPrefix(s: ScenarioResult, prefix: string, carried: Set<string>): ScenarioResult {
  const move = (p: string) => (carried.has(p) ? prefix + p : p);
  const copy: ScenarioResult = structuredClone(s);
  for (const a of attemptsOf(copy)) {
    a.artifact_dir = prefix + a.artifact_dir;
    for (const st of a.steps) for (const x of st.artifacts) x.path = move(x.path);
    if (a.replay) a.replay = { ...a.replay, video: move(a.replay.video), ...(a.replay.vtt ? { vtt: move(a.replay.vtt) } : {}) };
    if (a.trace) a.trace = move(a.trace);
  }
  return copy;
}
