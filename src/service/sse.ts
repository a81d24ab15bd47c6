// Server-sent events as the hosted API frames them: one JSON object per `data:` line. Keep-alives are SSE
// comments, which clients (the hosted SDK included) skip, so they never show up as events.
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface SseStream {
  /** Writes one event, with an `id:` line when given (resumable streams); returns false once the client has gone. */
  send(data: unknown, id?: string | number): boolean;
  close(): void;
  /** Resolves when the client disconnects or close() is called. */
  readonly closed: Promise<void>;
  readonly isClosed: boolean;
}

export function openSse(req: FastifyRequest, reply: FastifyReply, keepAliveMs = 15_000): SseStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-sse-content-type': 'application/json',
    'x-request-id': String(req.id),
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  let isClosed = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const timer = setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs);
  timer.unref();
  const finish = () => {
    if (isClosed) return;
    isClosed = true;
    clearInterval(timer);
    resolveClosed();
  };
  res.on('close', finish);
  return {
    send(data, id) {
      if (isClosed) return false;
      // On the hosted wire only, the frame without fields of ours (strict-wire.ts).
      const frame = req.frameOnWire ? req.frameOnWire(data) : data;
      res.write(`${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(frame)}\n\n`);
      return true;
    },
    close() {
      if (!isClosed) res.end();
      finish();
    },
    closed,
    get isClosed() {
      return isClosed;
    },
  };
}
