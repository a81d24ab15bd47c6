// Reads an SSE response frame by frame: the `id:` and JSON `data:` of each, plus whether the stream ended.
export interface SseFrame<T> {
  id?: string;
  data: T;
}

export class SseReader<T = any> {
  readonly frames: SseFrame<T>[] = [];
  /** Comment lines (keep-alives) seen. */
  comments = 0;
  readonly ended: Promise<void>;
  private done = false;
  private wake: () => void = () => {};

  static async open<T = any>(url: string, headers: Record<string, string>): Promise<{ res: Response; reader?: SseReader<T>; body?: any }> {
    const ctl = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ctl.signal });
    if (!res.headers.get('content-type')?.startsWith('text/event-stream')) return { res, body: await res.json().catch(() => undefined) };
    return { res, reader: new SseReader<T>(res, ctl) };
  }

  constructor(res: Response, private readonly ctl: AbortController = new AbortController()) {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    this.ended = (async () => {
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | undefined;
          let data: string | undefined;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) this.comments++;
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('data: ')) data = line.slice(6);
          }
          if (data !== undefined) this.frames.push({ id, data: JSON.parse(data) as T });
          this.wake();
        }
      }
      this.done = true;
      this.wake();
    })();
  }

  get isDone(): boolean {
    return this.done;
  }

  /** Resolves with the first frame whose data matches, waiting up to `ms`. */
  async waitFor(match: (data: T) => boolean, ms = 10_000): Promise<SseFrame<T>> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.find((f) => match(f.data));
      if (found) return found;
      if (this.done) throw new Error(`stream ended without a matching frame; got ${JSON.stringify(this.frames.map((f) => f.data)).slice(0, 2000)}`);
      if (Date.now() > deadline) throw new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(this.frames.map((f) => f.data)).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  }

  close(): void {
    this.ctl.abort();
  }
}
