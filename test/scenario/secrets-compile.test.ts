// Secrets in the plan: where they come from, never what they are; a missing one is a compile error.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScenarioError, compileScenario, loadScenarioSource, validateScenario } from '../../src/scenario/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bcs-secrets-'));
  await writeFile(join(dir, 'key.txt'), 'file-secret-value\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function compile(source: string, env: Record<string, string>) {
  const loaded = loadScenarioSource(join(dir, 's.yaml'), source);
  expect(validateScenario(loaded)).toEqual([]);
  return compileScenario(loaded, { env });
}

function errors(source: string, env: Record<string, string>): string[] {
  try {
    compile(source, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return (err as ScenarioError).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
  }
  throw new Error('expected a ScenarioError');
}

describe('secrets', () => {
  test('stay templates in the plan, read by a first setup step from the sources it names', () => {
    const plan = compile(`name: s
secrets:
  TOKEN: { env: API_TOKEN }
  KEY: { file: key.txt }
vars:
  auth: "Bearer {{ secrets.TOKEN }}"
steps:
  - name: "log in with {{ secrets.KEY }}"
    exec: { command: curl, args: [-H, "{{ auth }}"] }
`, { API_TOKEN: 'env-secret-value' });
    expect(plan.steps[0]).toMatchObject({
      phase: 'setup', kind: 'secrets', name: 'read secrets TOKEN, KEY', source: { line: 2, col: 1 },
      operations: [{ op: 'secrets', secrets: { TOKEN: { env: 'API_TOKEN' }, KEY: { file: join(dir, 'key.txt') } } }],
    });
    const step = plan.steps.find((s) => s.kind === 'exec')!;
    expect(step.name).toBe('log in with {{ secrets.KEY }}');
    expect(step.operations[0]).toMatchObject({ body: { command: 'curl', args: ['-H', 'Bearer {{ secrets.TOKEN }}'] } });
    const json = JSON.stringify(plan);
    expect(json).not.toContain('env-secret-value');
    expect(json).not.toContain('file-secret-value');
  });

  test('a variable that is not set, a file that cannot be read, a secret never declared', () => {
    expect(errors(`name: s
secrets:
  TOKEN: { env: API_TOKEN }
  KEY: { file: missing.txt }
steps:
  - goto: "https://example.com/{{ secrets.TOKN }}"
`, {})).toEqual([
      "3:17 environment variable 'API_TOKEN' is not set (secret 'TOKEN')",
      `4:16 cannot read secret file ${join(dir, 'missing.txt')}: no such file (secret 'KEY')`,
      "6:11 unknown secret 'TOKN'; declared: TOKEN, KEY",
    ]);
    expect(errors('name: s\nsteps:\n  - goto: "{{ secrets.X }}"\n', {})).toEqual([
      "3:11 unknown secret 'X'; declare it under 'secrets:'",
    ]);
  });
});
