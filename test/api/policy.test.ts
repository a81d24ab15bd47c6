// The pure rules behind the transport: retry waits and query serialisation.

import { describe, expect, it } from 'vitest';
import { CloudClient, stringifyQuery } from '../../src/api/index.js';
import { isRetryableResponse, MAX_RETRY_WAIT_MS, retryDelayMs } from '../../src/api/retry.js';

const h = (init: Record<string, string>) => new Headers(init);

describe('retryDelayMs', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryDelayMs(h({ 'retry-after': '2' }), 0, 500, now)).toBe(2000);
    expect(retryDelayMs(h({ 'retry-after': '0.25' }), 0, 500, now)).toBe(250);
    expect(retryDelayMs(h({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), 0, 500, now)).toBe(3000);
    // A date already in the past means "now", not a negative wait.
    expect(retryDelayMs(h({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }), 0, 500, now)).toBe(0);
  });

  it('prefers retry-after-ms and caps every hint at 60 s', () => {
    expect(retryDelayMs(h({ 'retry-after-ms': '75', 'retry-after': '9' }), 0, 500, now)).toBe(75);
    expect(retryDelayMs(h({ 'retry-after': '3600' }), 0, 500, now)).toBe(MAX_RETRY_WAIT_MS);
    expect(retryDelayMs(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:00 GMT' }), 0, 500, now)).toBe(MAX_RETRY_WAIT_MS);
  });

  it('backs off exponentially from the base up to 8 s with at most 25 % jitter', () => {
    for (let i = 0; i < 200; i++) {
      const first = retryDelayMs(undefined, 0);
      expect(first).toBeGreaterThan(375 - 1e-9);
      expect(first).toBeLessThanOrEqual(500);
      const second = retryDelayMs(h({ 'retry-after': 'garbage' }), 1);
      expect(second).toBeGreaterThan(750 - 1e-9);
      expect(second).toBeLessThanOrEqual(1000);
      const late = retryDelayMs(undefined, 10);
      expect(late).toBeGreaterThan(6000 - 1e-9);
      expect(late).toBeLessThanOrEqual(8000);
    }
  });
});

describe('isRetryableResponse', () => {
  it('retries 408, 429 and 5xx but no other 4xx, unless the server says otherwise', () => {
    const none = h({});
    expect([408, 429, 500, 502, 503, 504].every((s) => isRetryableResponse(s, none))).toBe(true);
    expect([400, 401, 403, 404, 409, 422].some((s) => isRetryableResponse(s, none))).toBe(false);
    expect(isRetryableResponse(503, h({ 'x-should-retry': 'false' }))).toBe(false);
    expect(isRetryableResponse(409, h({ 'x-should-retry': 'true' }))).toBe(true);
  });
});

describe('stringifyQuery', () => {
  it('joins arrays with commas, nests objects, skips undefined and null', () => {
    const q = stringifyQuery({ ids: ['a', 'b c'], tags: { team: 'x&y' }, n: 3, flag: false, gone: undefined, nil: null, empty: [] });
    expect(q).toBe('ids=a,b%20c&tags%5Bteam%5D=x%26y&n=3&flag=false');
    expect(decodeURIComponent(q)).toBe('ids=a,b c&tags[team]=x&y&n=3&flag=false');
  });

  it('refuses values with no query form', () => {
    expect(() => stringifyQuery({ f: () => 1 })).toThrow(TypeError);
  });
});

describe('CloudClient options', () => {
  it('validates what would otherwise fail late or silently', () => {
    expect(() => new CloudClient({ baseUrl: 'http://x', apiKey: '' })).toThrow(/apiKey/);
    expect(() => new CloudClient({ baseUrl: 'not a url', apiKey: 'k' })).toThrow(/baseUrl/);
    expect(() => new CloudClient({ baseUrl: 'http://u:p@x', apiKey: 'k' })).toThrow(/credentials/);
    expect(() => new CloudClient({ baseUrl: 'http://x', apiKey: 'k', maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => new CloudClient({ baseUrl: 'http://x', apiKey: 'k', timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(new CloudClient({ baseUrl: 'http://x:8080/api/', apiKey: 'k' }).baseUrl).toBe('http://x:8080/api');
  });

  it('refuses path segments that URL normalisation would rewrite', async () => {
    const c = new CloudClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });
    await expect(c.browsers.retrieve('..')).rejects.toThrow(TypeError);
    await expect(c.browsers.retrieve('')).rejects.toThrow(TypeError);
  });
});
