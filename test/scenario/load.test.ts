import { describe, expect, test } from 'vitest';
import { ScenarioError, loadScenarioFile, loadScenarioSource } from '../../src/scenario/index.js';

function thrown(fn: () => unknown): ScenarioError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return err as ScenarioError;
  }
  throw new Error('expected a ScenarioError');
}

describe('loadScenarioSource', () => {
  test('YAML syntax errors are ScenarioErrors at the right line and column', () => {
    const err = thrown(() => loadScenarioSource('scenarios/bad.yaml', 'name: x\nsteps:\n  - goto: a: b\n'));
    expect(err.diagnostics).toEqual([
      { file: 'scenarios/bad.yaml', line: 3, col: 11, message: 'invalid YAML: Nested mappings are not allowed in compact mappings' },
    ]);
    expect(err.message).toBe('scenarios/bad.yaml:3:11 invalid YAML: Nested mappings are not allowed in compact mappings');
  });

  test('an unclosed flow sequence is reported where the parser notices it', () => {
    const err = thrown(() => loadScenarioSource('scenarios/bad.yaml', 'name: x\nsteps:\n  - goto: [a, b\n  - sleep: 1s\n'));
    expect(err.message).toBe(
      'scenarios/bad.yaml:4:3 invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    );
  });

  test('a duplicate key is a YAML error at the repeated key', () => {
    const err = thrown(() => loadScenarioSource('dup.yaml', 'name: a\nsteps: []\nname: b\n'));
    expect(err.message).toBe('dup.yaml:3:1 invalid YAML: Map keys must be unique');
  });

  test('a tab-indented block is reported, not mis-parsed', () => {
    const err = thrown(() => loadScenarioSource('tab.yaml', 'name: a\nsteps:\n\t- goto: x\n'));
    expect(err.diagnostics[0]).toMatchObject({ file: 'tab.yaml', line: 3, col: 1 });
  });

  test('locate finds keys and values, and falls back to the nearest ancestor', () => {
    const loaded = loadScenarioSource('x.yaml', 'name: x\nsteps:\n  - goto: a\n  - click: { role: button }\n  - screenshot:\n');
    expect(loaded.locate([])).toEqual({ line: 1, col: 1 });
    expect(loaded.locate(['steps', 1])).toEqual({ line: 4, col: 5 });
    expect(loaded.locate(['steps', 1, 'click'], 'key')).toEqual({ line: 4, col: 5 });
    expect(loaded.locate(['steps', 1, 'click'])).toEqual({ line: 4, col: 12 });
    expect(loaded.locate(['steps', 1, 'click', 'role'])).toEqual({ line: 4, col: 20 });
    expect(loaded.locate(['steps', 1, 'click', 'name'])).toEqual({ line: 4, col: 12 });
    expect(loaded.locate(['steps', 9, 'goto'])).toEqual({ line: 3, col: 3 });
    // `screenshot:` with no value points at the key rather than past the colon.
    expect(loaded.locate(['steps', 2, 'screenshot'])).toEqual({ line: 5, col: 5 });
  });
});

describe('loadScenarioFile', () => {
  test('reads and parses a file', async () => {
    const loaded = await loadScenarioFile('scenarios/quickstart.yaml');
    expect(loaded.file).toBe('scenarios/quickstart.yaml');
    expect(loaded.data).toMatchObject({ name: 'quickstart', serve: 'site' });
  });

  test('a missing file is a ScenarioError at 1:1', async () => {
    await expect(loadScenarioFile('scenarios/nope.yaml')).rejects.toThrow(
      new ScenarioError([{ file: 'scenarios/nope.yaml', line: 1, col: 1, message: 'scenario file not found' }]),
    );
    await expect(loadScenarioFile('scenarios/nope.yaml')).rejects.toThrow('scenarios/nope.yaml:1:1 scenario file not found');
  });

  test('a directory is a ScenarioError too', async () => {
    await expect(loadScenarioFile('scenarios/site')).rejects.toThrow('scenarios/site:1:1 is a directory, not a scenario file');
  });
});
