// A spawned process's output on its way to stream clients. Output is never held whole: a bounded replay
// buffer keeps the most recent bytes for clients that connect late, and while any connected client is
// backlogged the process's pipes are paused, so a slow reader slows the process down (as a pipe would)
// instead of growing the service's memory.

export type StreamName = 'stdout' | 'stderr';

export interface OutputChunk {
  stream: StreamName;
  data: Buffer;
}

export interface OutputSubscriber {
  /** Delivers a chunk; returns false when the client is backlogged (call `unblock` once it drains). */
  write(chunk: OutputChunk): boolean;
  /** All output has been delivered and the process has exited. */
  end(exitCode: number): void;
}

export interface FlowControl {
  pause(): void;
  resume(): void;
}

export const REPLAY_BYTES = 1024 * 1024;

export class OutputLog {
  private readonly chunks: OutputChunk[] = [];
  private bytes = 0;
  private readonly subscribers = new Set<OutputSubscriber>();
  private readonly blocked = new Set<OutputSubscriber>();
  private paused = false;
  private exitCode: number | undefined;

  constructor(
    private readonly flow: FlowControl,
    private readonly limit = REPLAY_BYTES,
  ) {}

  get finished(): boolean {
    return this.exitCode !== undefined;
  }

  get bufferedBytes(): number {
    return this.bytes;
  }

  append(chunk: OutputChunk): void {
    if (chunk.data.length === 0) return;
    this.remember(chunk);
    for (const sub of this.subscribers) this.deliver(sub, chunk);
  }

  /** Replays what is buffered, then follows live output; a finished log ends right after the replay. */
  subscribe(sub: OutputSubscriber): () => void {
    for (const chunk of this.chunks) this.deliver(sub, chunk);
    if (this.exitCode !== undefined) {
      sub.end(this.exitCode);
      return () => {};
    }
    this.subscribers.add(sub);
    return () => this.unsubscribe(sub);
  }

  unblock(sub: OutputSubscriber): void {
    this.blocked.delete(sub);
    this.updateFlow();
  }

  finish(exitCode: number): void {
    if (this.exitCode !== undefined) return;
    this.exitCode = exitCode;
    for (const sub of this.subscribers) sub.end(exitCode);
    this.subscribers.clear();
    this.blocked.clear();
    this.updateFlow();
  }

  private unsubscribe(sub: OutputSubscriber): void {
    this.subscribers.delete(sub);
    this.blocked.delete(sub);
    this.updateFlow();
  }

  private deliver(sub: OutputSubscriber, chunk: OutputChunk): void {
    if (!sub.write(chunk)) {
      this.blocked.add(sub);
      this.updateFlow();
    }
  }

  private remember(chunk: OutputChunk): void {
    let data = chunk.data;
    if (data.length > this.limit) data = data.subarray(data.length - this.limit);
    this.chunks.push({ stream: chunk.stream, data });
    this.bytes += data.length;
    while (this.bytes > this.limit) {
      const first = this.chunks[0]!;
      const excess = this.bytes - this.limit;
      if (first.data.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.data.length;
      } else {
        first.data = first.data.subarray(excess);
        this.bytes -= excess;
      }
    }
  }

  private updateFlow(): void {
    const shouldPause = this.blocked.size > 0 && this.exitCode === undefined;
    if (shouldPause === this.paused) return;
    this.paused = shouldPause;
    if (shouldPause) this.flow.pause();
    else this.flow.resume();
  }
}
