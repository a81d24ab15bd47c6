// Frames of a headless session: CDP screencast of the page being driven, paced by our own clock.
//
// Chromium sends a screencast frame only when the page repaints (up to 60 per second while animating,
// none on a static page), so its frames cannot be the video's clock. The clock here writes the latest
// frame into ffmpeg exactly `framerate` times per second of wall time, catching up after event-loop
// stalls: the video's duration is the wall time recorded, whatever Chromium sends, and ffmpeg never
// decodes the frames a fast animation produces beyond the framerate.
import type { Writable } from 'node:stream';
import { CdpConnection, startScreencast } from '../browser/index.js';

interface TargetInfo {
  targetId: string;
  type: string;
}

/** The page screencast: keeps the latest JPEG, follows the newest page when tabs open and close. */
export class ScreencastFeed {
  latest: Buffer | undefined;
  private readonly pages: string[] = [];
  private current: { targetId: string; sessionId: string } | undefined;
  private switching: Promise<void> = Promise.resolve();
  private closed = false;
  private firstFrame: (() => void) | undefined;
  /** Screencast frames received: a screenshot taken before one arrived must not replace it. */
  private frames = 0;

  private constructor(
    private cdp: CdpConnection,
    private readonly size: { width: number; height: number },
  ) {}

  /** Connects and starts the screencast; resolves once a first frame is in hand. */
  static async start(wsEndpoint: string, size: { width: number; height: number }, timeoutMs = 5000): Promise<ScreencastFeed> {
    const feed = new ScreencastFeed(await CdpConnection.connect(wsEndpoint), size);
    try {
      await feed.begin(timeoutMs);
      return feed;
    } catch (err) {
      feed.close();
      throw err;
    }
  }

  private async begin(timeoutMs: number): Promise<void> {
    const { cdp } = this;
    const gotFrame = new Promise<void>((resolve) => (this.firstFrame = resolve));
    cdp.on('Page.screencastFrame', (p: { data: string; sessionId: number }, sessionId?: string) => {
      // Unacknowledged frames stop the stream, so every frame is acknowledged, even a stale tab's.
      void cdp.send('Page.screencastFrameAck', { sessionId: p.sessionId }, sessionId).catch(() => {});
      if (sessionId !== this.current?.sessionId) return;
      this.latest = Buffer.from(p.data, 'base64');
      this.frames++;
      this.firstFrame?.();
    });
    cdp.on('Target.targetCreated', ({ targetInfo }: { targetInfo: TargetInfo }) => {
      if (targetInfo.type !== 'page' || this.pages.includes(targetInfo.targetId)) return;
      this.pages.push(targetInfo.targetId);
      // A page opened while recording is the one being driven now (a new tab, a popup): follow it.
      if (this.current) this.follow();
    });
    cdp.on('Target.targetDestroyed', ({ targetId }: { targetId: string }) => {
      const i = this.pages.indexOf(targetId);
      if (i >= 0) this.pages.splice(i, 1);
      if (this.current?.targetId === targetId) {
        this.current = undefined;
        this.follow();
      }
    });
    // Reports every existing target as targetCreated, in creation order; getTargets covers a browser
    // that answers before those events arrive.
    await cdp.send('Target.setDiscoverTargets', { discover: true });
    if (!this.pages.length) {
      const { targetInfos } = await cdp.send<{ targetInfos: TargetInfo[] }>('Target.getTargets');
      for (const t of targetInfos) if (t.type === 'page' && !this.pages.includes(t.targetId)) this.pages.push(t.targetId);
    }
    if (!this.pages.length) throw new Error('the browser has no page to record');
    this.follow();
    await this.switching;
    // A page that does not repaint may send nothing at first; a screenshot stands in for its first frame.
    if (!(await within(gotFrame, Math.min(1500, timeoutMs)))) {
      const target = this.current;
      if (!target) throw new Error('the page to record went away');
      const shot = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'jpeg', quality: 80 }, target.sessionId);
      this.latest ??= Buffer.from(shot.data, 'base64');
    }
  }

  /** Moves the screencast to the newest page, one switch at a time. */
  private follow(): void {
    this.switching = this.switching.then(async () => {
      const targetId = this.pages[this.pages.length - 1];
      if (this.closed || !targetId || this.current?.targetId === targetId) return;
      const previous = this.current;
      let sessionId: string;
      try {
        ({ sessionId } = await this.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true }));
      } catch {
        // The page closed while we attached; targetDestroyed moves on to the next one.
        return;
      }
      this.current = { targetId, sessionId };
      if (!(await this.startScreencast(targetId, sessionId))) return;
      if (previous) void this.cdp.send('Target.detachFromTarget', { sessionId: previous.sessionId }).catch(() => {});
      void this.stillFrame(sessionId);
    });
  }

  private startScreencast(targetId: string, sessionId: string): Promise<boolean> {
    const params = { format: 'jpeg', quality: 80, maxWidth: this.size.width, maxHeight: this.size.height, everyNthFrame: 1 } as const;
    return startScreencast(this.cdp, sessionId, params, () => !this.closed && this.current?.sessionId === sessionId && this.pages.includes(targetId));
  }

  /**
   * A page that painted before its screencast started sends no frame until it paints again (a static page
   * never does), and the video would go on showing the tab it left: a screenshot of the page stands in
   * until a screencast frame comes, and never replaces one that came first.
   */
  private async stillFrame(sessionId: string): Promise<void> {
    const before = this.frames;
    const shot = await this.cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'jpeg', quality: 80 }, sessionId).catch(() => undefined);
    if (shot && this.current?.sessionId === sessionId && this.frames === before) this.latest = Buffer.from(shot.data, 'base64');
  }

  /**
   * Brings the latest frame up to the screen as it is now, before a stop: a tab switch under way is
   * finished and the followed page is captured, so the video ends on what the page showed at the stop
   * even when its last paint sent no screencast frame. Bounded, since a hung page answers nothing.
   */
  async settle(timeoutMs: number): Promise<void> {
    await within(
      (async () => {
        await this.switching;
        if (this.current && !this.closed) await this.stillFrame(this.current.sessionId);
      })(),
      timeoutMs,
    );
  }

  /**
   * Follows a new Chromium of the same session (it was restarted): the last frame stands in the video
   * until the new browser's page paints.
   */
  async reconnect(wsEndpoint: string): Promise<void> {
    if (this.closed) return;
    const cdp = await CdpConnection.connect(wsEndpoint);
    if (this.closed) return cdp.close();
    this.cdp.close();
    this.cdp = cdp;
    this.pages.length = 0;
    this.current = undefined;
    this.switching = Promise.resolve();
    await this.begin(5000);
  }

  close(): void {
    this.closed = true;
    this.cdp.close();
  }
}

/** Writes `frame()` into `out` at `framerate` per second of wall time from `epoch` on. */
export class FrameClock {
  /** Frames written so far; frame k covers epoch + [k, k+1) / framerate of wall time. */
  written = 0;
  private timer: NodeJS.Timeout | undefined;
  private warned = false;

  constructor(
    private readonly out: Writable,
    private readonly framerate: number,
    private readonly frame: () => Buffer | undefined,
    readonly epoch: number,
    private readonly onBacklog: () => void,
  ) {}

  start(): void {
    this.tick();
  }

  /** Writes every frame whose time slot has passed, then schedules the next one when its slot ends. */
  private tick(): void {
    this.catchUp(Date.now());
    const next = this.epoch + ((this.written + 1) * 1000) / this.framerate;
    this.timer = setTimeout(() => this.tick(), Math.max(1, next - Date.now()));
  }

  /**
   * Frame k covers [k, k+1) / framerate and is written once that slot has passed, with the frame in hand
   * then; `final` also writes the slot `now` falls in, so the video ends at `now` on the latest frame.
   */
  catchUp(now: number, final = false): void {
    const due = Math.floor(((now - this.epoch) * this.framerate) / 1000) + (final ? 1 : 0);
    const frame = this.frame();
    if (!frame) return;
    while (this.written < due) {
      // An ffmpeg far behind (a starved CPU) must not grow the service's memory without bound: frames
      // are dropped (the video gets shorter than the wall time) and that is logged once.
      if (this.out.writableLength > 64 * 1024 * 1024) {
        if (!this.warned) this.onBacklog();
        this.warned = true;
        this.written = due;
        return;
      }
      this.out.write(frame);
      this.written++;
    }
  }

  /** Stops writing on time; `stop` then writes what is owed. */
  pause(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Writes the frames owed up to `now` and stops: the video then ends at `now`. */
  stop(now = Date.now()): void {
    this.pause();
    this.catchUp(now, true);
  }

  /** The video's length so far in milliseconds. */
  get durationMs(): number {
    return Math.round((this.written * 1000) / this.framerate);
  }
}

async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ok = await Promise.race([p.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]);
  clearTimeout(timer);
  return ok;
}
