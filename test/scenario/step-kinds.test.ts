// One source for the step kinds: the schema lists them, and every one has its builder method, its compiler and
// a sample that compiles to something the runner runs. The type checker already refuses a kind missing from
// STEP_COMPILERS, STEP_METHODS or the samples; these tests also refuse a kind those name that the schema lacks.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { STEP_METHODS, type PlanStep } from '../../src/scenario/index.js';
import { SCENARIO_DEFINITION, compileDefinition } from '../../src/scenario/builder-compile.js';
import { STEP_COMPILERS } from '../../src/scenario/step-kinds.js';
import { STEP_KINDS } from '../../src/scenario/validate.js';
import { STEP_SAMPLES, withSample } from '../helpers/step-samples.js';

const sorted = (keys: Iterable<string>) => [...keys].sort();

describe('step kinds have one source, the schema', () => {
  test('the compiler registry, the builder methods and the samples list exactly the schema’s kinds', () => {
    expect(STEP_KINDS.length).toBeGreaterThan(40);
    expect(sorted(Object.keys(STEP_COMPILERS))).toEqual(sorted(STEP_KINDS));
    expect(sorted(Object.keys(STEP_METHODS))).toEqual(sorted(STEP_KINDS));
    expect(sorted(Object.keys(STEP_SAMPLES))).toEqual(sorted(STEP_KINDS));
  });

  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bcs-kinds-'));
    // The include sample's file and the upload sample's, beside the scenario.
    await writeFile(join(dir, 'a'), 'a');
    await writeFile(join(dir, 'other.yaml'), 'name: other\nsteps:\n  - goto: https://example.test/other\n');
  });

  test.each(STEP_KINDS)('%s: its sample, built and compiled, is a step the runner has something to do for', (kind) => {
    const { plan } = compileDefinition(withSample(kind)[SCENARIO_DEFINITION](), join(dir, 'kinds.ts'));
    const step = plan.steps.filter((s) => s.phase === 'main').at(-1) as PlanStep;
    expect(step.kind).toBe(kind);
    if (STEP_COMPILERS[kind as keyof typeof STEP_COMPILERS] === 'block') {
      expect(step.block, `${kind} compiles to a block`).toBeDefined();
    } else {
      // A recorded run marks each step's start; the kind's own operations come after (a marker is its own).
      const own = kind === 'marker' ? step.operations : step.operations.slice(1);
      expect(own.length, `${kind} compiles to operations`).toBeGreaterThan(0);
    }
  });
});
