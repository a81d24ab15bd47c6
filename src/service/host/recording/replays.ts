// The service's replays: at most one recording per session, stopped exactly once (by the API, its
// max duration, the session ending, or ffmpeg dying), and always finalised into a faststart MP4 with
// the markers as chapters. Recordings a dead service left behind are finalised at the next start.
import type { MarkerInput } from '../../../api/schemas/replays.js';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { conflict, invalidField, notFound, DomainError, unavailable } from '../errors.js';
import { newId } from '../../ids.js';
import type { Marker, ReplayEndReason, ReplayRow, ReplaysRepo } from '../../store/replays-repo.js';
import { findFfmpeg, remux, type ExitInfo, type FfmpegLookup } from './ffmpeg.js';
import { ffmetadata, mp4DurationMs } from './mp4-chapters.js';
import { Recording } from './recorder.js';
import type { LiveSession, Logger } from '../session/index.js';

export interface ReplayManagerDeps {
  repo: ReplaysRepo;
  /** `<dataDir>/replays`: outside the session folders, which are deleted with their sessions. */
  dir: string;
  now: () => Date;
  log: Logger;
  findFfmpeg?: () => Promise<FfmpegLookup>;
}

export interface StartOptions {
  framerate: number;
  maxDurationS: number;
  /** The page size of a headless session (its screencast size); headful ones record their whole screen. */
  viewport: { width: number; height: number };
}

export type { MarkerInput };

interface Active {
  row: ReplayRow;
  recording: Recording;
  timer: NodeJS.Timeout;
  finishing?: Promise<ReplayRow>;
  /** Marker writes under way: the finalisation waits for them, so every marker added while recording is a chapter. */
  markerWrites: Set<Promise<void>>;
}

/** How far ahead of the recording's end a client's timestamp may be (clock skew) before it is refused. */
const TIMESTAMP_SLACK_MS = 2000;

export class ReplayManager {
  private readonly active = new Map<string, Active>();
  /** Sessions with a recording starting or running: a second start is a 409. */
  private readonly busy = new Map<string, Promise<unknown>>();
  private readonly hooked = new WeakSet<LiveSession>();
  private readonly pending = new Set<Promise<unknown>>();
  private ffmpeg: Promise<FfmpegLookup> | undefined;

  constructor(private readonly deps: ReplayManagerDeps) {}

  videoPath(id: string): string {
    return join(this.deps.dir, `${id}.mp4`);
  }

  /** The fragmented file ffmpeg writes while recording. */
  private recordingPath(id: string): string {
    return join(this.deps.dir, `${id}.rec.mp4`);
  }

  private lookup(): Promise<FfmpegLookup> {
    this.ffmpeg ??= (this.deps.findFfmpeg ?? findFfmpeg)();
    return this.ffmpeg;
  }

  async start(session: LiveSession, opts: StartOptions): Promise<ReplayRow> {
    const running = [...this.active.values()].find((a) => a.row.browser_id === session.id && !a.finishing);
    if (this.busy.has(session.id) || running) {
      throw conflict(`browser '${session.id}' is already recording${running ? ` (replay '${running.row.id}')` : ''}; stop that replay first`);
    }
    // Deleting the session stops and keeps its recording; registered once per session.
    if (!this.hooked.has(session)) {
      this.hooked.add(session);
      session.cleanups.push(() => this.stopForSession(session.id));
    }
    const starting = this.begin(session, opts);
    this.busy.set(session.id, starting);
    try {
      return await starting;
    } finally {
      this.busy.delete(session.id);
    }
  }

  private async begin(session: LiveSession, opts: StartOptions): Promise<ReplayRow> {
    const { ffmpeg, reason } = await this.lookup();
    if (!ffmpeg) throw new DomainError('invalid', 'recording_unavailable', reason);
    if (session.screen && !ffmpeg.x11grab) {
      throw new DomainError('invalid', 'recording_unavailable', `headful recording needs ffmpeg with x11grab; ${ffmpeg.path} has none`);
    }
    await session.ready;
    if (session.ending) throw notFound('browser', session.id);
    await mkdir(this.deps.dir, { recursive: true, mode: 0o700 });
    const id = newId();
    const { screen } = session;
    let recording: Recording;
    try {
      recording = await Recording.start({
        ffmpeg,
        file: this.recordingPath(id),
        framerate: opts.framerate,
        source: screen
          ? { kind: 'x11', display: screen.display, width: screen.width, height: screen.height }
          : { kind: 'screencast', wsEndpoint: session.chromium.wsEndpoint, ...opts.viewport },
        onBacklog: () => this.deps.log.warn({ replay_id: id }, 'ffmpeg fell behind; frames were dropped'),
      });
    } catch (err) {
      await rm(this.recordingPath(id), { force: true });
      throw unavailable('recording_failed', `could not start recording: ${(err as Error).message}`);
    }
    const row: ReplayRow = {
      id,
      browser_id: session.id,
      source: screen ? 'x11grab' : 'screencast',
      framerate: opts.framerate,
      max_duration_s: opts.maxDurationS,
      started_at: new Date(recording.epoch).toISOString(),
      finished_at: null,
      duration_ms: null,
      size_bytes: null,
      end_reason: null,
      end_detail: null,
      recorder_pid: recording.pid ?? null,
    };
    try {
      await this.deps.repo.insert(row);
    } catch (err) {
      // Unrecorded, the replay could never be listed or finalised: it does not start.
      await recording.stop().catch(() => undefined);
      await rm(this.recordingPath(id), { force: true });
      throw err;
    }
    const left = opts.maxDurationS * 1000 - recording.offsetMs();
    const timer = setTimeout(() => void this.stop(id, 'max_duration', `reached max_duration_in_seconds (${opts.maxDurationS})`), left);
    timer.unref();
    this.active.set(id, { row, recording, timer, markerWrites: new Set() });
    void recording.exited.then((exit) => {
      if (recording.stopRequested) return;
      // Its output names host paths: the log gets it, the API record only how it ended.
      this.deps.log.warn({ replay_id: id, code: exit.code, signal: exit.signal, output: recording.tail() }, 'ffmpeg exited while recording');
      void this.stop(id, 'recorder_exited', describeExit(exit));
    });
    // The session may have ended while ffmpeg started; its cleanup ran before this replay existed.
    if (session.ending) return (await this.stop(id, 'session_ended', 'the browser session ended')) ?? row;
    return row;
  }

  /**
   * Restart hook: recordings of the session go on, a screencast now from its new Chromium. One still
   * starting waits for the session's `ready`, which waits for this hook: it starts on the new browser.
   */
  readonly onRestart = async (session: LiveSession): Promise<void> => {
    const mine = [...this.active.values()].filter((a) => a.row.browser_id === session.id && !a.finishing);
    await Promise.all(
      mine.map((a) =>
        a.recording.reconnect(session.chromium.wsEndpoint).catch((err: Error) => {
          this.deps.log.warn({ replay_id: a.row.id, err: err.message }, 'the recording could not follow the restarted browser; it shows its last frame');
        }),
      ),
    );
  };

  /** Whether the replay is still recording (not yet finalised). */
  isRecording(id: string): boolean {
    return this.active.has(id);
  }

  /** Milliseconds recorded so far, for a replay still recording. */
  currentOffset(id: string): number | undefined {
    return this.active.get(id)?.recording.offsetMs();
  }

  /** Stops and finalises a recording; a replay already finished is returned as it is. */
  stop(id: string, reason: ReplayEndReason = 'stopped', detail: string | null = null): Promise<ReplayRow | undefined> {
    const entry = this.active.get(id);
    if (!entry) return this.deps.repo.get(id);
    entry.finishing ??= this.track(
      (async () => {
        clearTimeout(entry.timer);
        const { recording } = entry;
        const died = !recording.stopRequested && recording.hasExited;
        await recording.stop();
        await Promise.all(entry.markerWrites);
        let row: ReplayRow;
        if (died) {
          // What it wrote before dying is all there is: the file says how far it got.
          const { estimateMs, endMs } = await this.writtenSpan(entry.row);
          row = await this.finalise(entry.row, estimateMs, endMs, reason, detail);
        } else {
          // ffmpeg notices a stop up to ~100 ms late (x11grab): the video is cut where the stop came.
          const endMs = recording.epoch + recording.offsetMs();
          row = await this.finalise(entry.row, recording.durationMs(), endMs, reason, detail, true);
        }
        this.active.delete(id);
        return row;
      })(),
    );
    return entry.finishing;
  }

  /** Stops every recording of a session (its end). */
  async stopForSession(sessionId: string): Promise<void> {
    await this.busy.get(sessionId)?.catch(() => undefined);
    const mine = [...this.active.values()].filter((a) => a.row.browser_id === sessionId);
    await Promise.all(mine.map((a) => this.stop(a.row.id, 'session_ended', 'the browser session ended')));
  }

  /** Adds a marker at the current offset, or at the given offset or wall-clock timestamp; `part` names where it came from (`body`). */
  async addMarker(id: string, input: MarkerInput, part: string): Promise<Marker> {
    const entry = this.active.get(id);
    if (!entry || entry.finishing) throw conflict(`replay '${id}' is no longer recording; markers are added while it records`);
    const current = entry.recording.offsetMs();
    let offset = current;
    if (input.offset_ms !== undefined && input.timestamp !== undefined) {
      throw invalidField(`${part}.offset_ms`, 'give either offset_ms or timestamp, not both');
    }
    if (input.offset_ms !== undefined) {
      if (input.offset_ms > current) throw invalidField(`${part}.offset_ms`, `is past the end of the recording so far (${current} ms)`);
      offset = input.offset_ms;
    }
    if (input.timestamp !== undefined) {
      const at = parseTimestamp(input.timestamp, `${part}.timestamp`);
      offset = at - entry.recording.epoch;
      if (offset < 0) throw invalidField(`${part}.timestamp`, `is before the recording started (${entry.row.started_at})`);
      if (offset > current + TIMESTAMP_SLACK_MS) throw invalidField(`${part}.timestamp`, 'is in the future');
      offset = Math.min(Math.round(offset), current);
    }
    const marker: Marker = { name: input.name, offset_ms: offset, created_at: this.deps.now().toISOString() };
    // Started with no await since the check above: a stop that comes now waits for it before finalising.
    const write = this.deps.repo.addMarker(id, marker);
    const tracked = write.catch(() => undefined);
    entry.markerWrites.add(tracked);
    void tracked.then(() => entry.markerWrites.delete(tracked));
    await write;
    return marker;
  }

  /**
   * Replays left unfinished by a service that died: stops a recorder that outlived it, then finalises
   * what the fragmented file holds. Run at start, before requests are served.
   */
  async recover(hostId?: string): Promise<number> {
    const stale = await this.deps.repo.listUnfinished(hostId);
    for (const row of stale) {
      // One bad replay must not keep the service from starting.
      try {
        const rec = this.recordingPath(row.id);
        if (row.recorder_pid && (await isOurFfmpeg(row.recorder_pid, rec))) await stopOrphan(row.recorder_pid);
        const { estimateMs, endMs } = await this.writtenSpan(row);
        await this.finalise(row, estimateMs, endMs, 'service_restart', 'the service stopped while recording; finalised at its next start');
      } catch (err) {
        this.deps.log.warn({ replay_id: row.id, err: (err as Error).message }, 'could not finalise a replay left unfinished');
      }
    }
    return stale.length;
  }

  /** Stops what still records and waits for every finalisation (service shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.active.keys()].map((id) => this.stop(id, 'session_ended', 'the service was stopped')));
    await Promise.all(this.pending);
  }

  /** How far a recording that ended without a stop got: its file was last written at its end. */
  private async writtenSpan(row: ReplayRow): Promise<{ estimateMs: number; endMs: number }> {
    const started = Date.parse(row.started_at);
    const written = await stat(this.recordingPath(row.id)).catch(() => undefined);
    const endMs = written ? Math.max(started, written.mtimeMs) : started;
    return { estimateMs: Math.round(endMs - started), endMs };
  }

  /**
   * Remuxes the fragmented recording into `<id>.mp4` with faststart and chapters. If the remux fails,
   * the fragmented file itself becomes the video: it plays, only without chapters and a front index.
   */
  private async finalise(
    row: ReplayRow,
    estimateMs: number,
    endMs: number,
    reason: ReplayEndReason,
    detail: string | null,
    cut = false,
  ): Promise<ReplayRow> {
    const rec = this.recordingPath(row.id);
    const out = this.videoPath(row.id);
    const problems: string[] = detail ? [detail] : [];
    if (await stat(rec).catch(() => undefined)) {
      const tmp = join(this.deps.dir, `${row.id}.tmp.mp4`);
      const markers = await this.deps.repo.markers(row.id);
      const meta = markers.length ? join(this.deps.dir, `${row.id}.ffmetadata`) : undefined;
      try {
        const { ffmpeg, reason: missing } = await this.lookup();
        if (!ffmpeg) throw new Error(missing);
        if (meta) await writeFile(meta, ffmetadata(markers, estimateMs));
        await remux(ffmpeg.path, rec, tmp, { metadataFile: meta, maxMs: cut ? estimateMs : undefined });
        await rename(tmp, out);
        await rm(rec, { force: true });
      } catch (err) {
        problems.push(`kept the fragmented recording: ${(err as Error).message}`);
        this.deps.log.warn({ replay_id: row.id, err: (err as Error).message }, 'replay remux failed');
        await rm(tmp, { force: true });
        await rename(rec, out).catch(() => undefined);
      } finally {
        if (meta) await rm(meta, { force: true });
      }
    }
    const video = await stat(out).catch(() => undefined);
    if (!video) problems.push('no video was written');
    const duration = video ? ((await mp4DurationMs(out).catch(() => undefined)) ?? estimateMs) : null;
    await this.deps.repo.finish(row.id, {
      finished_at: new Date(endMs).toISOString(),
      duration_ms: duration,
      size_bytes: video?.size ?? null,
      end_reason: reason,
      end_detail: problems.join('; ') || null,
    });
    this.deps.log.info({ replay_id: row.id, reason, duration_ms: duration }, 'replay finished');
    return (await this.deps.repo.get(row.id)) ?? row;
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    void work.catch(() => undefined).finally(() => this.pending.delete(work));
    return work;
  }
}

function describeExit(exit: ExitInfo): string {
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return `ffmpeg ${how} while recording; the video keeps what it had written`;
}

/** ISO 8601 with a date, a time and a zone (`Z` or an offset), as the wire's date-times are. */
function parseTimestamp(text: string, field: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw invalidField(field, 'must be an ISO 8601 date-time with a zone, e.g. 2026-01-02T03:04:05.678Z');
  return ms;
}

/** A recorded pid may have been reused: only an ffmpeg writing this replay's file is ours. */
async function isOurFfmpeg(pid: number, file: string): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0').includes(file);
}

/** SIGTERM lets ffmpeg close its file; an x11grab recorder outlives the service that started it. */
async function stopOrphan(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // gone
    }
  };
  signal('SIGTERM');
  for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive()) signal('SIGKILL');
}
