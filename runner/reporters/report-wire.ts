// A scenario's result as the service's /runs routes take it (src/api/schemas/runs.ts), and the files of it to
// upload. The wire bounds every text; what a run produced beyond them is cut, never refused, so one long step
// name cannot lose a scenario's result.
import { createHash } from 'node:crypto';
import type { ArtifactKind, RunResultParams, RunStep } from '../../src/api/index.js';
import { locationOf, type ScenarioResult, type StepResult } from './results.js';

/** `text` within `max` characters, never empty (the wire takes no empty names). */
const cut = (text: string, max: number) => {
  // The service's text holds no NUL (PostgreSQL's cannot).
  const clean = text.replace(/\u0000/g, '');
  return (clean.length > max ? `${clean.slice(0, max - 1)}…` : clean) || '-';
};
/** Labels are one line. */
const label = (text: string) => cut(text.replace(/[\u0000-\u001f\u007f]+/g, ' '), 255);
const ms = (n: number) => Math.min(2 ** 31 - 1, Math.max(0, Math.round(n)));

export function wireStep(s: StepResult): RunStep {
  return {
    index: s.index,
    phase: s.phase,
    kind: cut(s.kind, 100),
    name: cut(s.name, 4096),
    status: s.status,
    ...(s.started_at ? { started_at: s.started_at } : {}),
    duration_ms: ms(s.duration_ms),
    location: cut(locationOf(s.source), 2048),
    ...(s.error ? { error: { kind: s.error.kind, message: cut(s.error.message, 65_536), location: cut(s.error.location, 2048) } } : {}),
    ...(s.note ? { note: cut(s.note, 4096) } : {}),
    ...(s.continued ? { continued: s.continued } : {}),
    ...(s.depth !== undefined ? { depth: s.depth } : {}),
    ...(s.iteration !== undefined ? { iteration: s.iteration } : {}),
    ...(s.attempts !== undefined ? { attempts: s.attempts } : {}),
    ...(s.replay_offset_ms !== undefined ? { replay_offset_ms: ms(s.replay_offset_ms) } : {}),
    artifacts: s.artifacts.slice(0, 100).map((a) => cut(a.path, 1024)),
  };
}

const MAX_STEPS = 5000;

export function wireResult(r: ScenarioResult): RunResultParams {
  const attempt = (a: ScenarioResult) => ({
    status: a.status,
    attempt: Math.min(100, a.attempt ?? 1),
    started_at: a.started_at,
    duration_ms: ms(a.duration_ms),
    ...(a.timed_out ? { timed_out: true } : {}),
    steps: a.steps.slice(0, MAX_STEPS).map(wireStep),
  });
  return {
    name: label(r.name),
    file: cut(r.file, 1024),
    tags: [...new Set(r.tags.map(label))].slice(0, 100),
    ...attempt(r),
    flaky: r.flaky ?? false,
    ...(r.interrupted ? { interrupted: true } : {}),
    ...(r.hook ? { hook: r.hook } : {}),
    ...(r.session_id ? { session_id: cut(r.session_id, 255) } : {}),
    ...(r.trace ? { trace: cut(r.trace, 1024) } : {}),
    ...(r.replay
      ? {
          replay: {
            video: cut(r.replay.video, 1024),
            ...(r.replay.vtt ? { vtt: cut(r.replay.vtt, 1024) } : {}),
            ...(r.replay.duration_ms !== undefined ? { duration_ms: ms(r.replay.duration_ms) } : {}),
            ...(r.replay.markers ? { markers: r.replay.markers.slice(0, 5000).map((m) => ({ name: cut(m.name, 4096), offset_ms: ms(m.offset_ms) })) } : {}),
          },
        }
      : {}),
    ...(r.kept_session
      ? {
          kept_session: {
            session_id: cut(r.kept_session.session_id, 255),
            ...(r.kept_session.live_view_url ? { live_view_url: cut(r.kept_session.live_view_url, 4096) } : {}),
            until: r.kept_session.until,
          },
        }
      : {}),
    ...(r.previous_attempts?.length ? { previous_attempts: r.previous_attempts.slice(-10).map(attempt) } : {}),
  };
}

/** What the wire takes as a key: one line of at most 512 characters. */
const MAX_KEY = 512;

/**
 * The result's key within its run, so the service knows a POST sent again after a lost answer: its file, name
 * and attempt, and its count when one run reports the same scenario more than once (`nth`, from 1). A key
 * the wire would not take is sent as its hash, which is as stable.
 */
export function resultKey(r: Pick<ScenarioResult, 'file' | 'name' | 'attempt'>, nth = 1): string {
  const key = `${r.file}::${r.name}::${r.attempt ?? 1}${nth > 1 ? `::${nth}` : ''}`;
  if (key.length <= MAX_KEY && !/[\u0000-\u001f\u007f]/.test(key)) return key;
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

export interface ArtifactFile {
  kind: ArtifactKind;
  /** Relative to the output directory, as the steps name it. */
  path: string;
  step_index?: number;
  attempt: number;
}

/** Every file a result names, each attempt's own, once each: step artifacts, the trace and the replay. */
export function artifactFiles(r: ScenarioResult): ArtifactFile[] {
  const out = new Map<string, ArtifactFile>();
  const add = (f: ArtifactFile) => out.has(f.path) || out.set(f.path, f);
  for (const a of [...(r.previous_attempts ?? []), r]) {
    const attempt = a.attempt ?? 1;
    for (const s of a.steps) for (const art of s.artifacts) add({ kind: art.type, path: art.path, step_index: s.index, attempt });
    if (a.trace) add({ kind: 'trace', path: a.trace, attempt });
    if (a.replay) {
      add({ kind: 'video', path: a.replay.video, attempt });
      if (a.replay.vtt) add({ kind: 'vtt', path: a.replay.vtt, attempt });
    }
  }
  return [...out.values()];
}
