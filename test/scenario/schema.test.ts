import { Ajv } from 'ajv';
import { expect, test, vi } from 'vitest';
import schema from '../../src/scenario/scenario.schema.json' with { type: 'json' };
import { loadScenarioFile } from '../../src/scenario/index.js';

test('the schema compiles with a default Ajv, silently, and accepts the quickstart', async () => {
  const warn = vi.spyOn(console, 'warn');
  const log = vi.spyOn(console, 'log');
  const validate = new Ajv().compile(schema);
  expect(warn).not.toHaveBeenCalled();
  expect(log).not.toHaveBeenCalled();
  const loaded = await loadScenarioFile('scenarios/quickstart.yaml');
  expect(validate(loaded.data)).toBe(true);
  expect(validate({ name: 'x', steps: [{ goto: 'a', click: 'b' }] })).toBe(false);
});

test('every property an editor completes has a description or title', () => {
  const missing: string[] = [];
  const visit = (node: unknown, where: string): void => {
    if (node === null || typeof node !== 'object') return;
    const props = (node as { properties?: Record<string, Record<string, unknown>> }).properties;
    for (const [key, prop] of Object.entries(props ?? {})) {
      const described = prop.title ?? prop.description ?? typeof prop.$ref === 'string';
      if (!described) missing.push(`${where}/properties/${key}`);
    }
    for (const [key, child] of Object.entries(node)) visit(child, `${where}/${key}`);
  };
  visit(schema, '#');
  expect(missing).toEqual([]);
});
