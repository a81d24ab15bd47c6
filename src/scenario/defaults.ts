// Folder defaults: a `bcs.defaults.yaml` says once what every scenario in its folder and below shares (the
// browser, `serve`/`web_server`, context options, tags, vars, timeouts, hooks), as Playwright Test's config
// `use` and `test.beforeEach` do. The files from the project's root down to the scenario's folder are
// merged, nearest winning, and the scenario over all of them; each merged value remembers the file and line
// it came from, so problems are reported there and `bcs plan` can say where a value was set.

import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ScenarioError, sortDiagnostics, type Diagnostic } from './diagnostics.js';
import { loadScenarioFileSync, type LoadedScenario, type Position } from './load.js';
import type { DataPath } from './path.js';
import type { DefaultedField } from './plan.js';
import { closest } from './schema.js';
import { hasTemplate, isPlainObject } from './template.js';
import { validateScenario } from './validate.js';

type Obj = Record<string, unknown>;

export const DEFAULTS_FILES = ['bcs.defaults.yaml', 'bcs.defaults.yml'];
/** A defaults file is never a scenario: folder scans skip it, `bcs run` refuses it. */
export const DEFAULTS_FILE = /(^|[\\/])bcs\.defaults\.ya?ml$/;
/** A folder holding one of these is the project's root: defaults are not looked for above it. */
const ROOT_MARKERS = ['bcs.config.yaml', 'bcs.config.yml', 'package.json', '.git'];

/** Hooks: steps run before (after) each scenario's own `before` (`after`) steps. */
const HOOKS = ['before_each', 'after_each'] as const;
/** What a defaults file may set: the scenario fields every scenario of a folder can share, and the hooks. */
export const DEFAULT_FIELDS = [
  'tags', 'vars', 'secrets', 'serve', 'web_server', 'base_url', 'browser', 'context', 'replay', 'telemetry',
  'timeout', 'trace', 'screenshot_on_failure', ...HOOKS,
] as const;
/** Maps merged key by key, the nearer file's key winning; any other field is taken whole from the nearest file that sets it. */
const KEYED = new Set(['vars', 'secrets', 'browser', 'context']);
/** Fields that belong to one scenario, with what to say when a defaults file sets one. */
const SCENARIO_ONLY: Record<string, string> = {
  name: 'each scenario names itself',
  description: 'each scenario describes itself',
  steps: "steps belong to a scenario; steps every scenario runs go in 'before_each' or 'after_each'",
  before: "a defaults file's hooks are 'before_each' (run ahead of each scenario's own 'before' steps) and 'after_each'",
  after: "a defaults file's hooks are 'after_each' (run after each scenario's own 'after' steps, also when a step failed) and 'before_each'",
  each: 'rows belong to one scenario',
  skip: 'annotations belong to one scenario',
  fixme: 'annotations belong to one scenario',
  only: 'annotations belong to one scenario',
  slow: 'annotations belong to one scenario',
};

/** One defaults file, read and checked. */
export interface DefaultsLayer {
  loaded: LoadedScenario;
  data: Obj;
  dir: string;
}

/** A scenario with its folder's defaults merged in: `data` is what the scenario means, `locate` finds each part where it was written. */
export interface DefaultedScenario extends LoadedScenario {
  /** The defaults files whose hooks run, outermost first (their `before_each` first, their `after_each` last). */
  hooks: DefaultsLayer[];
  /** The values taken from defaults files, for `bcs plan`. */
  defaults: DefaultedField[];
}

/** The defaults files that apply to a scenario file, outermost first. */
export function defaultsFilesFor(scenarioFile: string): string[] {
  const found: string[] = [];
  let dir = path.dirname(path.resolve(scenarioFile));
  for (;;) {
    const here = DEFAULTS_FILES.map((name) => path.join(dir, name)).filter((f) => existsSync(f));
    found.unshift(...here.reverse());
    const parent = path.dirname(dir);
    if (parent === dir || ROOT_MARKERS.some((m) => existsSync(path.join(dir, m)))) break;
    dir = parent;
  }
  return found;
}

/**
 * Defaults files read so far, by the name they were read under, with the modification time and size they
 * had: every scenario of a folder shares its defaults file, which is read and checked once (100 scenarios
 * under one file compiled in 514 ms re-reading it, 246 ms without one). An edited file is read again.
 */
const readLayers = new Map<string, { mtimeMs: number; size: number; layer: DefaultsLayer }>();

/** Reads and checks a defaults file; throws ScenarioError with every problem at its line and column. */
export function loadDefaultsFile(file: string): DefaultsLayer {
  const stat = statSync(file, { throwIfNoEntry: false });
  const key = `${path.resolve(file)}\0${file}`;
  const known = stat && readLayers.get(key);
  // Each scenario gets its own copy of the data, so nothing one compile does to it reaches another's.
  if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return { ...known.layer, data: structuredClone(known.layer.data) };
  const loaded = loadScenarioFileSync(file);
  const diagnostics = validateDefaults(loaded);
  if (diagnostics.length > 0) throw new ScenarioError(diagnostics);
  const layer = { loaded, data: isPlainObject(loaded.data) ? loaded.data : {}, dir: path.dirname(path.resolve(file)) };
  if (stat) readLayers.set(key, { mtimeMs: stat.mtimeMs, size: stat.size, layer: { ...layer, data: structuredClone(layer.data) } });
  return layer;
}

/**
 * A defaults file is checked as the scenario it stands for would be (the same schema, the same messages),
 * its hooks as `before`/`after` steps; then the messages name the hooks as the file does.
 */
export function validateDefaults(loaded: LoadedScenario): Diagnostic[] {
  const file = loaded.file;
  if (loaded.data === null || loaded.data === undefined) return [];
  if (!isPlainObject(loaded.data)) {
    return [{ file, line: 1, col: 1, message: `a defaults file is a YAML mapping of fields every scenario below it shares: ${DEFAULT_FIELDS.join(', ')}` }];
  }
  const problems: Diagnostic[] = [];
  // A scenario needs a name and a step; these stand in for them and are never reported.
  const shape: Obj = { name: 'defaults', steps: [{ sleep: '1ms' }] };
  for (const [key, value] of Object.entries(loaded.data)) {
    if ((DEFAULT_FIELDS as readonly string[]).includes(key)) {
      shape[key === 'before_each' ? 'before' : key === 'after_each' ? 'after' : key] = value;
      continue;
    }
    const why = SCENARIO_ONLY[key];
    const near = closest(key, [...DEFAULT_FIELDS]);
    const message = why
      ? `'${key}' has no place in a defaults file: ${why}`
      : `unknown field '${key}' in a defaults file; ${near ? `did you mean '${near}'? ` : ''}expected one of ${DEFAULT_FIELDS.join(', ')}`;
    problems.push({ file, ...loaded.locate([key], 'key'), message });
  }
  const asWritten = (at: DataPath): DataPath => (at[0] === 'before' ? ['before_each', ...at.slice(1)] : at[0] === 'after' ? ['after_each', ...at.slice(1)] : at);
  const asScenario: LoadedScenario = { file, data: shape, locate: (at, which) => loaded.locate(asWritten(at), which) };
  for (const d of validateScenario(asScenario)) {
    problems.push({ ...d, message: d.message.replace(/(^|[^\w])(before|after)\[/g, '$1$2_each[') });
  }
  return sortDiagnostics(problems);
}

/** Where a merged value came from: a defaults layer (or the scenario itself, without one) and its path there. */
interface Origin {
  layer?: DefaultsLayer;
  at: DataPath;
}

/**
 * The scenario with the defaults of its folders merged in, nearest winning: maps (`vars`, `secrets`,
 * `browser`, `context`) key by key, `tags` as the union, every other field whole. A `browser` that leases
 * from a pool (or that a pool would replace) is taken whole, since a lease takes no other settings.
 * Relative paths in a defaults file (`serve`, `web_server.cwd`, `context.storage_state`, secret files)
 * are relative to that file; they are rewritten to be relative to the scenario.
 */
export function applyDefaults(scenario: LoadedScenario, layers: DefaultsLayer[]): DefaultedScenario {
  const own = isPlainObject(scenario.data) ? scenario.data : undefined;
  if (layers.length === 0 || !own) return { ...scenario, hooks: [], defaults: [] };
  const scenarioDir = path.dirname(path.resolve(scenario.file));
  const merged: Obj = {};
  const fieldOrigin = new Map<string, Origin>();
  const keyOrigin = new Map<string, Map<string, Origin>>();
  const tagOrigin: Origin[] = [];

  const sources: { layer?: DefaultsLayer; data: Obj }[] = [
    ...layers.map((layer) => ({ layer, data: relocated(layer, scenarioDir) })),
    { data: own },
  ];
  for (const { layer, data } of sources) {
    for (const [field, value] of Object.entries(data)) {
      if ((HOOKS as readonly string[]).includes(field)) continue;
      if (field === 'tags' && Array.isArray(value)) {
        const tags = (Array.isArray(merged.tags) ? merged.tags : []) as unknown[];
        value.forEach((tag, i) => {
          if (tags.includes(tag)) return;
          tags.push(tag);
          tagOrigin.push({ layer, at: ['tags', i] });
        });
        merged.tags = tags;
        fieldOrigin.set(field, { layer, at: [field] });
        continue;
      }
      const before = merged[field];
      const keyed = KEYED.has(field) && isPlainObject(value) && isPlainObject(before) && !(field === 'browser' && ('pool' in before || 'pool' in value));
      const keys = keyed ? keyOrigin.get(field)! : new Map<string, Origin>();
      if (isPlainObject(value)) for (const key of Object.keys(value)) keys.set(key, { layer, at: [field, key] });
      keyOrigin.set(field, keys);
      merged[field] = keyed ? { ...(before as Obj), ...value } : value;
      fieldOrigin.set(field, { layer, at: [field] });
    }
  }

  const place = (o: Origin, at: DataPath, which: 'key' | 'value' | undefined): Position =>
    o.layer ? { ...o.layer.loaded.locate(at, which), file: o.layer.loaded.file } : scenario.locate(at, which);
  const locate = (at: DataPath, which?: 'key' | 'value'): Position => {
    const field = String(at[0]);
    if (at.length === 0 || !fieldOrigin.has(field)) return scenario.locate(at, which);
    if (field === 'tags' && typeof at[1] === 'number' && tagOrigin[at[1]]) return place(tagOrigin[at[1]]!, [...tagOrigin[at[1]]!.at, ...at.slice(2)], which);
    const byKey = at.length > 1 ? keyOrigin.get(field)?.get(String(at[1])) : undefined;
    if (byKey) return place(byKey, at, which);
    return place(fieldOrigin.get(field)!, at, which);
  };

  const defaults: DefaultedField[] = [];
  const note = (field: string, o: Origin) => {
    if (o.layer) defaults.push({ field, file: o.layer.loaded.file, ...o.layer.loaded.locate(o.at, 'key') });
  };
  for (const [field, o] of fieldOrigin) {
    if (field === 'tags') tagOrigin.forEach((t, i) => note(`tags: ${String((merged.tags as unknown[])[i])}`, t));
    else if (KEYED.has(field) && isPlainObject(merged[field])) for (const [key, k] of keyOrigin.get(field)!) note(`${field}.${key}`, k);
    else note(field, o);
  }
  const hooks = layers.filter((l) => HOOKS.some((h) => Array.isArray(l.data[h]) && (l.data[h] as unknown[]).length > 0));
  for (const layer of layers) {
    for (const hook of HOOKS) {
      const steps = layer.data[hook];
      if (Array.isArray(steps) && steps.length) defaults.push({ field: `${hook} (${steps.length} step${steps.length === 1 ? '' : 's'})`, file: layer.loaded.file, ...layer.loaded.locate([hook], 'key') });
    }
  }
  return { file: scenario.file, data: { ...merged, ...withoutMerged(own) }, locate, hooks, defaults };
}

/** The scenario's own fields that defaults do not touch (name, steps, before, ...), as written. */
function withoutMerged(own: Obj): Obj {
  return Object.fromEntries(Object.entries(own).filter(([k]) => !(DEFAULT_FIELDS as readonly string[]).includes(k)));
}

/** A layer's data with its relative paths made relative to the scenario's folder. */
function relocated(layer: DefaultsLayer, scenarioDir: string): Obj {
  const from = (p: unknown): unknown => {
    if (typeof p !== 'string' || hasTemplate(p) || path.isAbsolute(p)) return p;
    return path.relative(scenarioDir, path.resolve(layer.dir, p)) || '.';
  };
  const data: Obj = { ...layer.data };
  if (data.serve !== undefined) data.serve = from(data.serve);
  if (isPlainObject(data.web_server)) data.web_server = { ...data.web_server, cwd: from(data.web_server.cwd ?? '.') };
  if (isPlainObject(data.context) && data.context.storage_state !== undefined) data.context = { ...data.context, storage_state: from(data.context.storage_state) };
  if (isPlainObject(data.secrets)) {
    data.secrets = Object.fromEntries(Object.entries(data.secrets).map(([k, v]) => [k, isPlainObject(v) && v.file !== undefined ? { ...v, file: from(v.file) } : v]));
  }
  return data;
}

/** Reads the defaults of a scenario's folders and merges them in; throws ScenarioError for a broken defaults file. */
export function withFolderDefaults(scenario: LoadedScenario): DefaultedScenario {
  const files = defaultsFilesFor(scenario.file);
  if (files.length === 0) return { ...scenario, hooks: [], defaults: [] };
  const layers: DefaultsLayer[] = [];
  const problems: Diagnostic[] = [];
  for (const abs of files) {
    try {
      layers.push(loadDefaultsFile(shortPath(abs)));
    } catch (err) {
      if (!(err instanceof ScenarioError)) throw err;
      problems.push(...err.diagnostics);
    }
  }
  if (problems.length > 0) throw new ScenarioError(problems);
  return applyDefaults(scenario, layers);
}

/** As the user would write it: relative to the working folder when inside it. */
function shortPath(abs: string): string {
  const rel = path.relative(process.cwd(), abs);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : abs;
}

/** Whether a loaded scenario carries merged defaults (and so hooks to run). */
export function isDefaulted(loaded: LoadedScenario): loaded is DefaultedScenario {
  return Array.isArray((loaded as Partial<DefaultedScenario>).hooks);
}
