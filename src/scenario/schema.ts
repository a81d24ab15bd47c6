// The JSON Schema, compiled with ajv, and the translation of ajv's errors into messages people can act on.
//
// ajv reports every branch of a failed `anyOf` (e.g. "must be string", "must be object", "must match a schema
// in anyOf"), which reads as noise. So a failed union is re-checked against the one branch whose type fits
// the value, and only that branch's errors are explained; when no branch fits, the union says what it expects.

import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import schemaJson from './scenario.schema.json' with { type: 'json' };
import generated from './generated/scenario-accepts.cjs';
import { IF_MATCHERS } from './conditions.js';
import { bareNumber } from './duration.js';
import { formatPath, pointerToPath } from './path.js';
import type { DataPath } from './path.js';

type SchemaNode = Record<string, unknown>;

export const scenarioSchema = schemaJson as unknown as SchemaNode;

/** A problem before it has a file position: the path to the node, and whether to point at its key or value. */
export interface Problem {
  path: DataPath;
  which: 'key' | 'value';
  message: string;
}

const TARGET_KEYS = 'selector, text, role, label, placeholder, test_id';

const COMPUTER_ACTIONS = 'click_mouse, move_mouse, type_text, press_key, scroll, drag_mouse, set_cursor, sleep';

/** What a union expects, for values that fit none of its branches. Keyed by the union's JSON pointer. */
const EXPECTED: Record<string, string> = {
  '/$defs/duration': 'expected a duration such as "500ms", "2s" or "1m"',
  '/$defs/click': `expected a selector string or an object with one of ${TARGET_KEYS}`,
  '/$defs/target': `expected a selector string or an object with one of ${TARGET_KEYS}`,
  '/$defs/goto': 'expected a URL string or an object with url and optional wait_until',
  '/$defs/press': 'expected a key name such as "Enter" or an object with key and optional target fields',
  '/$defs/screenshot': 'expected nothing, a name, or an object with name, full_page, screen and region',
  '/$defs/match': 'expected a string or an object with one of equals, contains, matches',
  '/$defs/var_value': 'expected a string, number or boolean',
  '/$defs/var': 'expected a string, number, boolean, list or mapping',
  '/$defs/web_server/properties/url': 'expected an http:// or https:// URL',
  '/$defs/condition': 'expected a condition: { var, equals | one_of | contains | matches | at_least | greater_than | less_than | ... }, { failed }, { passed }, { exists }, { not }, { all } or { any }',
  '/$defs/repeat/properties/times': 'expected a whole number of passes, or a template such as "{{ count }}"',
  '/$defs/for_each/properties/items': 'expected a list, or a template naming one such as "{{ users }}"',
  '/$defs/include': 'expected a scenario file path, or an object with file and optional with',
  '/$defs/annotation': 'expected true, or the reason as text',
  '/properties/each': 'expected a list of rows (mappings of variables), or a .csv or .json file of them',
  '/$defs/fill_value': 'expected a string or number',
  '/$defs/computer': 'expected a list of actions, or one action such as { click_mouse: { x: 10, y: 20 } }',
  '/$defs/type_text': 'expected the text to type, or an object with text and optional delay',
  '/$defs/press_key': 'expected a key such as "Return", a list of keys, or an object with keys',
  '/$defs/exec': 'expected a shell command line, or an object with command and optional args, cwd, env, as_user, as_root, timeout, expect, expect_soft, save',
  '/$defs/spawn': 'expected a shell command line, or an object with command and optional args, cwd, env, as_user, as_root, save',
  '/$defs/wait_process': 'expected the name a spawn step saved, or an object with process and optional timeout, expect, expect_soft',
  '/$defs/exit_code': 'expected an exit code, a list of exit codes, or "any"',
  '/$defs/arg': 'expected a string or number',
  '/$defs/read_file': 'expected an absolute path, or an object with path and optional save, save_to, expect, expect_soft',
  '/$defs/wait_file': 'expected an absolute path, or an object with path and optional timeout, min_bytes',
  '/$defs/execute': 'expected JavaScript code, or an object with code and optional timeout, expect, expect_soft, save',
  '/$defs/script': 'expected JavaScript code, or an object with code and optional save',
  '/$defs/json_expect': 'expected { path, equals | contains | matches } or a list of them',
  '/$defs/file_mode': 'expected an octal mode such as "644" or "0600"',
  '/$defs/save_name': 'expected a variable name: letters, digits and _, not starting with a digit',
  '/$defs/abs_path': 'expected an absolute path such as /tmp/report.txt',
  '/$defs/artifact_name': 'expected a file name without folders, such as report.pdf',
  '/$defs/as_user': 'expected a user name',
  '/$defs/file_expect/properties/sha256': 'expected 64 hexadecimal digits',
  '/$defs/browser_auth': 'expected an auth connection id, or an object with id (or domain and profile) and optional timeout',
};

/** Messages for "one of these keys" rules, where the generic wording would be vague. */
const KEY_CHOICE: Record<string, { none?: string; many?: string; at?: string }> = {
  '/$defs/expect': {
    none: 'expected a condition: on the page text, visible, url, title or aria_snapshot; on an element (a locator such as role or test_id) text, count, value, attribute, css, aria_snapshot or a state such as visible, enabled or checked; or a value: var with equals, contains, matches, greater_than, length and more',
  },
  '/$defs/one_locator': {
    none: `missing a target; expected one of ${TARGET_KEYS}`,
    many: `a target has exactly one of ${TARGET_KEYS}`,
  },
  '/$defs/at_most_one_locator': { many: `a target has exactly one of ${TARGET_KEYS}` },
  '/$defs/exact_applies': { none: "'exact' only applies to text, role, label or placeholder", at: 'exact' },
  '/$defs/computer_action': {
    none: `an action needs one of ${COMPUTER_ACTIONS}`,
    many: 'an action is an object with exactly one key (use one list item per action)',
  },
  '/$defs/clipboard': { none: "expected 'write' (text to put on the clipboard) or 'read: true'", many: "use 'write' or 'read', not both" },
  '/$defs/write_file': { none: "expected 'content' (text) or 'from' (a local file)", many: "use 'content' or 'from', not both" },
  '/$defs/secret': { none: "expected { env: VARIABLE } or { file: path }", many: "use 'env' or 'file', not both" },
  '/$defs/browser_profile': { none: "a profile needs 'name' or 'id'", many: "select the profile by 'name' or by 'id', not both" },
  '/$defs/browser_auth/anyOf/1': {
    none: "an auth connection is found by 'id', or by 'domain' and 'profile'",
    many: "find the auth connection by 'id' or by 'domain' and 'profile', not both",
  },
  '/$defs/browser_extension': { none: "an extension needs 'name' or 'id'", many: "select the extension by 'name' or by 'id', not both" },
  '/$defs/browser_proxy': { none: "a proxy needs one of 'name', 'id' or 'mode'", many: "a proxy has exactly one of 'name', 'id' and 'mode'" },
  '/$defs/json_check': {
    none: 'a JSON check needs one of equals, contains, matches',
    many: 'a JSON check has exactly one of equals, contains, matches',
  },
  '/$defs/var_condition': {
    none: `a var condition needs one of ${IF_MATCHERS.join(', ')}`,
    many: `a var condition has exactly one of ${IF_MATCHERS.join(', ')}`,
  },
};

/** Maps whose keys become template names, and what to call a key that cannot be one. */
const NAMED_KEYS: [RegExp, string][] = [[/^vars$/, 'variable'], [/^secrets$/, 'secret'], [/\.with$/, 'parameter']];

/**
 * The validator generated at build time (runner/scenario-accepts.mjs), if it was generated from this very
 * schema: checking a valid file then compiles nothing. A stale one (the schema edited since the last build)
 * is not used, so it can make a run slower, never wrong.
 */
const generatedFits = generated.schemaHash === createHash('sha256').update(JSON.stringify(scenarioSchema)).digest('hex');

/** Whether `data` is a valid scenario by the whole schema, when that can be known without compiling it. */
export function schemaAccepts(data: unknown): boolean {
  return generatedFits && generated(data);
}

const SCHEMA_KEY = 'scenario';
let ajv: Ajv | undefined;

/** The explaining validator (every error, with the schema nodes): compiled on the first file that needs it. */
function explainingAjv(): Ajv {
  if (!ajv) {
    const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    ajv = new AjvClass({ allErrors: true, verbose: true });
    ajv.addSchema(scenarioSchema, SCHEMA_KEY);
  }
  return ajv;
}

// ajv hands back the schema objects themselves (verbose mode), so knowing each node's pointer lets us
// compile any branch on its own and look up the messages above.
const pointers = new WeakMap<object, string>();
(function index(node: unknown, pointer: string): void {
  if (node === null || typeof node !== 'object') return;
  pointers.set(node, pointer);
  for (const [key, child] of Object.entries(node)) index(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
})(scenarioSchema, '');

const validators = new Map<string, ValidateFunction>();

function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = explainingAjv().getSchema(`${SCHEMA_KEY}#${pointer}`);
    if (!validate) throw new Error(`scenario schema has no node at ${pointer}`);
    validators.set(pointer, validate);
  }
  return validate;
}

/** Validates `data` against the schema node at `pointer` (e.g. `/$defs/click`); `base` is where `data` sits. */
export function checkAgainst(pointer: string, data: unknown, base: DataPath): Problem[] {
  const validate = validatorAt(pointer);
  if (validate(data)) return [];
  return explain(validate.errors ?? [], data, base);
}

function explain(errors: ErrorObject[], data: unknown, base: DataPath): Problem[] {
  const problems: Problem[] = [];
  let rest = errors;
  // Outermost unions first: re-checking one replaces every error inside it.
  for (let union = outermostUnion(rest); union; union = outermostUnion(rest)) {
    const at = union.instancePath;
    rest = rest.filter((e) => !isAtOrUnder(e.instancePath, at));
    const path = [...base, ...pointerToPath(at, data)];
    const fitting = branchesOf(union).filter((b) => fitsType(b, union.data));
    const branch = fitting.length === 1 ? fitting[0] : undefined;
    if (branch && pointerOf(branch)) problems.push(...checkAgainst(pointerOf(branch), union.data, path));
    else problems.push({ path, which: 'value', message: prefixed(path, expectedBy(union)) });
  }
  // A key-choice rule reports once for the whole object; its branches' "missing x" errors are the same fact.
  const summarised = new Set<unknown>(rest.filter(isKeyChoice).flatMap(branchesOf));
  for (const e of rest) {
    if (summarised.has(e.parentSchema)) continue;
    const problem = describe(e, [...base, ...pointerToPath(e.instancePath, data)]);
    if (problem) problems.push(problem);
  }
  return problems;
}

function describe(e: ErrorObject, path: DataPath): Problem | undefined {
  const where = formatPath(path);
  const value = (message: string): Problem => ({ path, which: 'value', message });
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      if (path.length === 0) return value('a scenario must be a YAML mapping with at least name and steps');
      return value(e.data === null ? `${where} is empty; it needs ${typeNames(params.type)}` : `${where} must be ${typeNames(params.type)}`);
    case 'required':
      return value(prefixed(path, `missing required field '${String(params.missingProperty)}'`));
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      const allowed = Object.keys((e.parentSchema?.properties as SchemaNode | undefined) ?? {});
      const inside = where ? ` in ${where}` : '';
      const near = closest(field, allowed);
      return { path: [...path, field], which: 'key', message: `unknown field '${field}'${inside}; ${near ? `did you mean '${near}'? ` : ''}expected ${allowedText(allowed)}` };
    }
    case 'const':
      if (pointerOf(e.parentSchema) === '/$defs/duration/anyOf/0') return value(prefixed(path, bareNumber(Number(e.data))));
      return value(`${where} must be ${JSON.stringify(params.allowedValue)}`);
    case 'enum':
      return value(`${where} must be one of ${(params.allowedValues as unknown[]).join(', ')}`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return value(`${where} must be ${String(params.comparison)} ${String(params.limit)}`);
    case 'minLength':
    case 'minItems':
      return value(params.limit === 1 ? `${where} must not be empty` : `${where} ${e.message ?? 'is too short'}`);
    case 'pattern':
      if (e.propertyName !== undefined) {
        const key: DataPath = [...path, e.propertyName];
        const named = NAMED_KEYS.find(([test]) => test.test(where))?.[1];
        const message = named
          ? `invalid ${named} name '${e.propertyName}'; use letters, digits and _, not starting with a digit`
          : `invalid key '${e.propertyName}' in ${where}; it must match ${String(params.pattern)}`;
        return { path: key, which: 'key', message };
      }
      {
        // A regex means little to readers; a union branch's pattern is better told by what the union expects.
        const union = EXPECTED[pointerOf(e.parentSchema).replace(/\/(anyOf|oneOf)\/\d+$/, '')];
        if (union) return value(prefixed(path, union));
        // Else what the field is for says it better than the pattern: "must be the hex SHA-256 of ...".
        const described = (e.parentSchema as { description?: string } | undefined)?.description;
        const told = described && `${described[0]!.toLowerCase()}${described.slice(1).replace(/\.$/, '')}`;
        return value(told ? `${where} must be ${told}` : `${where} must match ${String(params.pattern)}`);
      }
    case 'propertyNames':
      return undefined; // summarises the `pattern` error above
    case 'dependencies':
      return {
        path: [...path, String(params.property)],
        which: 'key',
        message: prefixed(path, `'${String(params.property)}' is only allowed together with '${String(params.missingProperty)}'`),
      };
    case 'oneOf':
    case 'anyOf':
      // `required` holds for anything that is not an object: the type error beside it says what is wrong.
      if (isKeyChoice(e)) return fitsType({ type: 'object' }, e.data) ? describeKeyChoice(e, path) : undefined;
      return value(prefixed(path, expectedBy(e)));
    default:
      return value(`${where || 'the scenario'} ${e.message ?? 'is invalid'}`);
  }
}

/** "exactly one of these keys" (oneOf of `required`) and "at least one" (anyOf of `required`). */
function describeKeyChoice(e: ErrorObject, path: DataPath): Problem {
  const custom = KEY_CHOICE[pointerOf(e.parentSchema)] ?? {};
  const branches = branchesOf(e);
  const keys = branches.flatMap(requiredKeys);
  const passing = (e.params as { passingSchemas?: number[] | null }).passingSchemas;
  if (e.keyword === 'oneOf' && Array.isArray(passing)) {
    const found = passing.flatMap((i) => requiredKeys(branches[i]));
    const message = `${custom.many ?? `expected only one of ${keys.join(', ')}`}; found ${quoteList(found)}`;
    const second = found[1];
    return second === undefined
      ? { path, which: 'value', message: prefixed(path, message) }
      : { path: [...path, second], which: 'key', message: prefixed(path, message) };
  }
  const message = custom.none ?? `expected ${e.keyword === 'anyOf' ? 'at least one' : 'one'} of ${keys.join(', ')}`;
  return custom.at
    ? { path: [...path, custom.at], which: 'key', message: prefixed(path, message) }
    : { path, which: 'value', message: prefixed(path, message) };
}

function expectedBy(e: ErrorObject): string {
  const known = EXPECTED[pointerOf(e.parentSchema)];
  if (known) return known;
  return `expected ${branchesOf(e).map(branchWords).join(' or ')}`;
}

/**
 * A union's branch in words, for unions EXPECTED has no wording for (a new step kind needs none): an object
 * branch says its fields, "an object with command and optional args, cwd".
 */
function branchWords(b: SchemaNode): string {
  const fields = b.type === 'object' && b.properties && typeof b.properties === 'object' ? Object.keys(b.properties) : [];
  if (fields.length === 0) return typeNames(b.type);
  const required = Array.isArray(b.required) ? (b.required as string[]) : [];
  const optional = fields.filter((f) => !required.includes(f));
  if (required.length === 0) return `an object with any of ${optional.join(', ')}`;
  return `an object with ${required.join(', ')}${optional.length ? ` and optional ${optional.join(', ')}` : ''}`;
}

/** A failed anyOf/oneOf over different value shapes (as opposed to a choice of keys), nearest the root. */
function outermostUnion(errors: ErrorObject[]): ErrorObject | undefined {
  let best: ErrorObject | undefined;
  for (const e of errors) {
    const failedUnion = e.keyword === 'anyOf' || (e.keyword === 'oneOf' && (e.params as { passingSchemas?: unknown }).passingSchemas == null);
    if (!failedUnion || isKeyChoice(e)) continue;
    if (!best || e.instancePath.length < best.instancePath.length) best = e;
  }
  return best;
}

function isKeyChoice(e: ErrorObject): boolean {
  if (e.keyword !== 'oneOf' && e.keyword !== 'anyOf') return false;
  return branchesOf(e).every((b) => b.type === undefined && Object.keys(b).every((k) => k === 'required' || k === 'not'));
}

function branchesOf(e: ErrorObject): SchemaNode[] {
  const list = (e.parentSchema as SchemaNode | undefined)?.[e.keyword];
  return Array.isArray(list) ? (list as SchemaNode[]).map(deref) : [];
}

function deref(node: SchemaNode): SchemaNode {
  let current = node;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    let target: unknown = scenarioSchema;
    for (const seg of current.$ref.replace(/^#\//, '').split('/')) target = (target as SchemaNode)[seg];
    current = target as SchemaNode;
  }
  return current;
}

function pointerOf(node: unknown): string {
  return (node !== null && typeof node === 'object' && pointers.get(node)) || '';
}

function fitsType(branch: SchemaNode, value: unknown): boolean {
  switch (branch.type) {
    case 'null': return value === null;
    case 'string': return typeof value === 'string';
    case 'boolean': return typeof value === 'boolean';
    case 'number': return typeof value === 'number';
    case 'integer': return Number.isInteger(value);
    case 'array': return Array.isArray(value);
    case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value);
    default: return true;
  }
}

function requiredKeys(branch: SchemaNode | undefined): string[] {
  return Array.isArray(branch?.required) ? (branch.required as string[]) : [];
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string', number: 'a number', integer: 'an integer', boolean: 'a boolean',
  object: 'an object', array: 'a list', null: 'empty',
};

function typeNames(type: unknown): string {
  const list = Array.isArray(type) ? type : [type];
  return list.map((t) => TYPE_NAMES[String(t)] ?? String(t)).join(' or ');
}

function prefixed(path: DataPath, message: string): string {
  return path.length ? `${formatPath(path)}: ${message}` : message;
}

function isAtOrUnder(pointer: string, base: string): boolean {
  return pointer === base || pointer.startsWith(`${base}/`);
}

/** The fields that narrow a locator, listed apart so the fields of the step itself stand out. */
const NARROWING = ['nth', 'first', 'last', 'has_text', 'has_not_text', 'has', 'has_not', 'within', 'frame'];

function allowedText(keys: string[]): string {
  if (!NARROWING.every((k) => keys.includes(k))) return `one of ${keys.join(', ')}`;
  return `one of ${keys.filter((k) => !NARROWING.includes(k)).join(', ')}; or, to narrow the locator, ${NARROWING.join(', ')}`;
}

/** The known name a misspelling most likely meant: at most two edits away, and not a different short word. */
export function closest(word: string, known: string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(word.toLowerCase(), name.toLowerCase());
    if (d <= 2 && d < Math.max(word.length, name.length) / 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

export function quoteList(items: string[]): string {
  const quoted = items.map((s) => `'${s}'`);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}
