// The pure parts of telemetry: category resolution (create/PATCH semantics of the hosted SDK), time
// parsing of since/until, the WebSocket message counter of the CDP proxy, and event size limits.
import { describe, expect, it } from 'vitest';
import { fitData, remoteToString } from '../../src/service/host/telemetry/cdp-map.js';
import { captures, resolveCreate, resolveUpdate } from '../../src/service/host/telemetry/config.js';
import { WsMessageCounter } from '../../src/service/host/session/ws-message-counter.js';
import { parseInstant } from '../../src/service/routes/instants.js';

const sorted = (set: ReadonlySet<string> | null) => (set ? [...set].sort() : null);

describe('telemetry settings', () => {
  it('resolves create bodies as the SDK documents them', () => {
    expect(resolveCreate(undefined, 'body.telemetry')).toBeNull();
    expect(resolveCreate(null, 'body.telemetry')).toBeNull();
    expect(resolveCreate({}, 'body.telemetry')).toBeNull();
    expect(resolveCreate({ enabled: false }, 'body.telemetry')).toBeNull();
    expect(sorted(resolveCreate({ enabled: true }, 'body.telemetry'))).toEqual(['captcha', 'connection', 'control', 'system']);
    expect(sorted(resolveCreate({ browser: { console: { enabled: true }, system: { enabled: false } } }, 'body.telemetry'))).toEqual([
      'captcha', 'connection', 'console', 'control',
    ]);
    expect(
      resolveCreate({ browser: { control: { enabled: false }, connection: { enabled: false }, system: { enabled: false }, captcha: { enabled: false } } }, 'body.telemetry'),
    ).toBeNull();
    expect(() => resolveCreate({ enabled: false, browser: { page: { enabled: true } } }, 'body.telemetry')).toThrow(/enabled=false cannot be combined/);
  });

  it('resolves PATCH bodies: merge, fresh default set, stop, unchanged', () => {
    const current = new Set(['control', 'console'] as const);
    expect(resolveUpdate(current, undefined, 'body.telemetry')).toBe('unchanged');
    expect(resolveUpdate(current, {}, 'body.telemetry')).toBe('unchanged');
    expect(sorted(resolveUpdate(current, { browser: { network: { enabled: true } } }, 'body.telemetry') as Set<string>)).toEqual(['console', 'control', 'network']);
    expect(sorted(resolveUpdate(current, { enabled: true }, 'body.telemetry') as Set<string>)).toEqual(['captcha', 'connection', 'control', 'system']);
    expect(resolveUpdate(current, { enabled: false }, 'body.telemetry')).toBeNull();
    expect(sorted(resolveUpdate(null, { browser: { page: { enabled: true } } }, 'body.telemetry') as Set<string>)).toContain('page');
    expect(resolveUpdate(current, { browser: { control: { enabled: false }, console: { enabled: false } } }, 'body.telemetry')).toBeNull();
  });

  it('lets monitor events through whenever a CDP category is on', () => {
    expect(captures(new Set(['control']), 'monitor')).toBe(false);
    expect(captures(new Set(['network']), 'monitor')).toBe(true);
    expect(captures(null, 'control')).toBe(false);
  });
});

describe('since / until', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  it('reads durations as that long ago and RFC 3339 with microseconds, in microseconds', () => {
    expect(parseInstant('5m', 'f', now)).toBe((now - 300_000) * 1000);
    expect(parseInstant('1h30m', 'f', now)).toBe((now - 5_400_000) * 1000);
    expect(parseInstant('250ms', 'f', now)).toBe((now - 250) * 1000);
    expect(parseInstant('2025-06-01T11:00:00Z', 'f', now)).toBe(Date.parse('2025-06-01T11:00:00Z') * 1000);
    expect(parseInstant('2025-06-01T13:00:00.123456+02:00', 'f', now)).toBe(Date.parse('2025-06-01T11:00:00.123Z') * 1000 + 456);
  });
  it('refuses anything else, naming the field', () => {
    for (const bad of ['yesterday', '5', '-5m', '2025-06-01', '2025-13-01T00:00:00Z', '']) {
      expect(() => parseInstant(bad, 'querystring.since', now)).toThrow(/querystring\.since/);
    }
  });
});

/** One WebSocket frame; client frames are masked, as RFC 6455 requires. */
function frame(opcode: number, payload: Buffer, { fin = true, mask = false } = {}): Buffer {
  const len = payload.length;
  const head = [((fin ? 0x80 : 0) | opcode) & 0xff];
  const maskBit = mask ? 0x80 : 0;
  if (len < 126) head.push(maskBit | len);
  else if (len < 65536) head.push(maskBit | 126, len >> 8, len & 0xff);
  else head.push(maskBit | 127, 0, 0, 0, 0, (len >>> 24) & 0xff, (len >> 16) & 0xff, (len >> 8) & 0xff, len & 0xff);
  return Buffer.concat([Buffer.from(head), mask ? Buffer.from([1, 2, 3, 4]) : Buffer.alloc(0), payload]);
}

describe('WsMessageCounter', () => {
  it('counts messages of every size, fragmented or not, split anywhere across chunks', () => {
    const stream = Buffer.concat([
      Buffer.from('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n'),
      frame(1, Buffer.from('{"id":1}')),
      frame(1, Buffer.alloc(300, 0x61)),
      frame(2, Buffer.alloc(70_000, 0x62)),
      frame(1, Buffer.from('part1'), { fin: false }),
      frame(9, Buffer.from('ping')),
      frame(0, Buffer.from('part2')),
      frame(8, Buffer.from([0x03, 0xe8])),
    ]);
    for (const size of [1, 7, 1000, stream.length]) {
      const counter = new WsMessageCounter(true);
      for (let i = 0; i < stream.length; i += size) counter.push(stream.subarray(i, i + size));
      expect(counter.count).toBe(4);
      expect(counter.closeSeen).toBe(true);
    }
    const client = new WsMessageCounter();
    client.push(Buffer.concat([frame(1, Buffer.from('{"id":1,"method":"x"}'), { mask: true }), frame(1, Buffer.alloc(200), { mask: true })]));
    expect(client.count).toBe(2);
    expect(client.closeSeen).toBe(false);
  });
});

describe('event data', () => {
  it('prints console arguments as the console would', () => {
    expect(remoteToString({ type: 'string', value: 'hi' })).toBe('hi');
    expect(remoteToString({ type: 'number', value: 42, description: '42' })).toBe('42');
    expect(remoteToString({ type: 'number', unserializableValue: 'NaN' })).toBe('NaN');
    expect(remoteToString({ type: 'undefined' })).toBe('undefined');
    expect(
      remoteToString({ type: 'object', description: 'Object', preview: { properties: [{ name: 'a', value: '1', type: 'number' }] } }),
    ).toBe('{a: 1}');
    expect(
      remoteToString({ type: 'object', subtype: 'array', description: 'Array(2)', preview: { subtype: 'array', properties: [{ name: '0', value: '1', type: 'number' }, { name: '1', value: '2', type: 'number' }] } }),
    ).toBe('[1, 2]');
  });

  it('cuts oversized data and says so', () => {
    const small = fitData({ text: 'ok' });
    expect(small).toEqual({ data: { text: 'ok' }, truncated: false });
    const big = fitData({ text: 'x'.repeat(100_000), args: ['y'.repeat(100_000)], level: 'log' });
    expect(big.truncated).toBe(true);
    expect(JSON.stringify(big.data).length).toBeLessThan(64 * 1024);
    expect(big.data.level).toBe('log');
    expect((big.data.text as string).length).toBeLessThan(2000);
  });
});
