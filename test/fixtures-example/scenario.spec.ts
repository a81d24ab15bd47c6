// `runScenario`: a YAML scenario run inside a test, on the same service, with its result to assert on.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { scenario } from 'browser-scenarios';
import { expect, test } from 'browser-scenarios/fixtures';

const counter = new URL('./scenarios/counter.yaml', import.meta.url);

test('runs a scenario file and returns its step results', async ({ runScenario }) => {
  const result = await runScenario(counter);

  expect(result.status).toBe('passed');
  expect(result.steps.map((s) => `${s.phase} ${s.kind} ${s.status}`)).toEqual([
    'setup serve passed',
    'setup browser passed',
    ...['goto', 'expect', 'fill', 'click', 'click', 'expect', 'screenshot'].map((kind) => `main ${kind} passed`),
    'teardown release passed',
    'teardown serve_stop passed',
  ]);
  const screenshot = result.steps.flatMap((s) => s.artifacts).find((a) => a.type === 'screenshot');
  expect(screenshot && existsSync(join(result.output_dir, screenshot.path))).toBe(true);
});

test('vars override the scenario’s own', async ({ runScenario }) => {
  const result = await runScenario(counter, { vars: { step: '5', expected: '10' } });
  expect(result.status).toBe('passed');
  expect(result.steps.find((s) => s.kind === 'expect' && s.name.startsWith('expect text'))?.name).toBe('expect text "Total: 10"');
});

test('runs a TypeScript scenario built in the test, function steps included', async ({ runScenario }) => {
  const twice = scenario('counter in TypeScript')
    .serve('scenarios/site') // relative to this file
    .goto('{{ serve.url }}/index.html')
    .fill({ label: 'Step' }, '{{ step }}')
    .click({ role: 'button', name: 'Add' })
    .click({ role: 'button', name: 'Add' })
    .fn('read the total with Playwright', ({ page }) => page.locator('#total').textContent(), { save: 'total' })
    .expect({ text: 'Total: {{ total }}' });

  const result = await runScenario(twice, { vars: { step: '4' } });

  expect(result.status).toBe('passed');
  expect(result.steps.find((s) => s.name === 'read the total with Playwright')?.output).toBe('8');
});

// Deliberately failing, for the package's own test of how a failure is reported (BCS_EXAMPLE_FAILURES=1).
test.runIf(process.env.BCS_EXAMPLE_FAILURES)('a failing scenario fails the test with its step and location', async ({ runScenario }) => {
  const result = await runScenario(counter, { vars: { expected: '3' } });
  expect(result.steps.find((s) => s.status === 'failed')?.error?.kind).toBe('assertion');
  expect(result.status, 'deliberate failure').toBe('passed');
});
