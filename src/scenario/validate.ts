// Checks loaded scenario data against the schema and reports every problem at its line and column.
// Steps are checked by hand first (which kind is it?) and then against that kind's own sub-schema, because
// a step checked as a whole only yields "must match exactly one schema in oneOf". Blocks hold steps of
// their own (and `if` a condition tree), which are checked the same way, as deep as they go.

import type { Diagnostic } from './diagnostics.js';
import { sortDiagnostics } from './diagnostics.js';
import type { LoadedScenario } from './load.js';
import { formatPath } from './path.js';
import type { DataPath } from './path.js';
import { checkAgainst, quoteList, scenarioSchema, schemaAccepts } from './schema.js';
import type { Problem } from './schema.js';
import { fieldsOf, nodeAt } from './schema-walk.js';
import { isPlainObject } from './template.js';

interface StepSchema {
  properties: Record<string, unknown>;
  oneOf: { required: string[] }[];
}

const stepSchema = (scenarioSchema.$defs as Record<string, StepSchema>).step as StepSchema;

/** The step kinds, in the order the schema lists them (goto, click, fill, ...). */
export const STEP_KINDS: readonly string[] = stepSchema.oneOf.map((b) => b.required[0]!);
/** Keys that belong to one kind only: `then`/`else` to `if`, `save` (at step level) to `function`. */
const KIND_KEYS: Record<string, string> = { then: 'if', else: 'if', save: 'function' };
/** Keys any step may carry beside its kind. */
const COMMON_KEYS = Object.keys(stepSchema.properties).filter((k) => !STEP_KINDS.includes(k) && !(k in KIND_KEYS));
/** Block kinds and the fields of their value that hold steps. */
const NESTED_STEPS: Record<string, string[]> = { repeat: ['steps'], for_each: ['steps'], retry: ['steps'] };
/** Top-level lists of steps. */
const STEP_LISTS = ['before', 'steps', 'after'];
const CONDITION_KEYS = ['var', 'failed', 'passed', 'exists', 'not', 'all', 'any'];

/**
 * A part (`*.part.yaml`) holds steps other scenarios include: folder scans do not run it, and it needs no
 * `name` of its own (an include reports its steps under the including scenario).
 */
export const PART_FILE = /\.part\.ya?ml$/;

export function validateScenario(loaded: LoadedScenario): Diagnostic[] {
  const part = PART_FILE.test(loaded.file) && isPlainObject(loaded.data) && !('name' in loaded.data);
  const data = part ? { name: 'part', ...(loaded.data as Record<string, unknown>) } : loaded.data;
  return sortDiagnostics(
    validateData(data).map((p) => ({ file: loaded.file, ...loaded.locate(p.path, p.which), message: p.message })),
  );
}

/** Checks a value against a schema node; what it finds, in words. */
type Check = (pointer: string, data: unknown, base: DataPath) => Problem[];
const schemaFine: Check = () => [];

function validateData(data: unknown): Problem[] {
  // A file the whole schema accepts has nothing for ajv to explain, only the rules the schema cannot say.
  const check: Check = schemaAccepts(data) ? schemaFine : checkAgainst;
  // Errors inside a step are left to checkStep, which words them far better.
  const problems = check('', data, []).filter((p) => !isInsideStep(p.path, []));
  if (isPlainObject(data)) {
    for (const list of STEP_LISTS) {
      const steps = data[list];
      if (Array.isArray(steps)) steps.forEach((step, i) => problems.push(...checkStep(step, [list, i], check)));
    }
  }
  return problems;
}

/** Whether `path` points into one of the steps of the list at `base` (`[...base, list, i, ...]`). */
function isInsideStep(path: DataPath, base: DataPath, lists = STEP_LISTS): boolean {
  if (path.length <= base.length + 1 || !base.every((seg, i) => path[i] === seg)) return false;
  return lists.includes(String(path[base.length])) && typeof path[base.length + 1] === 'number';
}

function checkStep(step: unknown, path: DataPath, check: Check): Problem[] {
  const kindList = STEP_KINDS.join(', ');
  if (!isPlainObject(step)) {
    const message = typeof step === 'string' && STEP_KINDS.includes(step)
      ? `step '${step}' needs a colon: write '- ${step}:'`
      : `step must be an object with one kind; expected one of ${kindList}`;
    return [{ path, which: 'value', message }];
  }
  const keys = Object.keys(step);
  const kinds = keys.filter((k) => STEP_KINDS.includes(k));
  const misplaced = misindented(step, kinds);
  if (misplaced) return [misplaced(path)];
  const problems: Problem[] = [];

  for (const key of keys) {
    if (STEP_KINDS.includes(key) || COMMON_KEYS.includes(key)) continue;
    const owner = KIND_KEYS[key];
    if (owner !== undefined) {
      if (!kinds.includes(owner)) {
        const message = owner === 'if'
          ? `'${key}' belongs to an 'if' step: write '- if: <condition>' above it`
          : `'save' beside the kind applies to function steps; ${kinds[0] ? `a ${kinds[0]} step takes 'save' inside '${kinds[0]}'` : 'other steps take it inside their kind'}`;
        problems.push({ path: [...path, key], which: 'key', message });
      }
      continue;
    }
    // Beside a valid kind, a stray key is more likely a misplaced option than a misspelt kind.
    const message = kinds.length === 0
      ? `unknown step kind '${key}'; expected one of ${kindList}`
      : `unknown field '${key}' in ${formatPath(path)}; a step has one kind ('${kinds[0]}') plus optional ${COMMON_KEYS.join(', ')}`;
    problems.push({ path: [...path, key], which: 'key', message });
  }
  if (kinds.length === 0 && problems.length === 0) {
    problems.push({ path, which: 'value', message: `step has no kind; expected one of ${kindList}` });
  }
  const second = kinds[1];
  if (second !== undefined) {
    problems.push({ path: [...path, second], which: 'key', message: `a step has exactly one kind, found ${quoteList(kinds)}` });
  }
  for (const kind of kinds) problems.push(...checkKind(kind, step[kind], [...path, kind], check));
  for (const key of [...COMMON_KEYS, ...Object.keys(KIND_KEYS)]) {
    if (key in step) problems.push(...checkNested(`/$defs/step/properties/${key}`, step[key], [...path, key], check));
  }
  if (kinds.includes('if') && !('then' in step)) {
    problems.push({ path: [...path, 'if'], which: 'key', message: "an 'if' step needs 'then': the steps to run when the condition holds" });
  }
  if ('retry_delay' in step && !('retries' in step)) {
    problems.push({ path: [...path, 'retry_delay'], which: 'key', message: "'retry_delay' applies with 'retries'" });
  }
  const block = kinds.find((k) => k in NESTED_STEPS || k === 'if' || k === 'include');
  if ('retries' in step && block !== undefined) {
    const message = block === 'retry'
      ? "'retries' applies to single steps; a retry block says how often with 'attempts'"
      : `'retries' applies to single steps; to run the steps of ${article(block)} block again, put them in a 'retry' block`;
    problems.push({ path: [...path, 'retries'], which: 'key', message });
  }
  return problems;
}

/**
 * `- fill:` with nothing after it and the fields it wanted one level too far left: YAML reads them as keys
 * of the step. Said as what it is, instead of an empty fill and strangers beside it.
 */
function misindented(step: Record<string, unknown>, kinds: string[]): ((path: DataPath) => Problem) | undefined {
  const kind = kinds[0];
  if (kinds.length !== 1 || step[kind!] !== null) return undefined;
  const fields = fieldsOf(nodeAt(`/$defs/step/properties/${kind}`));
  const strays = Object.keys(step).filter((k) => k !== kind && fields.has(k) && !STEP_KINDS.includes(k));
  if (strays.length === 0) return undefined;
  return (path) => ({
    path: [...path, kind!],
    which: 'key',
    message: `'${kind}' is empty and ${quoteList(strays)} ${strays.length === 1 ? 'sits' : 'sit'} beside it: indent ${strays.length === 1 ? 'it' : 'them'} two more spaces under '${kind}:'`,
  });
}

function checkKind(kind: string, value: unknown, path: DataPath, check: Check): Problem[] {
  if (kind === 'if') return checkCondition(value, path, check);
  const pointer = `/$defs/step/properties/${kind}`;
  const lists = NESTED_STEPS[kind];
  if (!lists) return check(pointer, value, path);
  const problems = check(pointer, value, path).filter((p) => !isInsideStep(p.path, path, lists));
  if (isPlainObject(value)) {
    for (const list of lists) {
      const steps = value[list];
      if (Array.isArray(steps)) steps.forEach((step, i) => problems.push(...checkStep(step, [...path, list, i], check)));
    }
  }
  return problems;
}

/** A step-level key; `then`/`else` hold steps, checked one by one. */
function checkNested(pointer: string, value: unknown, path: DataPath, check: Check): Problem[] {
  const problems = check(pointer, value, path).filter((p) => !(p.path.length > path.length && typeof p.path[path.length] === 'number'));
  if ((pointer.endsWith('/then') || pointer.endsWith('/else')) && Array.isArray(value)) {
    value.forEach((step, i) => problems.push(...checkStep(step, [...path, i], check)));
  }
  return problems;
}

/** Conditions are told apart by their one key (var, failed, not, ...), like steps by their kind. */
function checkCondition(cond: unknown, path: DataPath, check: Check): Problem[] {
  const expected = `expected one of ${CONDITION_KEYS.join(', ')}`;
  if (!isPlainObject(cond)) {
    return [{ path, which: 'value', message: `${formatPath(path)}: a condition is an object such as { var: name, equals: value }; ${expected}` }];
  }
  const heads = Object.keys(cond).filter((k) => CONDITION_KEYS.includes(k));
  if (heads.length === 0) {
    const stray = Object.keys(cond)[0];
    return stray === undefined
      ? [{ path, which: 'value', message: `${formatPath(path)}: empty condition; ${expected}` }]
      : [{ path: [...path, stray], which: 'key', message: `unknown condition '${stray}' in ${formatPath(path)}; ${expected}` }];
  }
  if (heads.length > 1) {
    return [{ path: [...path, heads[1]!], which: 'key', message: `a condition has exactly one of ${CONDITION_KEYS.join(', ')}, found ${quoteList(heads)}` }];
  }
  const head = heads[0]!;
  if (head === 'not') {
    const stray = Object.keys(cond).find((k) => k !== 'not');
    const problems = checkCondition(cond.not, [...path, 'not'], check);
    if (stray) problems.push({ path: [...path, stray], which: 'key', message: `unknown field '${stray}' in ${formatPath(path)}; 'not' stands alone` });
    return problems;
  }
  if (head === 'all' || head === 'any') {
    const problems = check(`/$defs/${head}_condition`, cond, path).filter((p) => !(p.path.length > path.length + 1 && typeof p.path[path.length + 1] === 'number'));
    const list = cond[head];
    if (Array.isArray(list)) list.forEach((c, i) => problems.push(...checkCondition(c, [...path, head, i], check)));
    return problems;
  }
  return check(`/$defs/${head === 'var' ? 'var' : head}_condition`, cond, path);
}

function article(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} '${kind}'`;
}
