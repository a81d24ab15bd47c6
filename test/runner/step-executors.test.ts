// Every step kind reaches something that runs it: each API call a kind's sample compiles to is a route the
// real service serves (its OpenAPI document), and each page action is one the runner performs (which the type
// checker proves for runner/exec/page-actions.ts and page-web.ts). With test/scenario/step-kinds.test.ts, a
// kind added to the schema cannot lack its builder method, its compiler or its executor.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Operation, PlanStep } from '../../src/scenario/index.js';
import { SCENARIO_DEFINITION, compileDefinition } from '../../src/scenario/builder-compile.js';
import { STEP_KINDS } from '../../src/scenario/validate.js';
import { isWebAction } from '../../runner/exec/page-web.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { withSample } from '../helpers/step-samples.js';

/** Operations the runner performs itself, beside page actions and API calls (runner/exec/operations.ts). */
const RUNNER_OPS = new Set(['function', 'script']);
/** Page actions performed outside page-actions.ts and page-web.ts (runner/exec/operations.ts). */
const OWN_RUNNERS = new Set(['expect_screenshot', 'expect_accessible']);

let service: TestService;
let routes: Set<string>;
let dir: string;

beforeAll(async () => {
  service = await startTestService();
  const { body } = await service.call('GET', '/openapi.json');
  // `/browsers/{id}/process/exec` and a plan's `/browsers/{{ session.session_id }}/process/exec` both as `/browsers/*/process/exec`.
  routes = new Set(Object.entries(body.paths as Record<string, object>).flatMap(([path, methods]) =>
    Object.keys(methods).map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '*')}`)));
  dir = await mkdtemp(join(tmpdir(), 'bcs-executors-'));
  await writeFile(join(dir, 'other.yaml'), 'name: other\nsteps:\n  - goto: https://example.test/other\n');
  await writeFile(join(dir, 'a'), 'a');
});

afterAll(async () => {
  await service?.close();
});

function leaves(step: PlanStep): Operation[] {
  return step.block ? [] : step.operations;
}

describe('every step kind has an executor', () => {
  test('the service’s routes are read, so a missing one would be found', () => {
    expect(routes).toContain('POST /browsers/*/process/exec');
    expect(routes).not.toContain('POST /browsers/*/no-such-thing');
  });

  test.each(STEP_KINDS)('%s: what it compiles to is performed by the runner or served by the service', (kind) => {
    const { plan } = compileDefinition(withSample(kind)[SCENARIO_DEFINITION](), join(dir, 'kinds.ts'));
    const step = plan.steps.filter((s) => s.phase === 'main').at(-1)!;
    expect(step.kind).toBe(kind);
    for (const op of leaves(step)) {
      if (op.op === 'api' || op.op === 'poll') {
        const route = `${op.method} ${op.path.split('?')[0]!.replace(/\{\{[^}]*\}\}/g, '*')}`;
        expect(routes, `${kind}: ${route} is no route of the service`).toContain(route);
      } else if (op.op === 'page') {
        // Web actions go to page-web.ts, these two to their own modules; page-actions.ts performs the rest,
        // and its switch is proven to cover them by the type checker (runner/exec/page-actions.ts).
        const { op: _op, ...action } = op;
        if (isWebAction(action)) expect(OWN_RUNNERS.has(action.action)).toBe(false);
      } else {
        expect(RUNNER_OPS, `${kind}: the runner performs '${op.op}'`).toContain(op.op);
      }
    }
  });
});
