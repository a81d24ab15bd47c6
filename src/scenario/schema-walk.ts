// Reading the scenario schema as a map of fields: what an object at a node may hold, and the node for
// each field, through $ref and unions. Used where a check needs to know a field's meaning (a duration,
// a kind's own fields) rather than run the whole validator.

import { scenarioSchema } from './schema.js';
import { isPlainObject } from './template.js';

type Node = Record<string, unknown>;

export const DURATION_REF = '#/$defs/duration';

export function nodeAt(pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, seg) => (isPlainObject(node) ? node[seg.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), scenarioSchema);
}

function deref(node: unknown, depth = 0): unknown {
  return isPlainObject(node) && typeof node.$ref === 'string' && depth < 10 ? deref(nodeAt(node.$ref.slice(1)), depth + 1) : node;
}

/** The node itself and every branch of its unions, $refs followed (a bounded walk: the schema is recursive). */
function variants(node: unknown, depth = 0, out: Node[] = []): Node[] {
  const n = deref(node);
  if (!isPlainObject(n) || depth > 6) return out;
  out.push(n);
  for (const union of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = n[union];
    if (Array.isArray(list)) for (const branch of list) variants(branch, depth + 1, out);
  }
  return out;
}

/** Field name → its schema node, for an object at `node` (every branch's fields merged; the first wins). */
export function fieldsOf(node: unknown): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const v of variants(node)) {
    if (isPlainObject(v.properties)) for (const [k, child] of Object.entries(v.properties)) if (!fields.has(k)) fields.set(k, child);
  }
  return fields;
}

/** The node for items of a list at `node`, or for values of a map (`additionalProperties`). */
function itemsOf(node: unknown, key: 'items' | 'additionalProperties'): unknown[] {
  return variants(node).map((v) => v[key]).filter(isPlainObject);
}

/** Whether `node` is the duration definition (directly or as a union branch). */
function isDuration(node: unknown): boolean {
  return variants(node).some((v) => v === nodeAt(DURATION_REF.slice(1)));
}

/**
 * Calls `visit` for every value in `data` the schema says is a duration, with its path. `data` is walked
 * as the schema describes it; fields the schema does not know are skipped (validation reports them).
 */
export function eachDuration(data: unknown, node: unknown, visit: (value: unknown, at: (string | number)[]) => void, at: (string | number)[] = []): void {
  if (isDuration(node)) {
    visit(data, at);
    return;
  }
  if (Array.isArray(data)) {
    const items = itemsOf(node, 'items')[0];
    if (items !== undefined) data.forEach((item, i) => eachDuration(item, items, visit, [...at, i]));
  } else if (isPlainObject(data)) {
    const fields = fieldsOf(node);
    const rest = itemsOf(node, 'additionalProperties');
    for (const [key, value] of Object.entries(data)) {
      const child = fields.get(key) ?? rest[0];
      if (child !== undefined) eachDuration(value, child, visit, [...at, key]);
    }
  }
}
