// `--repeat-each N` (`repeat_each`): every selected scenario runs N times, as Playwright Test repeats each
// test. Each repetition is a scenario of its own for everything after selection (sharding, workers,
// retries, reporters, merge-reports): repetitions after the first are named `<name> (repeat K)` and write
// into `<folder>-repeat-K`, so no two results or artifact folders share a name.
import type { CompiledScenario } from '../../src/scenario/index.js';

/** A scenario of the run; with --repeat-each, which repetition it is. */
export type RunScenario = CompiledScenario & { repeat?: number };

const SUFFIX = / \(repeat (\d+)\)$/;

export const repeatedName = (name: string, k: number) => (k === 1 ? name : `${name} (repeat ${k})`);

/** The name a repetition was made from (what --last-failed records, so a later run finds the scenario). */
export const unrepeatedName = (name: string, repeat: number | undefined) => (repeat && repeat > 1 ? name.replace(SUFFIX, '') : name);

/**
 * Each item `times` times in a row (its repetitions side by side, as Playwright orders a file's), each with
 * an artifact folder of its own in `dirs`. With times 1, the items themselves.
 */
export function repeatEach<T extends CompiledScenario>(items: T[], times: number, dirs: Map<CompiledScenario, string>): (T & { repeat?: number })[] {
  if (times <= 1) return items;
  return items.flatMap((c) =>
    Array.from({ length: times }, (_, i) => {
      const k = i + 1;
      const copy: T & { repeat?: number } = { ...c, plan: { ...c.plan, scenario: { ...c.plan.scenario, name: repeatedName(c.plan.scenario.name, k) } }, repeat: k };
      dirs.set(copy, k === 1 ? dirs.get(c)! : `${dirs.get(c)!}-repeat-${k}`);
      return copy;
    }),
  );
}
