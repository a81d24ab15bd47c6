// The one HTTP transport for the Browser Cloud API (embedded service, `bcs serve`, or the hosted
// Kernel API). Resources build on `request`; nothing else in the project should call fetch
// against the API, so auth, retries, timeouts and error shapes stay uniform.

import { BrowsersResource } from './browsers.js';
import type { ApiResponse, HttpMethod, RequestOptions, Requester } from './requester.js';
import { ApiConnectionError, ApiError, ApiTimeoutError, errorFromResponse } from './errors.js';
import { readEventStream } from './events.js';
import { paginateOffset } from './pagination.js';
import { buildUrl, normalizeBaseUrl } from './query.js';
import { DEFAULT_RETRY_BASE_MS, isRetryableResponse, retryDelayMs, sleep } from './retry.js';

export interface ClientOptions {
  /** e.g. `https://api.onkernel.com/` or `http://127.0.0.1:8080/prefix`; a trailing slash is optional. */
  baseUrl: string;
  apiKey: string;
  /** Per attempt, covering the response body too. Default 60 000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Sent as `X-Kernel-Project-Id`. */
  projectId?: string;
  userAgent?: string;
  fetch?: typeof fetch;
  /**
   * First backoff step when the server gives no retry hint (doubles per retry, capped at 8 s).
   * Default 500. Meant for tests and tuning; production callers should leave it alone.
   */
  retryBaseMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_USER_AGENT = 'browser-scenarios-cloud-client';
/** setTimeout fires immediately beyond this, which would turn a long timeout into none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What one attempt produced: a response to return, or an error plus whether to try again. */
type Attempt<T> =
  | { ok: true; response: ApiResponse<T> }
  | { ok: false; error: ApiError; retryable: boolean; headers?: Headers };

export class CloudClient implements Requester {
  readonly baseUrl: string;
  readonly browsers: BrowsersResource;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #projectId: string | undefined;
  readonly #userAgent: string;
  readonly #fetch: typeof fetch;
  readonly #retryBaseMs: number;

  constructor(opts: ClientOptions) {
    if (typeof opts.apiKey !== 'string' || opts.apiKey === '') throw new TypeError('apiKey is required');
    this.baseUrl = normalizeBaseUrl(opts.baseUrl);
    this.#apiKey = opts.apiKey;
    this.#timeoutMs = checkTimeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.#maxRetries = checkRetries(opts.maxRetries ?? DEFAULT_MAX_RETRIES);
    this.#projectId = opts.projectId || undefined;
    this.#userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.#fetch = opts.fetch ?? globalThis.fetch;
    this.#retryBaseMs = opts.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    if (!(this.#retryBaseMs >= 0)) throw new TypeError('retryBaseMs must be >= 0');
    this.browsers = new BrowsersResource(this);
  }

  async request<T>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const relPath = path.startsWith('/') ? path : `/${path}`;
    const url = buildUrl(this.baseUrl, relPath, opts.query);
    const maxRetries = opts.maxRetries === undefined ? this.#maxRetries : checkRetries(opts.maxRetries);
    const timeoutMs = opts.timeoutMs === undefined ? this.#timeoutMs : checkTimeout(opts.timeoutMs, 'timeoutMs');
    const init = this.#buildInit(method, opts);

    for (let attempt = 0; ; attempt++) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const outcome = await this.#attempt<T>(method, relPath, url, init, timeoutMs, opts.signal, opts.responseType === 'bytes');
      if (outcome.ok) return outcome.response;
      if (!outcome.retryable || attempt >= maxRetries) throw outcome.error;
      await sleep(retryDelayMs(outcome.headers, attempt, this.#retryBaseMs), opts.signal);
    }
  }

  /** Iterates every item of an offset-paginated list (`offset`/`limit`, `X-Has-More`, `X-Next-Offset`). */
  paginate<T>(path: string, query?: Record<string, unknown>, pageSize?: number): AsyncIterableIterator<T> {
    return paginateOffset<T>(this, path, query, pageSize);
  }

  /**
   * Follows a server-sent event stream (`GET …/events`), yielding each frame's JSON until the server ends
   * it. Not retried: a follow that broke is resumed by the caller with `since`.
   */
  events<T>(path: string, opts: { query?: Record<string, unknown>; signal?: AbortSignal } = {}): AsyncIterableIterator<T> {
    const relPath = path.startsWith('/') ? path : `/${path}`;
    const headers = new Headers(this.#buildInit('GET', {}).headers);
    headers.set('Accept', 'text/event-stream');
    return readEventStream<T>({
      url: buildUrl(this.baseUrl, relPath, opts.query),
      headers,
      path: relPath,
      secrets: [this.#apiKey],
      connectTimeoutMs: this.#timeoutMs,
      signal: opts.signal,
      fetch: this.#fetch,
    });
  }

  async #attempt<T>(
    method: HttpMethod,
    path: string,
    url: string,
    init: RequestInit,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
    wantBytes: boolean,
  ): Promise<Attempt<T>> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
    const ctx = { method, path, secrets: [this.#apiKey] };
    // One classifier for failures before and during the body: a stalled body is as much a
    // timeout as a stalled connect, and a reset mid-body is a connection error.
    const failed = (cause: unknown): Attempt<T> => {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (timeout.signal.aborted) return { ok: false, retryable: true, error: new ApiTimeoutError({ ...ctx, timeoutMs }) };
      return { ok: false, retryable: true, error: new ApiConnectionError({ ...ctx, cause }) };
    };
    try {
      let res: Response;
      let bytes: Uint8Array;
      try {
        res = await this.#fetch(url, { ...init, signal });
        bytes = new Uint8Array(await res.arrayBuffer());
      } catch (cause) {
        return failed(cause);
      }
      const requestId = res.headers.get('x-request-id') ?? undefined;
      if (res.ok && wantBytes) return { ok: true, response: { status: res.status, headers: res.headers, data: bytes as T, requestId } };
      const text = new TextDecoder().decode(bytes);
      if (!res.ok) {
        const error = errorFromResponse({ ...ctx, status: res.status, statusText: res.statusText, headers: res.headers, text });
        return { ok: false, error, retryable: isRetryableResponse(res.status, res.headers), headers: res.headers };
      }
      const data = decodeBody<T>(text, res, { ...ctx, requestId });
      return { ok: true, response: { status: res.status, headers: res.headers, data, requestId } };
    } finally {
      clearTimeout(timer);
    }
  }

  #buildInit(method: HttpMethod, opts: RequestOptions): RequestInit {
    const headers = new Headers({
      Accept: 'application/json',
      'User-Agent': this.#userAgent,
      Authorization: `Bearer ${this.#apiKey}`,
    });
    if (this.#projectId) headers.set('X-Kernel-Project-Id', this.#projectId);
    let body: BodyInit | undefined;
    if (opts.body !== undefined) {
      if (isRawBody(opts.body)) body = opts.body;
      else {
        body = JSON.stringify(opts.body);
        headers.set('Content-Type', 'application/json');
      }
    }
    for (const [k, v] of Object.entries(opts.headers ?? {})) headers.set(k, v);
    return { method, headers, body };
  }
}

function decodeBody<T>(
  text: string,
  res: Response,
  ctx: { method: string; path: string; secrets: string[]; requestId: string | undefined },
): T {
  if (res.status === 204 || text === '') return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  if (!/\bjson\b/i.test(type)) return text as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError({
      ...ctx,
      status: res.status,
      code: 'invalid_json',
      message: `response declared ${type} but is not valid JSON`,
    });
  }
}

/** Bodies fetch can send natively; everything else is a JSON value. */
function isRawBody(v: unknown): v is BodyInit {
  return (
    v instanceof FormData ||
    v instanceof Blob ||
    v instanceof URLSearchParams ||
    v instanceof ArrayBuffer ||
    ArrayBuffer.isView(v)
  );
}

function checkTimeout(ms: number, what: string): number {
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS) {
    throw new TypeError(`${what} must be a positive number of milliseconds up to ${MAX_TIMER_MS}`);
  }
  return ms;
}

function checkRetries(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new TypeError('maxRetries must be a non-negative integer');
  return n;
}
