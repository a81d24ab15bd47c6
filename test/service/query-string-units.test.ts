// The service's plain query parse gives what qs gives (query-string.ts): random queries built from the
// pieces that change a parse (separators, +, valid and broken percent-encodings, repeated and prototype
// names, brackets that hand the text to qs) are parsed both ways.
import fc from 'fast-check';
import qs from 'qs';
import { expect, it } from 'vitest';
import { parseQuery } from '../../src/service/query-string.js';

const PIECES = ['a', 'b', 'id', '=', '&', '&&', '+', '%20', '%2B', '%26', '%3D', '%', '%zz', '%E2%82%AC', '%FF', '%C3', 'ü', ' ', '.', '[', ']', '%5B', '%5d', 'x[y]', '__proto__', 'toString', 'constructor', 'jwt', 'eyJ.x-y_z'];
const query = fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }).map((p) => p.join(''));

it('parses every query as qs does', () => {
  fc.assert(
    fc.property(query, (text) => {
      expect(parseQuery(text)).toEqual(qs.parse(text, { depth: 1, arrayLimit: 100, parameterLimit: 200 }));
    }),
    { numRuns: 5000, seed: 29 },
  );
});

it('repeated names past the array limit and nested keys go to qs', () => {
  const many = Array.from({ length: 150 }, (_, i) => `a=${i}`).join('&');
  expect(parseQuery(many)).toEqual(qs.parse(many, { depth: 1, arrayLimit: 100, parameterLimit: 200 }));
  expect(parseQuery('tags[team]=a&tags%5Benv%5D=b')).toEqual({ tags: { team: 'a', env: 'b' } });
  expect(parseQuery('a=1&a=2&b=%zz+c')).toEqual({ a: ['1', '2'], b: '%zz c' });
});
