// Whether a set of blobs is every shard of one run, exactly once. Checked from the broadest mismatch down
// (another bcs, another run, another cut, another selection, then a shard twice or missing), so the message
// names the cause and not one of its consequences.
import type { BlobManifest } from './blob-archive.js';

export interface ShardBlob {
  /** The archive's path, to name it in messages. */
  file: string;
  manifest: BlobManifest;
}

/** The blobs are not the shards of one run: the message names the shards and files at fault. */
export class MergeError extends Error {
  override name = 'MergeError';
}

const shardName = (b: ShardBlob) => `${b.manifest.shard.index}/${b.manifest.shard.total}`;
const which = (list: ShardBlob[]) => `${list.length === 1 ? 'shard' : 'shards'} ${list.map((b) => `${shardName(b)} (${b.file})`).join(', ')}`;

/** Splits the blobs by `key`; more than one group is a mismatch, said with `label` per group. */
function disagree(blobs: ShardBlob[], key: (b: ShardBlob) => string, label: (b: ShardBlob) => string): string | undefined {
  const groups = new Map<string, ShardBlob[]>();
  for (const b of blobs) groups.set(key(b), [...(groups.get(key(b)) ?? []), b]);
  if (groups.size < 2) return undefined;
  return [...groups.values()].map((list) => `${label(list[0]!)}: ${which(list)}`).join('; ');
}

/**
 * Throws a MergeError unless `blobs` are the shards 1..n of one run of one bcs, once each. Returns what a
 * person should know about how sure that is (no run id: only the selection vouches for it).
 */
export function checkShards(blobs: ShardBlob[]): string[] {
  const sorted = [...blobs].sort((a, b) => a.manifest.shard.index - b.manifest.shard.index);
  const versions = disagree(sorted, (b) => b.manifest.bcs_version, (b) => `bcs ${b.manifest.bcs_version}`);
  if (versions) throw new MergeError(`the shards come from different versions of bcs: ${versions}; merge shards that one bcs ran`);

  const runs = disagree(sorted, (b) => b.manifest.run?.id ?? '', (b) => (b.manifest.run ? `run ${b.manifest.run.id} (${b.manifest.run.from})` : 'no run id'));
  if (runs) throw new MergeError(`the shards come from different runs: ${runs}`);

  const totals = disagree(sorted, (b) => String(b.manifest.shard.total), (b) => `cut into ${b.manifest.shard.total}`);
  if (totals) throw new MergeError(`the shards come from runs cut into different numbers of shards: ${totals}`);

  const selections = disagree(
    sorted,
    (b) => b.manifest.fingerprint,
    (b) => `a selection of ${b.manifest.suite.selection.length} scenario${b.manifest.suite.selection.length === 1 ? '' : 's'} (${b.manifest.fingerprint.slice(0, 12)})`,
  );
  if (selections) throw new MergeError(`the shards ran different selections of scenarios (other files, names, filters or hooks): ${selections}`);

  const total = sorted[0]!.manifest.shard.total;
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1]!, sorted[i]!];
    if (a.manifest.shard.index === b.manifest.shard.index) {
      const twice = sorted.filter((x) => x.manifest.shard.index === a.manifest.shard.index);
      throw new MergeError(`shard ${shardName(a)} is there ${twice.length === 2 ? 'twice' : `${twice.length} times`}: ${twice.map((x) => x.file).join(', ')}; give each shard once`);
    }
  }
  const have = new Set(sorted.map((b) => b.manifest.shard.index));
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !have.has(i));
  if (missing.length) {
    const names = missing.map((i) => `${i}/${total}`).join(', ');
    throw new MergeError(`${missing.length === 1 ? `shard ${names} is` : `shards ${names} are`} missing (found ${sorted.map(shardName).join(', ')}); a merged report needs every shard of the run`);
  }
  if (!sorted[0]!.manifest.run) {
    return ['the shards carry no run id (--run-id, BCS_RUN_ID or a CI run id): they are merged as one run because they ran the same selection with the same bcs'];
  }
  return [];
}
