// Checks loaded scenario data against the schema and reports every problem at its line and column.
// Steps are checked by hand first (which kind is it?) and then against that kind's own sub-schema, because
// a step checked as a whole only yields "must match exactly one schema in oneOf".

import type { Diagnostic } from './diagnostics.js';
import { sortDiagnostics } from './diagnostics.js';
import type { LoadedScenario } from './load.js';
import { formatPath } from './path.js';
import type { DataPath } from './path.js';
import { checkAgainst, quoteList, scenarioSchema } from './schema.js';
import type { Problem } from './schema.js';
import { isPlainObject } from './template.js';

interface StepSchema {
  properties: Record<string, unknown>;
  oneOf: { required: string[] }[];
}

const stepSchema = (scenarioSchema.$defs as Record<string, StepSchema>).step as StepSchema;

/** The step kinds, in the order the schema lists them (goto, click, fill, ...). */
export const STEP_KINDS: readonly string[] = stepSchema.oneOf.flatMap((b) => b.required);
/** Keys any step may carry beside its kind. */
const COMMON_KEYS = Object.keys(stepSchema.properties).filter((k) => !STEP_KINDS.includes(k));

export function validateScenario(loaded: LoadedScenario): Diagnostic[] {
  const { data } = loaded;
  // Errors inside a step are left to checkStep, which words them far better.
  const problems = checkAgainst('', data, []).filter((p) => !(p.path[0] === 'steps' && typeof p.path[1] === 'number'));
  if (isPlainObject(data) && Array.isArray(data.steps)) {
    data.steps.forEach((step, i) => problems.push(...checkStep(step, ['steps', i])));
  }
  return sortDiagnostics(
    problems.map((p) => ({ file: loaded.file, ...loaded.locate(p.path, p.which), message: p.message })),
  );
}

function checkStep(step: unknown, path: DataPath): Problem[] {
  const kindList = STEP_KINDS.join(', ');
  if (!isPlainObject(step)) {
    const message = typeof step === 'string' && STEP_KINDS.includes(step)
      ? `step '${step}' needs a colon: write '- ${step}:'`
      : `step must be an object with one kind; expected one of ${kindList}`;
    return [{ path, which: 'value', message }];
  }
  const keys = Object.keys(step);
  const kinds = keys.filter((k) => STEP_KINDS.includes(k));
  const problems: Problem[] = [];

  for (const key of keys) {
    if (STEP_KINDS.includes(key) || COMMON_KEYS.includes(key)) continue;
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
  for (const kind of kinds) problems.push(...checkAgainst(`/$defs/${kind}`, step[kind], [...path, kind]));
  for (const key of COMMON_KEYS) {
    if (key in step) problems.push(...checkAgainst(`/$defs/step/properties/${key}`, step[key], [...path, key]));
  }
  return problems;
}
