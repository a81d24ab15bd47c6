// The service's query string parser: qs, for the deepObject queries the hosted SDK sends (`tags[team]=a`),
// and a few lines for the plain ones every other request has. qs pulls in a dozen small packages whose load
// took ~30 ms of the service's first request (the router parses every request's query, empty or not), which
// in an embedded run is the create of the first scenario's browser. The plain parse gives what qs gives for
// the same text (test/service/query-string-units.test.ts compares them over random queries).
import { createRequire } from 'node:module';
import type * as Qs from 'qs';

const QS_OPTIONS = { depth: 1, arrayLimit: 100, parameterLimit: 200 } as const;

let qs: typeof Qs | undefined;
const loadQs = () => (qs ??= createRequire(import.meta.url)('qs') as typeof Qs);

/** Brackets (plain or percent-encoded) make a nested key; qs's own rules apply to those. */
const NESTED = /[[\]]|%5[bd]/i;

export function parseQuery(text: string): Record<string, unknown> {
  const parts = text.split('&');
  // Past arrayLimit qs turns repeated values into an object: such a query is its to parse.
  if (NESTED.test(text) || parts.length > QS_OPTIONS.arrayLimit) return loadQs().parse(text, QS_OPTIONS);
  const query: Record<string, string | string[]> = {};
  for (const part of parts) {
    const at = part.indexOf('=');
    const key = decode(at === -1 ? part : part.slice(0, at));
    // qs drops empty names and names Object.prototype has (`toString`, `__proto__`).
    if (!key || Object.prototype.hasOwnProperty.call(Object.prototype, key)) continue;
    const value = at === -1 ? '' : decode(part.slice(at + 1));
    const seen = query[key];
    query[key] = seen === undefined ? value : [seen, value].flat();
  }
  return query;
}

/** As qs decodes: `+` is a space, and text that is not valid percent-encoding is kept as it is. */
function decode(text: string): string {
  const spaced = text.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
