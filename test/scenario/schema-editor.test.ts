// Editor support: the schema is a proper draft-07 document with an $id, exported by the package, and the
// `# yaml-language-server: $schema=...` line of the example scenarios points at it.
import { Ajv } from 'ajv';
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import schema from '../../src/scenario/scenario.schema.json' with { type: 'json' };
import { loadScenarioFile, validateScenario } from '../../src/scenario/index.js';
import { ROOT } from '../helpers/cli.js';

const MODELINE = /^# yaml-language-server: \$schema=(\S+)$/m;

describe('the scenario schema for editors', () => {
  test('declares its dialect and identity, and is valid against the draft-07 meta-schema', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.$id).toMatch(/^https:\/\/.+\/scenario\.schema\.json$/);
    const ajv = new Ajv();
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
  });

  test('is exported as browser-scenarios/scenario.schema.json', () => {
    expect(resolve(ROOT, pkg.exports['./scenario.schema.json'])).toBe(resolve(ROOT, 'src/scenario/scenario.schema.json'));
  });

  test('completes every new field: blocks, conditions, step options, hooks, secrets, web server', () => {
    const defs = schema.$defs as Record<string, { properties?: Record<string, unknown> }>;
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['secrets', 'web_server', 'screenshot_on_failure', 'before', 'after']));
    expect(Object.keys(defs.step!.properties!)).toEqual(expect.arrayContaining([
      'if', 'then', 'else', 'repeat', 'for_each', 'retry', 'include', 'function', 'save', 'expect_soft', 'retries', 'retry_delay', 'continue_on_error',
    ]));
    for (const name of ['repeat', 'for_each', 'retry', 'web_server', 'secret', 'var_condition', 'failed_condition', 'all_condition']) {
      expect(defs[name], name).toMatchObject({ additionalProperties: false });
    }
    // A plain validator (what an editor runs) accepts a scenario using all of it and rejects a typo inside a block.
    const validate = new Ajv().compile(schema);
    const scenario = {
      name: 'x',
      secrets: { T: { env: 'T' } },
      before: [{ goto: 'a' }],
      steps: [
        { if: { not: { failed: 'a' } }, then: [{ repeat: { times: 2, as: 'i', steps: [{ goto: '{{ i }}' }] } }] },
        { for_each: { items: ['a'], steps: [{ expect_soft: { title: '{{ item }}' } }] }, continue_on_error: true },
        { function: 'fn-1', save: 'out' },
      ],
      after: [{ retry: { attempts: 2, steps: [{ goto: 'b', retries: 1 }] } }],
    };
    expect(validate(scenario), JSON.stringify(validate.errors)).toBe(true);
    const typo = structuredClone(scenario);
    (typo.steps[1]!.for_each!.steps[0] as Record<string, unknown>).expct_soft = {};
    expect(validate(typo)).toBe(false);
  });

  test('the example scenarios point their modeline at the schema and are valid', async () => {
    const dir = join(ROOT, 'scenarios/examples');
    const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.yaml')).map((f) => join(dir, f));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      const target = MODELINE.exec(text)?.[1];
      expect(target, file).toBeDefined();
      expect(resolve(dirname(file), target!), file).toBe(join(ROOT, 'src/scenario/scenario.schema.json'));
      expect(validateScenario(await loadScenarioFile(file)), file).toEqual([]);
    }
  });
});
