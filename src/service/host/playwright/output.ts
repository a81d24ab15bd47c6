// What one Playwright job printed. The worker outlives its jobs, so each job's output ends at a marker
// the worker writes after the job (see worker-source.ts); bytes past the cap are drained and
// counted, never held.

/** One stream of one job: collects up to the marker, keeps the first `limit` bytes of that. */
export class JobOutput {
  readonly text: CappedText;
  /** Resolves when the marker has been seen. */
  readonly ended: Promise<void>;
  private endedResolve!: () => void;
  private done = false;
  /** Bytes that may be the start of a marker split across reads. */
  private pending = Buffer.alloc(0);

  constructor(
    private readonly marker: Buffer,
    limit: number,
    name: string,
  ) {
    this.text = new CappedText(limit, name);
    this.ended = new Promise((resolve) => (this.endedResolve = resolve));
  }

  get complete(): boolean {
    return this.done;
  }

  push(data: Buffer): void {
    if (this.done) return;
    const buf = this.pending.length ? Buffer.concat([this.pending, data]) : data;
    const at = buf.indexOf(this.marker);
    if (at >= 0) {
      this.text.push(buf.subarray(0, at));
      this.pending = Buffer.alloc(0);
      this.done = true;
      this.endedResolve();
      return;
    }
    const safe = Math.max(0, buf.length - (this.marker.length - 1));
    this.text.push(buf.subarray(0, safe));
    this.pending = Buffer.from(buf.subarray(safe));
  }

  /** The output so far, for a job that ended without its marker (killed, exited). */
  finish(): string {
    if (!this.done) {
      this.text.push(this.pending);
      this.pending = Buffer.alloc(0);
      this.done = true;
    }
    return this.text.toString();
  }
}

/** Keeps the first `limit` bytes of a stream and counts the rest, which is dropped. */
export class CappedText {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;

  constructor(
    private readonly limit: number,
    private readonly name: string,
  ) {}

  push(data: Buffer): void {
    const room = this.limit - this.kept;
    const part = data.length <= room ? data : data.subarray(0, Math.max(0, room));
    if (part.length) {
      // A copy: `data` may be a view of a larger buffer that must not be kept alive.
      this.chunks.push(Buffer.from(part));
      this.kept += part.length;
    }
    this.dropped += data.length - part.length;
  }

  toString(): string {
    const buf = Buffer.concat(this.chunks);
    if (!this.dropped) return buf.toString('utf8');
    const kept = buf.subarray(0, utf8Boundary(buf)).toString('utf8');
    return `${kept}\n[${this.name} truncated: ${this.dropped} more bytes after the first ${this.limit} were dropped]`;
  }
}

/** The length of `buf` without a multi-byte character the cut left incomplete. */
export function utf8Boundary(buf: Buffer): number {
  for (let i = buf.length - 1; i >= Math.max(0, buf.length - 4); i--) {
    const byte = buf[i]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return i + need > buf.length ? i : buf.length;
  }
  return buf.length;
}
