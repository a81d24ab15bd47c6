// `{{ name }}` templates. Names are variables (`visitor`), `env.NAME`, `serve.url`, `session.<field>`,
// `secrets.NAME`, loop variables and the values steps save.
// The compiler substitutes what it knows (variables, env); the runner resolves the rest with resolveRuntime.

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Replaces each `{{ name }}` with resolve(name); when resolve returns undefined the placeholder stays as written. */
export function renderTemplate(text: string, resolve: (name: string) => string | undefined): string {
  // A replacer function, not a replacement string, so `$&` and friends in values are taken literally.
  return text.replace(TEMPLATE, (whole, name: string) => resolve(name) ?? whole);
}

/** The names used in `text`, each once, in order of first use. */
export function templateNames(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(TEMPLATE), (m) => m[1] ?? ''))];
}

export function hasTemplate(text: string): boolean {
  return templateNames(text).length > 0;
}

/**
 * Replaces `{{ a.b.c }}` in every string of plain data (objects and arrays are copied, not mutated) with
 * the value at that path in `scope`, e.g. `{ serve: { url }, session: { cdp_ws_url } }`.
 * Throws naming the template when a name has no value, so a run fails loudly rather than with a literal `{{`.
 */
export function resolveRuntime<T>(value: T, scope: Record<string, unknown>): T {
  const resolve = (name: string): string => {
    const found = lookup(scope, name);
    if (found === undefined || found === null) throw new Error(`cannot resolve {{ ${name} }}: '${name}' has no value`);
    if (typeof found !== 'object') return String(found);
    const text = (found as { [SAVED_TEXT]?: unknown })[SAVED_TEXT];
    return typeof text === 'string' ? text : JSON.stringify(found);
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return renderTemplate(v, resolve);
    if (Array.isArray(v)) return v.map(walk);
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item)]));
    return v;
  };
  return walk(value) as T;
}

/** `report.json.items[0].name` → ['report', 'json', 'items', '0', 'name']: list items by index, as in JSON paths. */
export function templatePath(name: string): string[] {
  return name.replace(/\[(\d+)\]/g, '.$1').split('.');
}

// A symbol, not a field, so the text never shadows a field of the same name and never shows in JSON.
const SAVED_TEXT = Symbol('saved text');

/**
 * A value a step saved: `{{ name }}` renders `text` (an exec's stdout, a file's text, ...), and
 * `{{ name.field }}` one of `fields` (`{{ out.exit_code }}`, `{{ report.json.total }}`).
 */
export function savedValue(text: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { ...fields, [SAVED_TEXT]: text };
}

/**
 * The value `{{ name }}` refers to in `scope`, as it is (a list stays a list); a saved value without a field
 * is its text. Undefined when there is none.
 */
export function runtimeValue(scope: Record<string, unknown>, name: string): unknown {
  const found = lookup(scope, name);
  if (found !== null && typeof found === 'object') {
    const text = (found as { [SAVED_TEXT]?: unknown })[SAVED_TEXT];
    if (typeof text === 'string') return text;
  }
  return found;
}

function lookup(scope: Record<string, unknown>, name: string): unknown {
  let current: unknown = scope;
  for (const part of templatePath(name)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
