// A small JSON path dialect for expectations: `$`, `.name`, `[0]`, `["any key"]` — enough to point at
// one value. Parsed at compile time (so a typo is a file:line:col error) and evaluated by the runner.

export type JsonPathSegment = string | number;

const NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*/;
const WHOLE_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `$.items[0]["odd key"]` → ['items', 0, 'odd key']; throws an Error saying what is wrong. */
export function parseJsonPath(text: string): JsonPathSegment[] {
  if (!text.startsWith('$')) throw new Error(`a JSON path starts with $, e.g. $.items[0].name`);
  const segments: JsonPathSegment[] = [];
  let i = 1;
  while (i < text.length) {
    const rest = text.slice(i);
    if (rest[0] === '.') {
      const name = NAME.exec(rest.slice(1))?.[0];
      if (!name) throw new Error(`expected a field name after '.' at position ${i + 1}; use ["..."] for other keys`);
      segments.push(name);
      i += 1 + name.length;
      continue;
    }
    if (rest[0] === '[') {
      const index = /^\[(\d+)\]/.exec(rest);
      if (index) {
        segments.push(Number(index[1]));
        i += index[0].length;
        continue;
      }
      // A quoted key is a JSON string literal (double quotes) or the same with single quotes.
      const quoted = /^\[("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\]/.exec(rest);
      if (quoted) {
        const literal = quoted[1]!;
        segments.push(literal.startsWith('"') ? (JSON.parse(literal) as string) : literal.slice(1, -1).replace(/\\(.)/g, '$1'));
        i += quoted[0].length;
        continue;
      }
      throw new Error(`expected [index] or ["key"] at position ${i + 1}`);
    }
    throw new Error(`unexpected '${rest[0]}' at position ${i + 1}; expected .name, [index] or ["key"]`);
  }
  return segments;
}

/** The value at `segments` inside `doc`, or `found: false` naming the part that is missing. */
export function valueAt(doc: unknown, segments: JsonPathSegment[]): { found: true; value: unknown } | { found: false; missing: string } {
  let current = doc;
  let walked = '$';
  for (const seg of segments) {
    const step = typeof seg === 'number' ? `[${seg}]` : WHOLE_NAME.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`;
    const holder = current as Record<string | number, unknown> | null;
    const present = typeof seg === 'number'
      ? Array.isArray(holder) && seg < holder.length
      : holder !== null && typeof holder === 'object' && !Array.isArray(holder) && Object.hasOwn(holder, seg);
    walked += step;
    if (!present) return { found: false, missing: walked };
    current = holder![seg];
  }
  return { found: true, value: current };
}
