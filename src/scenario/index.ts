// The scenario format's public face: load a YAML file, validate it, compile it to a Plan.

import { compileScenario } from './compile.js';
import type { CompileOptions } from './compile.js';
import { ScenarioError } from './diagnostics.js';
import { loadScenarioFile } from './load.js';
import { validateScenario } from './validate.js';
import type { Plan } from './plan.js';
import type { CompiledScenario } from './functions.js';

export type * from './plan.js';
export type { CompileOptions } from './compile.js';
export type { Diagnostic } from './diagnostics.js';
export type { LoadedScenario, Position } from './load.js';
export type { CompiledScenario, FunctionTable, StepContext, StepFunction } from './functions.js';
export { compileScenario } from './compile.js';
export { ScenarioError, formatDiagnostic } from './diagnostics.js';
export { parseDuration } from './duration.js';
export { loadScenarioFile, loadScenarioSource } from './load.js';
export { renderTemplate, resolveRuntime, templateNames } from './template.js';
export { validateScenario } from './validate.js';

/** load → validate (throws ScenarioError with every problem) → compile. */
export async function loadPlan(file: string, opts?: CompileOptions): Promise<Plan> {
  const loaded = await loadScenarioFile(file);
  const diagnostics = validateScenario(loaded);
  if (diagnostics.length > 0) throw new ScenarioError(diagnostics);
  return compileScenario(loaded, opts);
}

/** Any scenario file (YAML today) → its plan and function table. */
export async function loadScenario(file: string, opts?: CompileOptions): Promise<CompiledScenario> {
  return { plan: await loadPlan(file, opts), functions: {} };
}
