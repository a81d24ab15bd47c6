// Variables that steps save at run time (`save: out` on exec, read_file, spawn, clipboard, execute, invoke,
// and a function step's result). Their values only exist while the scenario runs, so the compiler leaves
// `{{ out.stdout }}` for the runner, but it checks now that every use comes after the step that saves the
// name (in execution order, across blocks and included files) and that the field exists, so a typo is a
// file:line:col error rather than a failure halfway through a run.

import type { DataPath } from './path.js';
import { isPlainObject, templatePath } from './template.js';

/** The step kinds that can save, and the fields their saved values have (see runner/exec/decode.ts). */
const FIELDS = {
  exec: { fields: ['stdout', 'stderr', 'exit_code', 'duration_ms', 'timed_out'], open: [] },
  spawn: { fields: ['process_id', 'pid', 'started_at'], open: [] },
  read_file: { fields: ['text', 'size_bytes', 'sha256', 'json'], open: ['json'] },
  clipboard: { fields: ['text'], open: [] },
  execute: { fields: ['result', 'stdout', 'stderr'], open: ['result'] },
  invoke: { fields: ['id', 'status', 'status_reason', 'output'], open: ['output'] },
  request: { fields: ['status', 'headers', 'text', 'json'], open: ['json', 'headers'] },
  wait_for_response: { fields: ['status', 'headers', 'text', 'json', 'url'], open: ['json', 'headers'] },
  wait_for_download: { fields: ['name', 'path', 'url', 'file', 'text', 'size_bytes', 'sha256', 'json'], open: ['json'] },
} as const satisfies Record<string, { fields: readonly string[]; open: readonly string[] }>;

/** `function` and `script`: whatever the code returned, so any field may be there. */
export type SavingKind = keyof typeof FIELDS | 'function' | 'script';

/** Names the runner itself puts in scope. */
export const RESERVED = ['session', 'serve', 'env', 'secrets', 'web_server', 'run'];

export interface SavedVariable {
  name: string;
  kind: SavingKind;
  /** The saving step's place in execution order. */
  seq: number;
  /** The saving step for messages: `steps[3]`, `steps[0].repeat.steps[1]`, `parts/login.yaml steps[2]`. */
  where: string;
}

export interface SaveContext {
  fileVars: Record<string, unknown>;
  cliVars: Record<string, unknown>;
  report(at: DataPath, message: string): void;
}

/** The `save:` of one step (inside its kind, or beside `function`), if any; reports names that would clash. */
export function saveOf(step: unknown, at: DataPath, seq: number, where: string, ctx: SaveContext): SavedVariable | undefined {
  if (!isPlainObject(step)) return undefined;
  let found: { name: string; kind: SavingKind; at: DataPath } | undefined;
  if (typeof step.function === 'string' && typeof step.save === 'string') found = { name: step.save, kind: 'function', at: [...at, 'save'] };
  if (isPlainObject(step.script) && typeof step.script.save === 'string') found = { name: step.script.save, kind: 'script', at: [...at, 'script', 'save'] };
  for (const kind of Object.keys(FIELDS) as (keyof typeof FIELDS)[]) {
    const value = step[kind];
    if (isPlainObject(value) && typeof value.save === 'string') found = { name: value.save, kind, at: [...at, kind, 'save'] };
  }
  if (!found) return undefined;
  const clash = nameClash(found.name, ctx);
  if (clash) ctx.report(found.at, clash);
  return { name: found.name, kind: found.kind, seq, where };
}

/** Why a name a scenario introduces (a save, a loop variable) cannot be used; undefined when it can. */
export function nameClash(name: string, ctx: Pick<SaveContext, 'fileVars' | 'cliVars'>): string | undefined {
  if (RESERVED.includes(name)) return `'${name}' is reserved for {{ ${name}.* }}; choose another name`;
  if (Object.hasOwn(ctx.fileVars, name)) return `'${name}' is already a variable in vars; choose another name`;
  if (Object.hasOwn(ctx.cliVars, name)) return `'${name}' is also given with --var; choose another name`;
  return undefined;
}

/**
 * Whether a template name (`out`, `out.stdout`, `report.json.total`) refers to a saved variable:
 * undefined if it does not, else `{}` when the use (at `seq`; none outside steps) is fine or `{ error }`.
 */
export function checkSavedUse(saves: SavedVariable[], name: string, seq: number | undefined): { error?: string } | undefined {
  const [head = '', field, ...deeper] = templatePath(name);
  const all = saves.filter((s) => s.name === head);
  const first = all[0];
  if (!first) return undefined;
  if (seq === undefined) return { error: `'${head}' is saved by ${first.where} at run time, so only later steps can use it` };
  const saved = all.filter((s) => s.seq < seq).at(-1);
  if (!saved) {
    const where = first.seq === seq ? 'this step' : first.where;
    return { error: `'${head}' is used before it is saved: ${where} saves it, so only later steps can use it` };
  }
  if (field === undefined || saved.kind === 'function' || saved.kind === 'script') return {};
  const shape = FIELDS[saved.kind];
  if (!(shape.fields as readonly string[]).includes(field)) {
    return { error: `'${head}' (saved by ${saved.kind}) has no field '${field}'; expected one of ${shape.fields.join(', ')}` };
  }
  if (deeper.length > 0 && !(shape.open as readonly string[]).includes(field)) {
    return { error: `'${head}.${field}' is ${article(saved.kind)} field with nothing inside it` };
  }
  return {};
}

/** The spawn step that saved `name` before the step at `seq`, for wait_process; else why there is none. */
export function findProcess(saves: SavedVariable[], name: string, seq: number): { error?: string } {
  const saved = saves.filter((s) => s.name === name && s.seq < seq).at(-1);
  if (!saved) {
    const later = saves.find((s) => s.name === name);
    return {
      error: later
        ? `'${name}' is saved by ${later.where}, which runs after this step`
        : `unknown process '${name}': no earlier spawn step has 'save: ${name}'`,
    };
  }
  if (saved.kind !== 'spawn') return { error: `'${name}' is saved by ${article(saved.kind)} step; wait_process needs a spawn step's process` };
  return {};
}

function article(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}
