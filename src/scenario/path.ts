// Paths into scenario data: how diagnostics name a place (`steps[3].click`) and how they find it in the file.

export type DataPath = (string | number)[];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `steps[3].click`, `browser.viewport.width`, `vars["my var"]`; empty for the document itself. */
export function formatPath(path: DataPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENTIFIER.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Turns an ajv instancePath (`/steps/3/click`) into a path, using the data to tell list indexes from keys. */
export function pointerToPath(pointer: string, data: unknown): DataPath {
  if (pointer === '') return [];
  const path: DataPath = [];
  let current = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const index = Array.isArray(current) ? Number(seg) : NaN;
    if (Number.isInteger(index)) {
      path.push(index);
      current = (current as unknown[])[index];
    } else {
      path.push(seg);
      current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[seg] : undefined;
    }
  }
  return path;
}
