// The files a compiled scenario was built from, as the loader resolved them (not guessed from names):
// what `bcs run --only-changed` compares with the files git says changed.
import path from 'node:path';
import { defaultsFilesFor } from './defaults.js';
import type { Plan, PlanStep } from './plan.js';

/**
 * The scenario's file, the file of every step (an included part's steps are written in the part) and every
 * include block's file (a part with no steps of its own still counts), the folder defaults files above it
 * (whatever they set today: a change may set more), plus `extra` (a rows file, modules a TypeScript file
 * imports); absolute and without duplicates.
 */
export function planSources(plan: Plan, extra: Iterable<string> = []): string[] {
  const files = new Set<string>([path.resolve(plan.scenario.file)]);
  const visit = (steps: PlanStep[]): void => {
    for (const step of steps) {
      files.add(path.resolve(step.source.file));
      const b = step.block;
      if (!b) continue;
      // The loader names an included file by its path from the working folder, as it read it.
      if (b.type === 'include') files.add(path.resolve(b.file));
      visit(b.type === 'if' ? [...b.then, ...b.else] : b.steps);
    }
  };
  visit(plan.steps);
  for (const f of defaultsFilesFor(plan.scenario.file)) files.add(f);
  for (const f of extra) files.add(path.resolve(f));
  return [...files];
}
