import { describe, expect, test } from 'vitest';
import { parseDuration, renderTemplate, resolveRuntime, templateNames } from '../../src/scenario/index.js';

describe('renderTemplate', () => {
  test('replaces names, with or without spaces inside the braces', () => {
    const values: Record<string, string> = { a: '1', 'env.B': '2' };
    expect(renderTemplate('{{a}}-{{ env.B }}-{{  a  }}', (n) => values[n])).toBe('1-2-1');
  });

  test('leaves unresolved placeholders exactly as written', () => {
    expect(renderTemplate('go {{serve.url }}/x', () => undefined)).toBe('go {{serve.url }}/x');
  });

  test('values are literal, even with $ patterns', () => {
    expect(renderTemplate('{{ a }}', () => '$& $1')).toBe('$& $1');
  });
});

test('templateNames lists each name once, in order', () => {
  expect(templateNames('{{ b }} {{a}} {{ b }} {{ serve.url }} plain')).toEqual(['b', 'a', 'serve.url']);
  expect(templateNames('no templates')).toEqual([]);
});

describe('resolveRuntime', () => {
  const scope = { serve: { url: 'http://127.0.0.1:4000' }, session: { session_id: 'abc', cdp_ws_url: 'ws://x', viewport: { width: 5 } } };

  test('replaces nested names throughout plain data without mutating it', () => {
    const value = {
      op: 'api',
      path: '/browsers/{{ session.session_id }}',
      body: { start_url: '{{serve.url}}/index.html', list: ['{{ session.cdp_ws_url }}', 3, true, null] },
    };
    const copy = structuredClone(value);
    expect(resolveRuntime(value, scope)).toEqual({
      op: 'api',
      path: '/browsers/abc',
      body: { start_url: 'http://127.0.0.1:4000/index.html', list: ['ws://x', 3, true, null] },
    });
    expect(value).toEqual(copy);
    expect(resolveRuntime('{{ session.viewport.width }}', scope)).toBe('5');
  });

  test('throws naming the missing template', () => {
    expect(() => resolveRuntime({ a: ['{{ session.nope }}'] }, scope)).toThrow(/\{\{ session\.nope \}\}/);
    expect(() => resolveRuntime('{{ serve.url.port }}', scope)).toThrow(/serve\.url\.port/);
  });
});

describe('parseDuration', () => {
  test.each([
    [0, 0],
    ['500ms', 500],
    ['2s', 2000],
    ['1.5s', 1500],
    ['1m', 60_000],
    ['0.25m', 15_000],
  ] as const)('%s → %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  test.each(['', '5', '2h', '1.s', 's', '-1s', '1 s', 'abc'])('rejects %j', (input) => {
    expect(() => parseDuration(input)).toThrow(/invalid duration/);
  });

  test('rejects a bare number other than 0, naming the units it could mean', () => {
    expect(() => parseDuration(500)).toThrow('a duration needs a unit: write "500ms" or "500s"');
  });

  test('rejects negative and non-finite numbers', () => {
    expect(() => parseDuration(-1)).toThrow(/invalid duration/);
    expect(() => parseDuration(Number.NaN)).toThrow(/invalid duration/);
  });
});
