import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLiveMessage } from '../../src/service/host/live/live-input.js';

describe('live view messages', () => {
  it('takes the messages of the protocol', () => {
    for (const msg of [
      { type: 'mouse', action: 'move', x: 0, y: 5 },
      { type: 'mouse', action: 'down', x: 10, y: 5, button: 'right' },
      { type: 'wheel', x: 1, y: 2, delta_x: 0, delta_y: -3.5 },
      { type: 'key', action: 'up', key: 'Enter', code: 'Enter' },
      { type: 'text', text: 'hé' },
      { type: 'ping', t: 12.5 },
    ]) expect(parseLiveMessage(JSON.stringify(msg))).toEqual(msg);
  });

  it('answers anything else with a reason, and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ type: 'mouse', action: 'down', x: v, y: 1 }))), (raw) => {
        const parsed = parseLiveMessage(raw);
        if ('error' in parsed) expect(typeof parsed.error).toBe('string');
        else expect(['mouse', 'wheel', 'key', 'text', 'ping']).toContain(parsed.type);
      }),
      { numRuns: 500, seed: 17 },
    );
    expect(parseLiveMessage('{"type":"mouse","action":"down","x":1.5,"y":1}')).toEqual({ error: "a 'mouse' message has missing or out-of-range fields" });
    expect(parseLiveMessage('{"type":"text","text":""}')).toEqual({ error: "a 'text' message has missing or out-of-range fields" });
    expect(parseLiveMessage('nope')).toEqual({ error: 'a message must be JSON' });
    expect(parseLiveMessage('null')).toEqual({ error: "a message's type must be one of mouse, wheel, key, text, ping" });
  });
});
