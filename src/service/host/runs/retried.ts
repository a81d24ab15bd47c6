// Requests a client sends again after losing the answer (a reset connection, a 502 from a proxy, a timeout
// after the service had done the work). A create with a key, a run's finish and an artifact's upload are
// each answered with what the first one made when they ask for the same thing, and refused (409) when the
// same key or name now asks for something else: a retry may repeat, never rewrite.
import { createHash } from 'node:crypto';
import type { ArtifactRow, RunRow, RunSummaryRow } from '../../store/runs-repo.js';
import { conflict } from '../errors.js';

/** JSON with every object's keys in order: two bodies that differ only in their fields' order are one. */
export function canonical(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  };
  return JSON.stringify(sorted(value)) ?? 'null';
}

/** What a keyed request is remembered by: its body, hashed. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('hex');
}

/** The stored row a keyed create made, when this request is that create again; else a 409. */
export function sameRequest<R extends { id: string; request_hash: string | null }>(stored: R, hash: string, what: string, key: string): R {
  if (stored.request_hash === hash) return stored;
  throw conflict(`${what} key '${key}' was already used for another ${what} ('${stored.id}'): a retry must send the same body, and a new ${what} a new key`);
}

/** `finished_at` is compared only when the retry gives one: without it the first end's time stands. */
export function sameEnd(run: RunRow, end: { status: string; summary: RunSummaryRow | null; finished_at?: string }): boolean {
  return (
    run.status === end.status &&
    canonical(run.summary) === canonical(end.summary) &&
    (end.finished_at === undefined || end.finished_at === run.finished_at)
  );
}

/** An upload of a name the result already has: the stored artifact when it is the same file, else a 409. */
export function sameArtifact(stored: ArtifactRow, sent: Pick<ArtifactRow, 'kind' | 'step_index' | 'attempt' | 'size_bytes' | 'checksum'>): ArtifactRow {
  const differs = (['checksum', 'size_bytes', 'kind', 'step_index', 'attempt'] as const).filter((k) => stored[k] !== sent[k]);
  if (!differs.length) return stored;
  const what = differs.includes('checksum') ? 'other bytes' : `another ${differs.join(', ')}`;
  throw conflict(
    `result '${stored.result_id}' already has an artifact named '${stored.name}' ('${stored.id}'), with ${what}: a retried upload must send the same file; another file needs another name`,
  );
}
