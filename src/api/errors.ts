// Error classes of the HTTP transport. One family, so callers can `instanceof ApiError` for
// every failure that came from talking to the API, and read `status`/`code` without parsing text.

import type { ErrorBody, ErrorDetail } from './types.js';

/** Longest server text we copy into an error; a proxy's HTML error page is not a useful message. */
export const MAX_ERROR_TEXT = 500;

const REDACTED = '[REDACTED]';

export interface ApiErrorInit {
  /** HTTP status, or 0 when no response arrived. */
  status: number;
  code: string;
  /** The server's (or our) human-readable message, without the method/path/status prefix. */
  message: string;
  method: string;
  path: string;
  details?: ErrorDetail[];
  innerError?: ErrorDetail;
  requestId?: string;
  cause?: unknown;
  /**
   * Strings that must never appear in the error (the API key). Servers sometimes echo request
   * headers in error text, and errors end up in logs and reports.
   */
  secrets?: readonly string[];
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly details?: ErrorDetail[];
  readonly innerError?: ErrorDetail;
  readonly requestId?: string;
  readonly method: string;
  readonly path: string;
  /** The server's (or our) own words, without the `METHOD PATH: STATUS CODE:` prefix of `message`. */
  readonly serverMessage: string;

  constructor(init: ApiErrorInit) {
    const secrets = (init.secrets ?? []).filter((s) => s.length > 0);
    const clean = (s: string): string => redact(s, secrets);
    const path = clean(init.path);
    const serverMessage = clean(init.message);
    super(`${init.method} ${path}: ${init.status} ${clean(init.code)}: ${serverMessage}`, {
      cause: init.cause,
    });
    this.serverMessage = serverMessage;
    this.status = init.status;
    this.code = clean(init.code);
    this.method = init.method;
    this.path = path;
    if (init.details) this.details = init.details.map((d) => redactDetail(d, clean));
    if (init.innerError) this.innerError = redactDetail(init.innerError, clean);
    if (init.requestId) this.requestId = init.requestId;
  }
}

/** No HTTP response: refused, reset, DNS failure, TLS failure. Always has status 0. */
export class ApiConnectionError extends ApiError {
  override name = 'ApiConnectionError';
  constructor(init: Omit<ApiErrorInit, 'status' | 'code' | 'message'> & { message?: string; cause: unknown }) {
    super({ ...init, status: 0, code: 'connection_error', message: init.message ?? describeCause(init.cause) });
  }
}

/** The per-request timeout fired before the response (including its body) was complete. */
export class ApiTimeoutError extends ApiError {
  override name = 'ApiTimeoutError';
  constructor(init: Omit<ApiErrorInit, 'status' | 'code' | 'message'> & { timeoutMs: number }) {
    super({ ...init, status: 0, code: 'timeout', message: `request timed out after ${init.timeoutMs} ms` });
  }
}

export interface ResponseErrorInput {
  method: string;
  path: string;
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
  secrets?: readonly string[];
}

/**
 * Builds the ApiError for a non-2xx response. The Error body `{code, message, ...}` is the
 * expected shape, but proxies, load balancers and the in-VM API (`{message}` only) send other
 * things, and those must still surface as an ApiError rather than a JSON parse failure.
 */
export function errorFromResponse(input: ResponseErrorInput): ApiError {
  const base = {
    method: input.method,
    path: input.path,
    status: input.status,
    requestId: input.headers.get('x-request-id') ?? undefined,
    secrets: input.secrets,
  };
  const parsed = safeJson(input.text);
  if (isErrorBody(parsed)) {
    return new ApiError({
      ...base,
      code: parsed.code,
      message: truncate(parsed.message),
      details: Array.isArray(parsed.details) ? parsed.details : undefined,
      innerError: isObject(parsed.inner_error) ? parsed.inner_error : undefined,
    });
  }
  // A JSON object with only a `message` (the in-VM server's shape) still has the best text there.
  const text =
    isObject(parsed) && typeof parsed.message === 'string'
      ? parsed.message
      : input.text.trim() || input.statusText || 'empty response body';
  return new ApiError({ ...base, code: `http_${input.status}`, message: truncate(text) });
}

function isErrorBody(v: unknown): v is ErrorBody {
  return isObject(v) && typeof v.code === 'string' && typeof v.message === 'string';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function truncate(s: string): string {
  return s.length > MAX_ERROR_TEXT ? `${s.slice(0, MAX_ERROR_TEXT)}…` : s;
}

function redact(s: string, secrets: readonly string[]): string {
  let out = s;
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  return out;
}

function redactDetail(d: ErrorDetail, clean: (s: string) => string): ErrorDetail {
  const out: ErrorDetail = { ...d };
  if (typeof out.code === 'string') out.code = clean(out.code);
  if (typeof out.message === 'string') out.message = clean(out.message);
  if (typeof out.field === 'string') out.field = clean(out.field);
  return out;
}

/** undici reports every network failure as "fetch failed"; the useful part is the nested cause. */
function describeCause(cause: unknown): string {
  const parts: string[] = [];
  let cur: unknown = cause;
  for (let depth = 0; cur instanceof Error && depth < 4; depth++) {
    const code = (cur as { code?: unknown }).code;
    parts.push(typeof code === 'string' && !cur.message.includes(code) ? `${cur.message} (${code})` : cur.message);
    cur = cur.cause;
  }
  return parts.length ? parts.join(': ') : String(cause);
}
