// What resources and pagination need of a client: one request. CloudClient is one; the resources depend on
// this, not on the client that builds them.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  query?: Record<string, unknown>;
  /** JSON-encoded, unless it is FormData, Blob, URLSearchParams or bytes (sent as is). */
  body?: unknown;
  timeoutMs?: number;
  /** Aborting rejects with the signal's reason and is never retried. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  maxRetries?: number;
  /** `bytes`: a successful response's body is returned as a Uint8Array, whatever its content type. */
  responseType?: 'json' | 'bytes';
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  /** `undefined` for 204 and empty bodies (with `responseType: 'bytes'`, always the bytes, maybe empty). */
  data: T;
  requestId?: string;
}

export interface Requester {
  request<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
}
