import { describe, expect, it } from 'vitest';
import { notable } from '../../runner/exec/telemetry.js';

const at = Date.parse('2026-11-21T10:00:00.000Z') * 1000;

describe('notable telemetry', () => {
  it('keeps console errors, failed loads and HTTP errors, and drops the rest', () => {
    expect(notable({ event: { type: 'console_error', ts: at, data: { message: 'boom' } } })).toEqual({
      type: 'console_error', at: '2026-11-21T10:00:00.000Z', message: 'boom',
    });
    expect(notable({ event: { type: 'network_loading_failed', ts: at, data: { url: 'http://x/y', error_text: 'net::ERR_CONNECTION_REFUSED' } } })?.message)
      .toBe('http://x/y failed: net::ERR_CONNECTION_REFUSED');
    expect(notable({ event: { type: 'network_response', ts: at, data: { url: 'http://x/z', status: 404 } } })?.message).toBe('http://x/z answered 404');
    expect(notable({ event: { type: 'network_response', ts: at, data: { url: 'http://x/z', status: 200 } } })).toBeUndefined();
    expect(notable({ event: { type: 'console_log', ts: at, data: { message: 'fine' } } })).toBeUndefined();
    expect(notable({ event: { type: 'network_response', ts: at, data: { url: 'http://x/favicon.ico', status: 404 } } })).toBeUndefined();
    expect(notable({ event: { type: 'console_error' } })).toBeUndefined();
  });

  it("places an event at the browser's time of it when the service stamped it later", () => {
    const browser = at - 300_000;
    expect(notable({ event: { type: 'console_error', ts: at, data: { message: 'boom', browser_ts: browser } } })?.at).toBe('2026-11-21T09:59:59.700Z');
  });
});
