// One recording: an ffmpeg writing fragmented H.264 MP4, fed by a CDP screencast (headless) or
// grabbing the X display itself (headful). Knows the wall time of the video's t=0 (`epoch`), so marker
// offsets and durations are measured on the video's own timeline.
import { fragmentedH264Args, FfmpegProcess, type ExitInfo, type Ffmpeg } from './ffmpeg.js';
import { FrameClock, ScreencastFeed } from './recorder-cdp.js';
import { X11_START, x11grabArgs } from './recorder-x11.js';

export type RecordingSource =
  | { kind: 'screencast'; wsEndpoint: string; width: number; height: number }
  | { kind: 'x11'; display: string; width: number; height: number };

export interface RecordingOptions {
  ffmpeg: Ffmpeg;
  /** Where the fragmented MP4 is written while recording. */
  file: string;
  framerate: number;
  source: RecordingSource;
  /** Told once when frames had to be dropped because ffmpeg fell far behind. */
  onBacklog?: () => void;
}

const START_TIMEOUT_MS = 15_000;
/** How long a stop waits for the page's final look (a tab switch, a screenshot) before ending the video. */
const SETTLE_TIMEOUT_MS = 2_000;

export class Recording {
  /** Resolves when ffmpeg exits, asked to or not. */
  readonly exited: Promise<ExitInfo>;
  private stopping: Promise<ExitInfo> | undefined;
  private stoppedAt: number | undefined;

  /** Use Recording.start. */
  constructor(
    private readonly proc: FfmpegProcess,
    /** Wall-clock milliseconds of the video's first frame. */
    readonly epoch: number,
    private readonly clock?: FrameClock,
    private readonly feed?: ScreencastFeed,
  ) {
    this.exited = proc.exited;
    // Whatever ends ffmpeg, the screencast and its clock end with it.
    void proc.exited.then(() => {
      this.clock?.stop(this.stoppedAt ?? Date.now());
      this.feed?.close();
    });
  }

  static async start(opts: RecordingOptions): Promise<Recording> {
    return opts.source.kind === 'x11' ? startX11(opts, opts.source) : startScreencast(opts, opts.source);
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** Whether ffmpeg has exited, asked to or not. */
  get hasExited(): boolean {
    return this.proc.child.exitCode !== null || this.proc.child.signalCode !== null;
  }

  /** Whether ffmpeg was asked to stop (as opposed to dying on its own). */
  get stopRequested(): boolean {
    return this.stopping !== undefined;
  }

  /** Milliseconds of video so far at wall time `now`. */
  offsetMs(now = Date.now()): number {
    return Math.max(0, Math.round((this.stoppedAt ?? now) - this.epoch));
  }

  /** The video's length: exact for the screencast (frames written), the wall time for x11grab. */
  durationMs(): number {
    return this.clock ? this.clock.durationMs : this.offsetMs();
  }

  /** Ends the recording so ffmpeg closes its file; resolves with how ffmpeg exited. Idempotent. */
  stop(): Promise<ExitInfo> {
    this.stopping ??= (async () => {
      this.stoppedAt ??= Date.now();
      if (this.clock) {
        // The frames owed up to the stop show the screen as it was then, and the video ends exactly there.
        this.clock.pause();
        await this.feed?.settle(SETTLE_TIMEOUT_MS);
        this.clock.stop(this.stoppedAt);
        this.feed?.close();
        return this.proc.finish(() => this.proc.child.stdin!.end());
      }
      return this.proc.finish(() => this.proc.child.stdin!.write('q'));
    })();
    return this.stopping;
  }

  /** A screencast follows the session's new Chromium (a restart); x11grab records the screen, whoever draws on it. */
  async reconnect(wsEndpoint: string): Promise<void> {
    await this.feed?.reconnect(wsEndpoint);
  }

  /** Kills ffmpeg at once (a failed start); the file holds whatever fragments were written. */
  kill(): void {
    this.stoppedAt ??= Date.now();
    this.proc.signal('SIGKILL');
  }

  tail(): string {
    return this.proc.tail();
  }
}

async function startX11(opts: RecordingOptions, source: Extract<RecordingSource, { kind: 'x11' }>): Promise<Recording> {
  const proc = new FfmpegProcess(opts.ffmpeg.path, x11grabArgs(source.display, source.width, source.height, opts.framerate, opts.file));
  try {
    const started = await proc.waitFor(X11_START, START_TIMEOUT_MS);
    await proc.waitFor(/^Output #0/m, START_TIMEOUT_MS);
    return new Recording(proc, Math.round(Number(started[1]) * 1000));
  } catch (err) {
    proc.signal('SIGKILL');
    throw err;
  }
}

async function startScreencast(opts: RecordingOptions, source: Extract<RecordingSource, { kind: 'screencast' }>): Promise<Recording> {
  const width = source.width - (source.width % 2);
  const height = source.height - (source.height % 2);
  const feed = await ScreencastFeed.start(source.wsEndpoint, { width, height });
  const proc = new FfmpegProcess(opts.ffmpeg.path, [
    '-hide_banner', '-nostats', '-loglevel', 'info',
    // Frames arrive exactly `framerate` per second (the clock), so their count is the timeline.
    '-probesize', '32', '-analyzeduration', '0', '-f', 'image2pipe', '-c:v', 'mjpeg', '-framerate', String(opts.framerate), '-i', 'pipe:0',
    // A tab of another size (a popup) is scaled into the same frame: an encoder cannot change size.
    '-vf', `scale=${width}:${height}:flags=fast_bilinear`,
    ...fragmentedH264Args(opts.framerate, opts.file),
  ]);
  const clock = new FrameClock(proc.child.stdin!, opts.framerate, () => feed.latest, Date.now(), () => opts.onBacklog?.());
  clock.start();
  const recording = new Recording(proc, clock.epoch, clock, feed);
  try {
    await proc.waitFor(/^Output #0/m, START_TIMEOUT_MS);
    return recording;
  } catch (err) {
    recording.kill();
    throw err;
  }
}
