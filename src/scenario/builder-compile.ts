// A built TypeScript scenario goes the way a YAML file goes: the same validateScenario (the JSON Schema)
// and compileScenario, so the plan is the one the equivalent YAML compiles to. Only the positions differ:
// they come from the builder's call sites instead of YAML nodes.

import path from 'node:path';
import { compileScenario, type CompileOptions } from './compile.js';
import { ScenarioError } from './diagnostics.js';
import type { FunctionTable, CompiledScenario } from './functions.js';
import type { LoadedScenario } from './load.js';
import type { DataPath } from './path.js';
import { SiteTable, positionOf, type CallSite, type SiteMapper } from './builder-sites.js';
import { scenarioSchema } from './schema.js';
import { eachDuration } from './schema-walk.js';
import { validateScenario } from './validate.js';
import { withFolderDefaults } from './defaults.js';

/**
 * How a loader reads a builder. A symbol from the global registry, not `instanceof`: the scenario file may
 * get its builder from another copy of this package (the installed one) than the loader runs from.
 */
export const SCENARIO_DEFINITION = Symbol.for('browser-scenarios.scenario-definition');

/** What a builder hands a loader: plain scenario data, where each part was written, and its functions. */
export interface ScenarioDefinition {
  version: 1;
  /** Exactly what a YAML file with the same scenario holds. */
  data: Record<string, unknown>;
  /** Call sites by data path; `[]` is the `scenario(...)` call. */
  sites: [DataPath, CallSite][];
  functions: FunctionTable;
}

export interface Definable {
  [SCENARIO_DEFINITION](): ScenarioDefinition;
}

export function isDefinable(value: unknown): value is Definable {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as Partial<Definable>)[SCENARIO_DEFINITION] === 'function'
  );
}

/** The definition as a LoadedScenario; `map` turns positions in the code that ran into positions in its source. */
export function loadedFromDefinition(def: ScenarioDefinition, file: string, map: SiteMapper = (s) => s): LoadedScenario {
  const sites = SiteTable.from(def.sites.map(([at, site]) => [at, map(site)]));
  // `which` (key or value) has no meaning here: a call wrote both.
  return { file, data: withUnits(def.data), locate: (at) => positionOf(sites.find(at), file) };
}

/** Validate (every problem at once) and compile; throws ScenarioError. */
/** `folderDefaults`: merge the defaults files of the scenario file's folders (a file loaded from disk; not a builder compiled in a test). */
export function compileDefinition(def: ScenarioDefinition, file: string, opts: CompileOptions = {}, map?: SiteMapper, folderDefaults = false): CompiledScenario {
  if (def.version !== 1) {
    throw new ScenarioError([{ file, line: 1, col: 1, message: `scenario built by an incompatible version of browser-scenarios (definition version ${String(def.version)})` }]);
  }
  const written = loadedFromDefinition(def, file, map);
  const loaded = folderDefaults ? withFolderDefaults(written) : written;
  const diagnostics = validateScenario(loaded);
  if (diagnostics.length > 0) throw new ScenarioError(diagnostics);
  // The compiler accepts a function step only for ids it is told exist.
  const options: CompileOptions = { ...opts, functions: def.functions };
  return { plan: compileScenario(loaded, options), functions: def.functions };
}

/** TypeScript durations are numbers of milliseconds, as in Playwright; YAML writes the unit, so they get it. */
function withUnits(data: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(data);
  eachDuration(copy, scenarioSchema, (value, at) => {
    if (typeof value !== 'number' || value <= 0 || !Number.isFinite(value)) return;
    const parent = at.slice(0, -1).reduce<any>((node, seg) => node[seg], copy);
    parent[at.at(-1)!] = `${value}ms`;
  });
  return copy;
}

/** The file a builder compiled without a loader reports: where `scenario(...)` was called, from the working folder. */
export function defaultFile(def: ScenarioDefinition): string {
  const root = def.sites.find(([at]) => at.length === 0)?.[1];
  if (!root) return 'scenario.ts';
  const relative = path.relative(process.cwd(), root.file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : root.file;
}
