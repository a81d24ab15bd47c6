// The calls of a recorded scenario (start, a marker per step, stop, the markers' WebVTT track), made so that
// recording works on any target. Markers, markers.vtt and a replay's `duration_ms` are ours: where the target
// lacks them (the hosted API, `bcs serve --strict-wire`) the runner keeps each marker itself, at its offset
// from the recording's start as it saw it, times the video from start to stop, and writes replay.vtt from
// what it kept. Either way the markers go into the report.
import { ApiError } from '../../src/api/index.js';
import { markersVtt } from '../../src/api/marker-track.js';
import type { ApiCall, ReplayRole } from '../../src/scenario/plan.js';
import { handleResponse, runApiCall, type ApiOpContext } from './api-ops.js';
import type { Gap } from './target-gaps.js';

/** What the runner knows of the scenario's recording. */
export interface Recording {
  /** The video's 0 as the runner saw it, on its own clock (ms since the epoch); see start(). */
  startedAt: number;
  /** When the stop call was sent: the recorder stops on its arrival, before the video is finalised. */
  stoppedAt?: number;
  /** The video's length: the target's `duration_ms`, else start to stop as the runner timed it. */
  durationMs?: number;
  markers: KeptMarker[];
}

export interface KeptMarker {
  name: string;
  offset_ms: number;
  /** Who placed it: the target (its answer's `offset_ms`), or the runner where the target has no markers. */
  by: 'target' | 'runner';
}

export interface ReplayCallContext extends ApiOpContext {
  /** The scenario's live state, where the recording is kept from start to stop. */
  run: { recording?: Recording };
  /** Secrets masked, for what the runner writes itself. */
  mask: (text: string) => string;
}

/** A 404 from a route of ours that is not there; a 405 or 501 where a gateway says so instead. */
const NOT_SERVED = [404, 405, 501];

export async function runReplayCall(call: ApiCall & { replay: ReplayRole }, ctx: ReplayCallContext): Promise<void> {
  switch (call.replay) {
    case 'start':
      return start(call, ctx);
    case 'marker':
      return mark(call, ctx);
    case 'stop':
      return stop(call, ctx);
    case 'markers_vtt':
      return writeTrack(call, ctx);
  }
}

/**
 * The video's 0 is the replay's `started_at` (the hosted replay has it) held inside the start call: the
 * recording began after the call was sent and before it was answered, so a target clock that disagrees
 * with this one moves it by no more than the call took. Without `started_at`, when the call answered.
 */
async function start(call: ApiCall, ctx: ReplayCallContext): Promise<void> {
  const sentAt = Date.now();
  const answer = await runApiCall(call, ctx);
  const answeredAt = Date.now();
  const said = Date.parse(String((answer as { started_at?: unknown } | undefined)?.started_at));
  const startedAt = Number.isNaN(said) ? answeredAt : Math.min(answeredAt, Math.max(sentAt, said));
  ctx.run.recording = { startedAt, markers: [] };
}

async function mark(call: ApiCall, ctx: ReplayCallContext): Promise<void> {
  const recording = recordingOf(ctx);
  const name = String((call.body as { name?: unknown }).name);
  let offset: number | undefined;
  if (!ctx.gaps.lacks('replay_markers')) {
    const answer = await unlessMissing(() => runApiCall(call, ctx), ctx, 'replay_markers');
    const given = (answer as { offset_ms?: unknown } | undefined)?.offset_ms;
    if (typeof given === 'number') offset = given;
  }
  const by = offset === undefined ? 'runner' : 'target';
  offset ??= Math.max(0, Date.now() - recording.startedAt);
  recording.markers.push({ name, offset_ms: offset, by });
  ctx.work.replayOffsetMs = offset;
}

async function stop(call: ApiCall, ctx: ReplayCallContext): Promise<void> {
  const recording = recordingOf(ctx);
  recording.stoppedAt = Date.now();
  const answer = await runApiCall(call, ctx);
  const given = (answer as { duration_ms?: unknown } | undefined)?.duration_ms;
  if (typeof given === 'number') recording.durationMs = given;
  else {
    ctx.gaps.lack('replay_duration');
    recording.durationMs = recording.stoppedAt - recording.startedAt;
  }
}

/** The target's track when it placed the markers and serves one; else the runner's, from what it kept. */
async function writeTrack(call: ApiCall, ctx: ReplayCallContext): Promise<void> {
  const recording = recordingOf(ctx);
  const targetPlacedAll = !ctx.gaps.lacks('replay_markers') && recording.markers.every((m) => m.by === 'target');
  if (targetPlacedAll && !ctx.gaps.lacks('replay_markers_vtt')) {
    const served = await unlessMissing(() => runApiCall(call, ctx).then(() => true), ctx, 'replay_markers_vtt');
    if (served) return;
  }
  const endMs = recording.durationMs ?? Date.now() - recording.startedAt;
  const markers = recording.markers.map((m) => ({ name: ctx.mask(m.name), offset_ms: m.offset_ms }));
  await handleResponse(call, Buffer.from(markersVtt(markers, endMs), 'utf8'), ctx);
}

function recordingOf(ctx: ReplayCallContext): Recording {
  // The plan starts the recording before any step that marks it; a scenario that got here without one
  // has a bug in its plan, not in the target.
  if (!ctx.run.recording) throw new Error('no recording was started');
  return ctx.run.recording;
}

/**
 * The call's answer, or undefined when the target does not serve the route at all, which is then remembered
 * as `gap` for the rest of the run. A 404 could also mean the replay is gone: the hosted list of the
 * session's replays tells the two apart.
 */
async function unlessMissing<T>(call: () => Promise<T>, ctx: ReplayCallContext, gap: Gap): Promise<T | undefined> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof ApiError) || !NOT_SERVED.includes(err.status) || !(await replayListed(ctx))) throw err;
    ctx.gaps.lack(gap);
    return undefined;
  }
}

async function replayListed(ctx: ReplayCallContext): Promise<boolean> {
  const session = (ctx.scope.session as { session_id?: string } | undefined)?.session_id;
  const replay = (ctx.scope.replay as { replay_id?: string } | undefined)?.replay_id;
  if (!session || !replay) return false;
  try {
    const res = await ctx.client.request<{ replay_id?: string }[]>('GET', `/browsers/${encodeURIComponent(session)}/replays`, { signal: ctx.signal });
    return Array.isArray(res.data) && res.data.some((r) => r.replay_id === replay);
  } catch {
    return false;
  }
}
