// Server-sent event streams of the API (deployment and invocation events, logs): each `data:` line holds
// one JSON object. The stream has no overall timeout (it lasts as long as what it follows); only the wait
// for the response headers is bounded.
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ApiConnectionError, ApiTimeoutError, errorFromResponse } from './errors.js';

export interface EventStreamRequest {
  url: string;
  headers: Headers;
  /** Names the request in errors. */
  path: string;
  secrets: string[];
  connectTimeoutMs: number;
  signal?: AbortSignal;
  fetch: typeof fetch;
}

/** The JSON objects of an SSE response, until the server ends it or `signal` aborts. */
export async function* readEventStream<T>(req: EventStreamRequest): AsyncIterableIterator<T> {
  const ctx = { method: 'GET', path: req.path, secrets: req.secrets };
  const connect = new AbortController();
  const timer = setTimeout(() => connect.abort(), req.connectTimeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, connect.signal]) : connect.signal;
  let res: Response;
  try {
    res = await req.fetch(req.url, { headers: req.headers, signal });
  } catch (cause) {
    if (req.signal?.aborted) throw req.signal.reason;
    if (connect.signal.aborted) throw new ApiTimeoutError({ ...ctx, timeoutMs: req.connectTimeoutMs });
    throw new ApiConnectionError({ ...ctx, cause });
  } finally {
    clearTimeout(timer);
  }
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    throw errorFromResponse({ ...ctx, status: res.status, statusText: res.statusText, headers: res.headers, text });
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      let next: ReadableStreamReadResult<{ data: string }>;
      try {
        next = await reader.read();
      } catch (cause) {
        if (req.signal?.aborted) throw req.signal.reason;
        throw new ApiConnectionError({ ...ctx, cause });
      }
      if (next.done) return;
      if (next.value.data) yield JSON.parse(next.value.data) as T;
    }
  } finally {
    // A consumer that stops early (break) closes the connection.
    await reader.cancel().catch(() => {});
  }
}
