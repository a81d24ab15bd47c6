// `source=path` of the logs stream: a file in the session's view, read like `tail -F`. The recent part
// that exists is sent first, then (with follow) lines appended later; the path is followed by name, so a
// file rotated away, truncated or not yet created is picked up again. Polling, not inotify: it works the
// same on every file system and in the sandboxed view, and 200 ms is well inside what a log reader needs.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { DomainError, invalidField } from '../errors.js';
import { ConfinedWalk, withWalk, type Existing, checkClientPath, fsError, type HostView } from '../fs/index.js';
import { MAX_LINE_CHARS } from './logs.js';

/** How much of an existing file is sent when a stream opens. */
const INITIAL_BYTES = 256 * 1024;
const POLL_MS = 200;
const READ_CHUNK = 1024 * 1024;

export interface TailSink {
  line(message: string): void;
  end(): void;
}

export class FileTail {
  private handle: FileHandle | undefined;
  private identity = '';
  private pos = 0;
  private partial = '';
  private decoder = new StringDecoder('utf8');
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private busy = false;

  private constructor(
    private readonly view: HostView,
    private readonly clientPath: string,
    private readonly follow: boolean,
    private readonly sink: TailSink,
  ) {}

  /**
   * Checks the path (400 outside the view or for a directory; 404 when missing and not following),
   * then starts sending to `sink`. `field` names where the path came from (`querystring.path`).
   */
  static async start(view: HostView, clientPath: string, field: string, follow: boolean, sink: TailSink): Promise<FileTail> {
    checkClientPath(clientPath, field);
    const info = await withWalk(view.root, (walk) => walk.existing(clientPath).stats).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
      throw fsError(err, field, clientPath);
    });
    if (info?.isDirectory()) throw invalidField(field, 'is a directory, not a file');
    if (!info && !follow) throw new DomainError('not_found', 'not_found', `file '${clientPath}' not found`);
    const tail = new FileTail(view, clientPath, follow, sink);
    await tail.poll(true);
    if (!follow) {
      tail.flushPartial();
      tail.stop();
      sink.end();
    } else {
      tail.schedule();
    }
    return tail;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    void this.handle?.close().catch(() => {});
    this.handle = undefined;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll(false).finally(() => this.schedule()), POLL_MS);
    this.timer.unref();
  }

  /** One look at the path: (re)open it when it is new or replaced, then read what was appended. */
  private async poll(first: boolean): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    // Walked inside the view each time (a link leading out is missing, never followed) and opened through
    // the walk's pinned path, so a swap between the look and the open cannot reach the host.
    const walk = ConfinedWalk.open(this.view.root);
    try {
      let found: Existing;
      try {
        found = walk.existing(this.clientPath);
      } catch {
        return;
      }
      const info = found.stats;
      if (!info.isFile()) return;
      const identity = `${info.dev}:${info.ino}`;
      if (identity !== this.identity) {
        // Rotated: what was appended to the old file before it moved is still sent, as tail -F does.
        if (this.handle) await this.readTo((await this.handle.stat().catch(() => ({ size: 0 }))).size).catch(() => {});
        await this.handle?.close().catch(() => {});
        this.handle = await open(found.path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
        if (!this.handle) return;
        this.flushPartial();
        this.identity = identity;
        this.decoder = new StringDecoder('utf8');
        // A file that existed when the stream opened starts at its recent part; a new one from its start.
        this.pos = first ? Math.max(0, info.size - INITIAL_BYTES) : 0;
        if (this.pos > 0) await this.skipToLineStart();
      }
      if (info.size < this.pos) {
        // Truncated in place (`> file`): start over, as tail does.
        this.flushPartial();
        this.pos = 0;
      }
      await this.readTo(info.size);
    } finally {
      walk.close();
      this.busy = false;
    }
  }

  /** Starting mid-file, the first line would be a fragment: skip to just after the next newline. */
  private async skipToLineStart(): Promise<void> {
    const buf = Buffer.alloc(Math.min(READ_CHUNK, MAX_LINE_CHARS * 4));
    const { bytesRead } = await this.handle!.read(buf, 0, buf.length, this.pos - 1);
    const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
    if (nl >= 0) this.pos += nl;
  }

  private async readTo(size: number): Promise<void> {
    const buf = Buffer.alloc(READ_CHUNK);
    while (this.pos < size && !this.stopped && this.handle) {
      const { bytesRead } = await this.handle.read(buf, 0, Math.min(buf.length, size - this.pos), this.pos);
      if (bytesRead <= 0) break;
      this.pos += bytesRead;
      this.push(this.decoder.write(buf.subarray(0, bytesRead)));
    }
  }

  private push(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const part of parts) this.emit(part);
    if (this.partial.length > MAX_LINE_CHARS) {
      this.emit(this.partial);
      this.partial = '';
    }
  }

  private emit(line: string): void {
    for (let i = 0; i === 0 || i < line.length; i += MAX_LINE_CHARS) this.sink.line(line.slice(i, i + MAX_LINE_CHARS));
  }

  private flushPartial(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest) this.emit(rest);
  }
}
