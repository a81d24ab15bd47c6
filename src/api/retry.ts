// Retry policy, kept apart from the transport so the rules can be read (and tested) in one place.
// The rules mirror the hosted SDK so a scenario behaves the same against local and hosted targets.

/** No server hint may park a request longer than this. */
export const MAX_RETRY_WAIT_MS = 60_000;
export const DEFAULT_RETRY_BASE_MS = 500;
export const MAX_BACKOFF_MS = 8_000;

/**
 * Whether a response with this status may be retried. The server's `x-should-retry` wins in both
 * directions: it knows whether the request had side effects, we don't.
 */
export function isRetryableResponse(status: number, headers: Headers): boolean {
  const hint = headers.get('x-should-retry')?.trim().toLowerCase();
  if (hint === 'true') return true;
  if (hint === 'false') return false;
  // 409 is deliberately absent (the hosted SDK retries it): our 409s are real conflicts
  // (a duplicate name, an active recording) and repeating the request cannot resolve them.
  return status === 408 || status === 429 || status >= 500;
}

/**
 * How long to wait before retry number `retryIndex` (0 for the first retry). Server hints come
 * first (`retry-after-ms`, then `Retry-After` as seconds or an HTTP date); otherwise exponential
 * backoff with up to 25 % jitter downwards, so concurrent clients spread out.
 */
export function retryDelayMs(
  headers: Headers | undefined,
  retryIndex: number,
  baseMs = DEFAULT_RETRY_BASE_MS,
  now: number = Date.now(),
): number {
  const hinted = headers ? serverHintMs(headers, now) : undefined;
  if (hinted !== undefined) return Math.min(Math.max(hinted, 0), MAX_RETRY_WAIT_MS);
  const backoff = Math.min(baseMs * 2 ** retryIndex, MAX_BACKOFF_MS);
  return backoff * (1 - Math.random() * 0.25);
}

function serverHintMs(headers: Headers, now: number): number | undefined {
  const ms = parseNumber(headers.get('retry-after-ms'));
  if (ms !== undefined) return ms;
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  const seconds = parseNumber(raw);
  if (seconds !== undefined) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : date - now;
}

function parseNumber(raw: string | null): number | undefined {
  if (raw === null || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as the caller aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
