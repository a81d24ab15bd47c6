// The first pass of compiling: the tree of steps in execution order, with included files read (and
// validated) in place. Every step gets its place in execution order (`seq`), so the second pass can tell
// whether a saved value is used after the step that saves it, wherever the two are written.

import path from 'node:path';
import type { Diagnostic } from './diagnostics.js';
import { ScenarioError } from './diagnostics.js';
import { loadScenarioFileSync, type LoadedScenario } from './load.js';
import { formatPath, type DataPath } from './path.js';
import { nameClash, saveOf, type SavedVariable } from './saves.js';
import { hasTemplate, isPlainObject } from './template.js';
import { STEP_KINDS, validateScenario } from './validate.js';

type Obj = Record<string, unknown>;

/** The root scenario file or an included one, with where its diagnostics go. */
export interface ScenarioFile {
  loaded: LoadedScenario;
  data: Obj;
  /** Relative paths in the file (local files, includes, secret files) start here. */
  dir: string;
  /** The include chain from the root file down to this one, as written and as absolute paths. */
  chain: { file: string; abs: string }[];
  report(at: DataPath, message: string, which?: 'key' | 'value'): void;
}

export interface StepNode {
  file: ScenarioFile;
  /** Where the step is written in its file: `['steps', 2]`, `['steps', 0, 'repeat', 'steps', 1]`. */
  at: DataPath;
  step: Obj;
  kind: string;
  /** Place in execution order (pre-order: a block before its steps). */
  seq: number;
  /** Loop variables (`as`) of the blocks around the step, in this file. */
  loopVars: string[];
  /** Nested steps: `then`/`else` of an if, `steps` of a loop or retry, and of an include its file's steps. */
  children: Record<string, StepNode[]>;
  /** The file an include step runs, when it could be read and is valid. */
  included?: ScenarioFile;
}

export interface DeclaredSecret {
  name: string;
  source: { env: string } | { file: string };
  file: ScenarioFile;
}

export interface Expansion {
  before: StepNode[];
  steps: StepNode[];
  after: StepNode[];
  saves: SavedVariable[];
  secrets: DeclaredSecret[];
}

/** Top-level fields that mean something only for the scenario that runs, not for an included file. */
const NOT_IN_INCLUDES = ['serve', 'web_server', 'browser', 'replay', 'telemetry', 'timeout', 'screenshot_on_failure', 'before', 'after'];
const LOOP_KINDS: Record<string, string | undefined> = { repeat: undefined, for_each: 'item' };

export function scenarioFile(loaded: LoadedScenario, chain: ScenarioFile['chain'], problems: Diagnostic[]): ScenarioFile {
  return {
    loaded,
    data: isPlainObject(loaded.data) ? loaded.data : {},
    dir: path.dirname(path.resolve(loaded.file)),
    chain: [...chain, { file: loaded.file, abs: path.resolve(loaded.file) }],
    report: (at, message, which = 'value') => problems.push({ file: loaded.file, ...loaded.locate(at, which), message }),
  };
}

/**
 * `hookFiles`: the folder defaults files with hooks, outermost first; their `before_each` steps run ahead
 * of the scenario's `before` (outermost first), their `after_each` steps after its `after` (nearest first,
 * as Playwright runs an inner `afterEach` before an outer one).
 */
export function expandScenario(root: ScenarioFile, cliVars: Record<string, unknown>, problems: Diagnostic[], hookFiles: ScenarioFile[] = []): Expansion {
  let seq = 0;
  const saves: SavedVariable[] = [];
  const secrets: DeclaredSecret[] = [];
  const loopVars: { name: string; file: ScenarioFile; at: DataPath }[] = [];

  function declareSecrets(file: ScenarioFile): void {
    if (!isPlainObject(file.data.secrets)) return;
    for (const [name, source] of Object.entries(file.data.secrets)) {
      if (!isPlainObject(source)) continue;
      const declared: DeclaredSecret = { name, source: typeof source.env === 'string' ? { env: source.env } : { file: String(source.file) }, file };
      const earlier = secrets.find((s) => s.name === name);
      if (!earlier) secrets.push(declared);
      else if (JSON.stringify(sourceKey(earlier)) !== JSON.stringify(sourceKey(declared))) {
        file.report(['secrets', name], `secret '${name}' is already declared by ${earlier.file.loaded.file} with another source`, 'key');
      }
    }
  }

  function list(file: ScenarioFile, steps: unknown, at: DataPath, vars: string[]): StepNode[] {
    return Array.isArray(steps) ? steps.map((step, i) => node(file, step as Obj, [...at, i], vars)) : [];
  }

  function node(file: ScenarioFile, step: Obj, at: DataPath, vars: string[]): StepNode {
    const kind = STEP_KINDS.find((k) => k in step) as string;
    const n: StepNode = { file, at, step, kind, seq: seq++, loopVars: vars, children: {} };
    const fileVars = isPlainObject(file.data.vars) ? file.data.vars : {};
    const saved = saveOf(step, at, n.seq, where(file, at), { fileVars, cliVars, report: file.report });
    if (saved) saves.push(saved);
    const value = step[kind];
    if (kind === 'if') {
      n.children.then = list(file, step.then, [...at, 'then'], vars);
      n.children.else = list(file, step.else, [...at, 'else'], vars);
    } else if (kind in LOOP_KINDS || kind === 'retry') {
      const block = value as Obj;
      const as = typeof block.as === 'string' ? block.as : LOOP_KINDS[kind];
      if (as !== undefined) {
        const asAt: DataPath = typeof block.as === 'string' ? [...at, kind, 'as'] : [...at, kind];
        const clash = nameClash(as, { fileVars, cliVars });
        if (clash) file.report(asAt, clash.replace('choose another name', "choose another name with 'as'"));
        loopVars.push({ name: as, file, at: asAt });
      }
      n.children.steps = list(file, block.steps, [...at, kind, 'steps'], as === undefined ? vars : [...vars, as]);
    } else if (kind === 'include') {
      include(n, file);
    }
    return n;
  }

  function include(n: StepNode, parent: ScenarioFile): void {
    const value = n.step.include;
    const written = typeof value === 'string' ? value : String((value as Obj).file);
    const at: DataPath = typeof value === 'string' ? [...n.at, 'include'] : [...n.at, 'include', 'file'];
    if (hasTemplate(written)) {
      parent.report(at, "an include's file is read when the scenario compiles, so it cannot use templates");
      return;
    }
    const file = path.isAbsolute(written) ? written : path.join(path.dirname(parent.loaded.file), written);
    const abs = path.resolve(file);
    if (parent.chain.some((c) => c.abs === abs)) {
      parent.report(at, `include cycle: ${[...parent.chain.map((c) => c.file), file].join(' -> ')}`);
      return;
    }
    let loaded: LoadedScenario;
    try {
      loaded = loadScenarioFileSync(file);
    } catch (err) {
      if (!(err instanceof ScenarioError)) throw err;
      // A file that cannot be read is reported where it is named; one that does not parse, inside it.
      const first = err.diagnostics[0];
      if (err.diagnostics.length === 1 && first?.line === 1 && first.col === 1 && !first.message.startsWith('invalid YAML')) {
        parent.report(at, `included ${first.message}: ${file}`);
      } else problems.push(...err.diagnostics);
      return;
    }
    const diagnostics = validateScenario(loaded);
    if (diagnostics.length > 0) {
      problems.push(...diagnostics);
      return;
    }
    const included = scenarioFile(loaded, parent.chain, problems);
    for (const key of Object.keys(included.data)) {
      if (NOT_IN_INCLUDES.includes(key)) {
        included.report([key], `'${key}' has no effect in an included file: only its vars, secrets and steps are used`, 'key');
      }
    }
    const params = Object.keys(isPlainObject(included.data.vars) ? included.data.vars : {});
    const given = isPlainObject(value) && isPlainObject(value.with) ? value.with : {};
    for (const name of Object.keys(given)) {
      if (params.includes(name)) continue;
      const known = params.length ? `its vars are ${params.join(', ')}` : 'it has no vars';
      parent.report([...n.at, 'include', 'with', name], `'${name}' is not a variable of ${file}; ${known}`, 'key');
    }
    declareSecrets(included);
    n.included = included;
    n.children.steps = list(included, included.data.steps, ['steps'], []);
  }

  declareSecrets(root);
  const expansion: Expansion = {
    before: [...hookFiles.flatMap((f) => list(f, f.data.before_each, ['before_each'], [])), ...list(root, root.data.before, ['before'], [])],
    steps: list(root, root.data.steps, ['steps'], []),
    after: [...list(root, root.data.after, ['after'], []), ...[...hookFiles].reverse().flatMap((f) => list(f, f.data.after_each, ['after_each'], []))],
    saves,
    secrets,
  };
  // A loop variable and a saved value of the same name would shadow each other at run time.
  for (const v of loopVars) {
    if (saves.some((s) => s.name === v.name)) v.file.report(v.at, `'${v.name}' is also saved by a step; choose another name with 'as'`);
  }
  return expansion;
}

/** `steps[3]` in the root file, `parts/login.yaml steps[1]` in an included one: where a save is written. */
function where(file: ScenarioFile, at: DataPath): string {
  return file.chain.length > 1 ? `${file.loaded.file} ${formatPath(at)}` : formatPath(at);
}

function sourceKey(s: DeclaredSecret): unknown {
  return 'env' in s.source ? s.source : { file: path.resolve(s.file.dir, s.source.file) };
}
