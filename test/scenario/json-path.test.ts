import { describe, expect, test } from 'vitest';
import { parseJsonPath, valueAt } from '../../src/scenario/json-path.js';

describe('JSON paths', () => {
  test('parses names, indexes and quoted keys', () => {
    expect(parseJsonPath('$')).toEqual([]);
    expect(parseJsonPath('$.items[0].name')).toEqual(['items', 0, 'name']);
    expect(parseJsonPath(`$["odd key"]['it\\'s'][12].$ref`)).toEqual(['odd key', "it's", 12, '$ref']);
    expect(parseJsonPath('$["a\\"b"]')).toEqual(['a"b']);
  });

  test('says what is wrong', () => {
    expect(() => parseJsonPath('items')).toThrow('a JSON path starts with $');
    expect(() => parseJsonPath('$.')).toThrow("expected a field name after '.' at position 2");
    expect(() => parseJsonPath('$[x]')).toThrow('expected [index] or ["key"] at position 2');
    expect(() => parseJsonPath('$.a b')).toThrow("unexpected ' ' at position 4");
  });

  test('finds values, or names the first missing part', () => {
    const doc = { items: [{ name: 'a' }, null], 'odd key': false };
    expect(valueAt(doc, ['items', 0, 'name'])).toEqual({ found: true, value: 'a' });
    expect(valueAt(doc, ['items', 1])).toEqual({ found: true, value: null });
    expect(valueAt(doc, ['odd key'])).toEqual({ found: true, value: false });
    expect(valueAt(doc, ['items', 5, 'name'])).toEqual({ found: false, missing: '$.items[5]' });
    expect(valueAt(doc, ['items', 'length'])).toEqual({ found: false, missing: '$.items.length' });
    expect(valueAt('text', ['a'])).toEqual({ found: false, missing: '$.a' });
  });
});
