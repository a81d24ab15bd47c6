// Variables that steps save at run time (`save: out` on exec, read_file, spawn, clipboard, execute).
// Their values only exist while the scenario runs, so the compiler leaves `{{ out.stdout }}` for the
// runner, but it checks now that every use comes after the step that saves the name and that the
// field exists, so a typo is a file:line:col error rather than a failure halfway through a run.

import type { DataPath } from './path.js';
import { isPlainObject, templatePath } from './template.js';

/** The step kinds that can save, and the fields their saved values have (see runner/decode.ts). */
const FIELDS = {
  exec: { fields: ['stdout', 'stderr', 'exit_code', 'duration_ms', 'timed_out'], open: [] },
  spawn: { fields: ['process_id', 'pid', 'started_at'], open: [] },
  read_file: { fields: ['text', 'size_bytes', 'sha256', 'json'], open: ['json'] },
  clipboard: { fields: ['text'], open: [] },
  execute: { fields: ['result', 'stdout', 'stderr'], open: ['result'] },
} as const satisfies Record<string, { fields: readonly string[]; open: readonly string[] }>;

export type SavingKind = keyof typeof FIELDS;

/** Names the runner itself puts in scope. */
const RESERVED = ['session', 'serve', 'env'];

export interface SavedVariable {
  name: string;
  kind: SavingKind;
  /** Index of the saving step in `steps`. */
  step: number;
}

export interface SaveContext {
  fileVars: Record<string, unknown>;
  cliVars: Record<string, string>;
  report(at: DataPath, message: string): void;
}

/** Every `save:` in the steps, in order; reports names that would clash with other variables. */
export function collectSaves(steps: unknown[], ctx: SaveContext): SavedVariable[] {
  const saves: SavedVariable[] = [];
  steps.forEach((step, index) => {
    if (!isPlainObject(step)) return;
    for (const kind of Object.keys(FIELDS) as SavingKind[]) {
      const value = step[kind];
      if (!isPlainObject(value) || typeof value.save !== 'string') continue;
      const name = value.save;
      const at: DataPath = ['steps', index, kind, 'save'];
      if (RESERVED.includes(name)) ctx.report(at, `'${name}' is reserved for {{ ${name}.* }}; choose another name`);
      else if (Object.hasOwn(ctx.fileVars, name)) ctx.report(at, `'${name}' is already a variable in vars; choose another name`);
      else if (Object.hasOwn(ctx.cliVars, name)) ctx.report(at, `'${name}' is also given with --var; choose another name`);
      saves.push({ name, kind, step: index });
    }
  });
  return saves;
}

/**
 * Whether a template name (`out`, `out.stdout`, `report.json.total`) refers to a saved variable:
 * undefined if it does not, else `{}` when the use is fine or `{ error }` saying what is wrong.
 */
export function checkSavedUse(saves: SavedVariable[], name: string, usedAt: DataPath): { error?: string } | undefined {
  const [head = '', field, ...deeper] = templatePath(name);
  const all = saves.filter((s) => s.name === head);
  const first = all[0];
  if (!first) return undefined;
  const usedIn = usedAt[0] === 'steps' && typeof usedAt[1] === 'number' ? usedAt[1] : undefined;
  if (usedIn === undefined) return { error: `'${head}' is saved by steps[${first.step}] at run time, so only later steps can use it` };
  const saved = all.filter((s) => s.step < usedIn).at(-1);
  if (!saved) {
    const where = first.step === usedIn ? 'this step' : `steps[${first.step}]`;
    return { error: `'${head}' is used before it is saved: ${where} saves it, so only later steps can use it` };
  }
  if (field === undefined) return {};
  const shape = FIELDS[saved.kind];
  if (!(shape.fields as readonly string[]).includes(field)) {
    return { error: `'${head}' (saved by ${saved.kind}) has no field '${field}'; expected one of ${shape.fields.join(', ')}` };
  }
  if (deeper.length > 0 && !(shape.open as readonly string[]).includes(field)) {
    return { error: `'${head}.${field}' is ${article(saved.kind)} field with nothing inside it` };
  }
  return {};
}

/** The spawn step that saved `name` before step `before`, for wait_process; else why there is none. */
export function findProcess(saves: SavedVariable[], name: string, before: number): { error?: string } {
  const saved = saves.filter((s) => s.name === name && s.step < before).at(-1);
  if (!saved) {
    const later = saves.find((s) => s.name === name);
    return {
      error: later
        ? `'${name}' is saved by steps[${later.step}], which runs after this step`
        : `unknown process '${name}': no earlier spawn step has 'save: ${name}'`,
    };
  }
  if (saved.kind !== 'spawn') return { error: `'${name}' is saved by ${article(saved.kind)} step; wait_process needs a spawn step's process` };
  return {};
}

function article(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}
