// The scenario format's public face: load a YAML or TypeScript file, validate it, compile it to a Plan.

import { compileScenario } from './compile.js';
import type { CompileOptions } from './compile.js';
import { ScenarioError } from './diagnostics.js';
import { loadScenarioFile } from './load.js';
import { TS_SCENARIO_FILE, loadTsScenarios } from './load-ts.js';
import { validateScenario } from './validate.js';
import { withFolderDefaults } from './defaults.js';
import { rowsFileOf, rowsOf } from './rows.js';
import { planSources } from './sources.js';
import { hasTemplate } from './template.js';
import type { Plan } from './plan.js';
import type { CompiledScenario } from './functions.js';

export type * from './plan.js';
export type { CompileOptions } from './compile.js';
export type { Diagnostic } from './diagnostics.js';
export type { LoadedScenario, Position } from './load.js';
export type { CompiledScenario, FunctionTable, StepContext, StepFunction } from './functions.js';
export { compileScenario } from './compile.js';
export { ScenarioError, formatDiagnostic } from './diagnostics.js';
export { bareNumber, parseDuration } from './duration.js';
export { loadScenarioFile, loadScenarioSource } from './load.js';
export { renderTemplate, resolveRuntime, templateNames } from './template.js';
export { PART_FILE, validateScenario } from './validate.js';
export { DEFAULTS_FILE, DEFAULTS_FILES, loadDefaultsFile, validateDefaults } from './defaults.js';
export { SCENARIO_METHODS, ScenarioBuilder, scenario } from './builder.js';
export { STEP_METHODS, StepsBuilder, steps } from './builder-steps.js';
export { ComputerActions } from './builder-computer.js';
export type * from './builder-types.js';
export { loadTsScenarios } from './load-ts.js';

/** load → validate (throws ScenarioError with every problem) → compile. A file with `each` rows: the first row's plan. */
export async function loadPlan(file: string, opts?: CompileOptions): Promise<Plan> {
  return (await loadPlans(file, opts)).plans[0]!;
}

/** A YAML file's plans: one, or one per row of its `each`, each named after its row. */
async function loadPlans(file: string, opts?: CompileOptions): Promise<{ plans: Plan[]; rowsFile?: string }> {
  const loaded = withFolderDefaults(await loadScenarioFile(file));
  const diagnostics = validateScenario(loaded);
  if (diagnostics.length > 0) throw new ScenarioError(diagnostics);
  const rows = rowsOf(loaded);
  if (!rows) return { plans: [compileScenario(loaded, opts)] };
  const named = hasTemplate(String((loaded.data as { name?: unknown }).name ?? ''));
  const rowsFile = rowsFileOf(loaded);
  const plans = rows.map((values, i) => {
    const plan = compileScenario(loaded, { ...opts, row: { index: i + 1, values } });
    // A name without a variable in it would be the same for every row.
    if (!named) plan.scenario.name = `${plan.scenario.name} [${i + 1}]`;
    return plan;
  });
  return { plans, ...(rowsFile ? { rowsFile } : {}) };
}

/**
 * Every scenario in a file: a YAML file holds one; a TypeScript file (`.ts`, `.mts`) exports one builder or
 * a list of them as its default export, each compiled to its own plan.
 */
export async function loadScenarios(file: string, opts?: CompileOptions): Promise<CompiledScenario[]> {
  if (TS_SCENARIO_FILE.test(file)) return loadTsScenarios(file, opts);
  const { plans, rowsFile } = await loadPlans(file, opts);
  return plans.map((plan) => ({ plan, functions: {}, sources: planSources(plan, rowsFile ? [rowsFile] : []) }));
}

/** A file holding one scenario (YAML or TypeScript) → its plan and function table. */
export async function loadScenario(file: string, opts?: CompileOptions): Promise<CompiledScenario> {
  const all = await loadScenarios(file, opts);
  if (all.length !== 1) {
    const message = `the file exports ${all.length} scenarios; this needs a file with one (loadScenarios reads them all)`;
    throw new ScenarioError([{ file, line: 1, col: 1, message }]);
  }
  return all[0]!;
}
