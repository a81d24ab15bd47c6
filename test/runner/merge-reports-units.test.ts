// How the shards' blobs become one run, on manifests made here: the order of the whole selection, each
// suite hook once, artifacts that two shards name moved apart, and every way a set of blobs can fail to
// be one run's shards, each with a message naming the shards and files.
import { describe, expect, it } from 'vitest';
import { fingerprintOf, type BlobManifest, type BlobRef } from '../../runner/reporters/blob-archive.js';
import { MergeError, mergeShards, type ShardBlob } from '../../runner/reporters/merge.js';
import type { ScenarioResult } from '../../runner/reporters/results.js';
import { runIdentity } from '../../runner/reporters/run-id.js';
import type { Plan } from '../../src/scenario/plan.js';

const ref = (name: string): BlobRef => ({ file: `${name}.yaml`, path: `${name}.yaml`, name });
const plan = (name: string) => ({ scenario: { name, file: `${name}.yaml` } }) as unknown as Plan;

function result(name: string, extra: Partial<ScenarioResult> = {}): ScenarioResult {
  const dir = name.replace(/\W+/g, '-');
  return {
    name,
    file: `${name}.yaml`,
    tags: [],
    status: 'passed',
    interrupted: false,
    started_at: '2030-01-01T00:00:00.000Z',
    duration_ms: 1000,
    artifact_dir: dir,
    steps: [{ index: 0, phase: 'main', kind: 'screenshot', name: 'shot', source: { file: `${name}.yaml`, line: 3, col: 5 }, status: 'passed', duration_ms: 5, request_ids: [], artifacts: [{ type: 'screenshot', path: `${dir}/shot.png` }] }],
    ...extra,
  };
}

/** The blob of shard `index`/`total` that ran `results` out of `selection`, with `hook` run before. */
function blob(index: number, total: number, selection: string[], results: ScenarioResult[], over: Partial<BlobManifest> = {}): ShardBlob {
  const suite = { selection: selection.map(ref), before: [ref('hook')], after: [] };
  const ran = results.length > 0;
  const scenarios = ran ? [result('hook', { hook: 'before' }), ...results] : [];
  const manifest: BlobManifest = {
    format: 'bcs-blob',
    format_version: 1,
    bcs_version: '1.2.3',
    run: { id: 'run-7', from: 'GITHUB_RUN_ID' },
    shard: { index, total },
    fingerprint: fingerprintOf(suite),
    suite,
    plans: ran ? [plan('hook'), ...results.map((r) => plan(r.name))] : [],
    workers: 2,
    retries: 0,
    ...(ran
      ? {
          result: {
            version: 1,
            started_at: `2030-01-01T00:00:0${index}.000Z`,
            duration_ms: 3000,
            target: { kind: 'remote', base_url: 'http://127.0.0.1:9' },
            scenarios,
            summary: { total: 0, passed: 0, failed: 0, errored: 0, flaky: 0, timed_out: 0, skipped: 0 },
            shard: { index, total },
          },
          files: scenarios.flatMap((s) => [`${s.artifact_dir}/.bcs-artifacts`, `${s.artifact_dir}/shot.png`]),
        }
      : { empty: `shard ${index}/${total} has no scenarios`, files: [] }),
    ...over,
  };
  return { file: `blobs/bcs-blob-${index}-of-${total}.zip`, manifest };
}

/** The suite as an unsharded run orders it (not sorted: shards sort by file, a run keeps the given order). */
const SELECTION = ['c', 'a', 'd', 'b'];
const shards = () => [blob(2, 2, SELECTION, [result('c', { status: 'failed' }), result('d')]), blob(1, 2, SELECTION, [result('a'), result('b')])];

const mergeError = (blobs: ShardBlob[]) => {
  try {
    mergeShards(blobs);
  } catch (err) {
    expect(err).toBeInstanceOf(MergeError);
    return (err as Error).message;
  }
  throw new Error('merged');
};

describe('merging shard blobs', () => {
  it('orders scenarios as the whole selection, keeps each hook once and counts the summary anew', () => {
    const merged = mergeShards(shards());
    const run = merged.run!;
    expect(run.scenarios.map((s) => s.name)).toEqual(['hook', 'c', 'a', 'd', 'b']);
    expect(run.summary).toEqual({ total: 5, passed: 4, failed: 1, errored: 0, flaky: 0, timed_out: 0, skipped: 0 });
    expect(run.shard).toBeUndefined();
    // From the first shard's start to the last one's end.
    expect(run.started_at).toBe('2030-01-01T00:00:01.000Z');
    expect(run.duration_ms).toBe(4000);
    expect(merged.plans.map((p) => p.scenario.name)).toEqual(['hook', 'c', 'a', 'd', 'b']);
    expect(run.scenarios.map((s) => merged.planOf.get(s)?.scenario.name)).toEqual(['hook', 'c', 'a', 'd', 'b']);
    expect(merged.info).toEqual({ workers: 2, retries: 0 });
    expect(merged.notes).toEqual([]);
    // Every file once, at its own path, from the shard whose scenario it is.
    expect(merged.files.map((f) => `${f.from.manifest.shard.index}:${f.to}`).sort()).toEqual(
      ['1:a/.bcs-artifacts', '1:a/shot.png', '1:b/.bcs-artifacts', '1:b/shot.png', '1:hook/.bcs-artifacts', '1:hook/shot.png', '2:c/.bcs-artifacts', '2:c/shot.png', '2:d/.bcs-artifacts', '2:d/shot.png'],
    );
  });

  it("names each scenario's file as its shard ran it relative to its checkout, whatever the shard machine's absolute paths", () => {
    // Two CI machines that checked the suite out in different places.
    const on = (machine: string, b: ShardBlob): ShardBlob => {
      const abs = <T extends { file: string }>(r: T): T => ({ ...r, file: `/${machine}/work/${r.file}` });
      const m = b.manifest;
      return {
        ...b,
        manifest: {
          ...m,
          suite: { selection: m.suite.selection.map(abs), before: m.suite.before.map(abs), after: [] },
          ...(m.result ? { result: { ...m.result, scenarios: m.result.scenarios.map(abs) } } : {}),
        },
      };
    };
    const [second, first] = shards();
    const merged = mergeShards([on('runner-b', second!), on('runner-a', first!)]);
    const named = merged.run!.scenarios.filter((s) => !s.hook).map((s) => [s.name, s.file, merged.pathOf.get(s)]);
    expect(named).toEqual([
      ['c', '/runner-b/work/c.yaml', 'c.yaml'],
      ['a', '/runner-a/work/a.yaml', 'a.yaml'],
      ['d', '/runner-b/work/d.yaml', 'd.yaml'],
      ['b', '/runner-a/work/b.yaml', 'b.yaml'],
    ]);
  });

  it('shows the hook run that failed over one that passed', () => {
    const [second, first] = shards();
    second!.manifest.result!.scenarios[0]!.status = 'failed';
    const run = mergeShards([first!, second!]).run!;
    expect(run.scenarios.filter((s) => s.hook)).toHaveLength(1);
    expect(run.scenarios[0]).toMatchObject({ name: 'hook', status: 'failed' });
  });

  it('merges the scenarios that never started in selection order, and counts what was planned', () => {
    const [second, first] = shards();
    first!.manifest.result!.skipped = [{ name: 'b', file: 'b.yaml', reason: 'skip', note: 'later' }];
    first!.manifest.result!.scenarios.pop();
    first!.manifest.plans.pop();
    // `--bail` stopped d before it started: it was planned, as a run on one machine counts it.
    second!.manifest.result!.skipped = [{ name: 'd', file: 'd.yaml', reason: 'bail' }];
    second!.manifest.result!.scenarios.pop();
    const merged = mergeShards([second!, first!]);
    expect(merged.run!.skipped?.map((s) => s.name)).toEqual(['d', 'b']);
    expect(merged.run!.summary.skipped).toBe(2);
    expect(merged.plans.map((p) => p.scenario.name)).toEqual(['hook', 'c', 'a', 'd']);
  });

  it('moves a scenario whose files another shard already names under its shard', () => {
    const [second, first] = shards();
    // Two shards whose scenarios share a folder: not what one run makes, but no file may be lost to it.
    const d = second!.manifest.result!.scenarios[2]!;
    d.artifact_dir = 'a';
    d.steps[0]!.artifacts[0]!.path = 'a/shot.png';
    second!.manifest.files = second!.manifest.files.filter((f) => !f.startsWith('d/')).concat(['a/shot.png']);
    const merged = mergeShards([first!, second!]);
    const moved = merged.run!.scenarios.find((s) => s.name === 'd')!;
    expect(moved.artifact_dir).toBe('shard-2-of-2/a');
    expect(moved.steps[0]!.artifacts[0]!.path).toBe('shard-2-of-2/a/shot.png');
    expect(merged.files.filter((f) => f.path === 'a/shot.png').map((f) => f.to).sort()).toEqual(['a/shot.png', 'shard-2-of-2/a/shot.png']);
    // The shard's own result is left as it was.
    expect(d.artifact_dir).toBe('a');
  });

  it('takes an empty shard as present, and says when no shard ran anything', () => {
    const merged = mergeShards([blob(1, 2, ['a'], [result('a')]), blob(2, 2, ['a'], [])]);
    expect(merged.run!.scenarios.map((s) => s.name)).toEqual(['hook', 'a']);
    const nothing = mergeShards([blob(1, 2, ['a'], []), blob(2, 2, ['a'], [])]);
    expect(nothing.run).toBeUndefined();
    expect(nothing.nothing).toBe('shard 1/2 has no scenarios');
  });

  it('merges shards without a run id when they ran the same selection, and says so', () => {
    const [second, first] = shards();
    delete second!.manifest.run;
    delete first!.manifest.run;
    expect(mergeShards([second!, first!]).notes).toEqual([expect.stringContaining('the shards carry no run id')]);
  });

  it('refuses a missing shard, naming it', () => {
    expect(mergeError([blob(1, 3, SELECTION, [result('c')]), blob(3, 3, SELECTION, [result('b')])])).toBe(
      'shard 2/3 is missing (found 1/3, 3/3); a merged report needs every shard of the run',
    );
    expect(mergeError([blob(2, 3, SELECTION, [result('a')])])).toContain('shards 1/3, 3/3 are missing (found 2/3)');
  });

  it('refuses a shard given twice, naming both files', () => {
    const copy = { ...shards()[1]!, file: 'elsewhere/bcs-blob-1-of-2.zip' };
    expect(mergeError([...shards(), copy])).toBe('shard 1/2 is there twice: blobs/bcs-blob-1-of-2.zip, elsewhere/bcs-blob-1-of-2.zip; give each shard once');
  });

  it('refuses shards of different runs, versions, cuts or selections, naming which is which', () => {
    const [second, first] = shards();
    second!.manifest.run = { id: 'run-8', from: 'GITHUB_RUN_ID' };
    expect(mergeError([first!, second!])).toBe(
      'the shards come from different runs: run run-7 (GITHUB_RUN_ID): shard 1/2 (blobs/bcs-blob-1-of-2.zip); run run-8 (GITHUB_RUN_ID): shard 2/2 (blobs/bcs-blob-2-of-2.zip)',
    );
    delete second!.manifest.run;
    expect(mergeError([first!, second!])).toContain('no run id: shard 2/2');

    const [older, current] = shards();
    older!.manifest.bcs_version = '1.0.0';
    // Another version is said first: what else differs may well follow from it.
    older!.manifest.run = { id: 'run-9', from: 'BCS_RUN_ID' };
    expect(mergeError([older!, current!])).toBe(
      'the shards come from different versions of bcs: bcs 1.2.3: shard 1/2 (blobs/bcs-blob-1-of-2.zip); bcs 1.0.0: shard 2/2 (blobs/bcs-blob-2-of-2.zip); merge shards that one bcs ran',
    );

    expect(mergeError([blob(1, 2, SELECTION, [result('a')]), blob(2, 3, SELECTION, [result('b')])])).toContain(
      'the shards come from runs cut into different numbers of shards: cut into 2: shard 1/2',
    );
    expect(mergeError([blob(1, 2, SELECTION, [result('a')]), blob(2, 2, ['c', 'a', 'd'], [result('d')])])).toMatch(
      /^the shards ran different selections of scenarios \(other files, names, filters or hooks\): a selection of 4 scenarios \(\w{12}\): shard 1\/2 .*; a selection of 3 scenarios/,
    );
  });
});

describe('the run id', () => {
  it('comes from --run-id, then BCS_RUN_ID, then the CI run, and empty values do not count', () => {
    expect(runIdentity('given', { BCS_RUN_ID: 'env', GITHUB_RUN_ID: '5' })).toEqual({ id: 'given', from: '--run-id' });
    expect(runIdentity(undefined, { BCS_RUN_ID: 'env', GITHUB_RUN_ID: '5' })).toEqual({ id: 'env', from: 'BCS_RUN_ID' });
    expect(runIdentity(undefined, { BCS_RUN_ID: '', CI_PIPELINE_ID: '77' })).toEqual({ id: '77', from: 'CI_PIPELINE_ID' });
    expect(runIdentity(undefined, {})).toBeUndefined();
  });
});
