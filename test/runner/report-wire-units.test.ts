// What `--report-to` sends for a scenario: always within the wire's bounds (cut, never refused), and every
// file the result names, each attempt's own, once.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { runResultParams } from '../../src/api/schemas/runs.js';
import { artifactFiles, resultKey, wireResult } from '../../runner/reporters/report-wire.js';
import { finishOf } from '../../runner/reporters/report-to.js';
import type { ScenarioResult, StepResult } from '../../runner/reporters/results.js';
import { parseConfig } from '../../runner/suite/config.js';
import { revision } from '../../runner/cli/report-to.js';

const validate = new Ajv({ allErrors: true, strict: false }).compile(runResultParams);

const step = (index: number, over: Partial<StepResult> = {}): StepResult => ({
  index, phase: 'main', kind: 'goto', name: `step ${index}`, source: { file: 'a.yaml', line: index + 2, col: 5 }, status: 'passed',
  started_at: '2026-01-01T00:00:00.000Z', duration_ms: 12.6, request_ids: [], artifacts: [], ...over,
});

const scenario = (over: Partial<ScenarioResult> = {}): ScenarioResult => ({
  name: 'checkout', file: 'a.yaml', tags: ['smoke'], status: 'passed', interrupted: false, started_at: '2026-01-01T00:00:00.000Z', duration_ms: 99.5,
  steps: [step(0)], artifact_dir: 'checkout', ...over,
});

describe('--report-to wire', () => {
  it('sends a result the service takes, however long or odd its texts', () => {
    const failed = step(1, {
      status: 'failed', name: 'x'.repeat(10_000), error: { kind: 'assertion', message: 'm'.repeat(100_000), location: 'a.yaml:3:5' },
      artifacts: [{ type: 'screenshot', path: 'checkout/failure.png' }], replay_offset_ms: -3.2, output: { big: true },
    });
    const wire = wireResult(scenario({ name: `bad\u0000name ${'n'.repeat(300)}`, tags: ['a\nb', 'a b'], status: 'failed', steps: [step(0), failed, step(2, { name: '' })] }));
    expect(validate(wire), JSON.stringify(validate.errors)).toBe(true);
    expect(wire.name).toHaveLength(255);
    expect(wire.name.startsWith('bad name')).toBe(true);
    expect(wire.tags).toEqual(['a b']);
    expect(wire.steps[1]).toMatchObject({ location: 'a.yaml:3:5', replay_offset_ms: 0, artifacts: ['checkout/failure.png'] });
    expect(wire.steps[1]).not.toHaveProperty('output');
    expect(wire.duration_ms).toBe(100);
  });

  it('keys a result by its file, name and attempt (and its count in the run), hashed where the wire would not take it', () => {
    expect(resultKey(scenario())).toBe('a.yaml::checkout::1');
    expect(resultKey(scenario({ attempt: 3 }), 2)).toBe('a.yaml::checkout::3::2');
    const long = resultKey(scenario({ file: `${'d/'.repeat(300)}a.yaml` }));
    expect(long).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(resultKey(scenario({ file: `${'d/'.repeat(300)}a.yaml` }))).toBe(long);
    expect(resultKey(scenario({ name: 'two\nlines' }))).toMatch(/^sha256:/);
    expect(validate({ ...wireResult(scenario()), key: resultKey(scenario()) }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...wireResult(scenario()), key: long })).toBe(true);
  });

  it("lists each attempt's files once: step artifacts, trace, replay video and markers", () => {
    const first = scenario({ attempt: 1, status: 'failed', steps: [step(0, { status: 'failed', artifacts: [{ type: 'screenshot', path: 'c/f.png' }] })], trace: 'c/trace.zip' });
    const last = scenario({
      attempt: 2, flaky: true, previous_attempts: [first], trace: 'c/attempt-2/trace.zip', replay: { video: 'c/attempt-2/replay.mp4', vtt: 'c/attempt-2/replay.vtt' },
      steps: [step(0, { artifacts: [{ type: 'screenshot', path: 'c/attempt-2/s.png' }, { type: 'screenshot', path: 'c/attempt-2/s.png' }] })],
    });
    expect(artifactFiles(last)).toEqual([
      { kind: 'screenshot', path: 'c/f.png', step_index: 0, attempt: 1 },
      { kind: 'trace', path: 'c/trace.zip', attempt: 1 },
      { kind: 'screenshot', path: 'c/attempt-2/s.png', step_index: 0, attempt: 2 },
      { kind: 'trace', path: 'c/attempt-2/trace.zip', attempt: 2 },
      { kind: 'video', path: 'c/attempt-2/replay.mp4', attempt: 2 },
      { kind: 'vtt', path: 'c/attempt-2/replay.vtt', attempt: 2 },
    ]);
    expect(validate(wireResult(last)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('ends the run as its scenarios did', () => {
    const run = (summary: Partial<ReturnType<typeof finishOf>['summary']>, scenarios: ScenarioResult[] = []) => ({
      version: 1 as const, started_at: '', duration_ms: 0, target: { kind: 'embedded' as const, base_url: '' }, scenarios,
      summary: { total: 1, passed: 0, failed: 0, errored: 0, flaky: 0, timed_out: 0, skipped: 0, ...summary },
    });
    expect(finishOf(run({ passed: 1 })).status).toBe('passed');
    expect(finishOf(run({ flaky: 1 })).status).toBe('passed');
    expect(finishOf(run({ failed: 1, errored: 1 })).status).toBe('failed');
    expect(finishOf(run({ errored: 1 })).status).toBe('error');
    expect(finishOf(run({ failed: 1 }, [scenario({ interrupted: true })])).status).toBe('interrupted');
  });

  it('takes report_to in the config as a URL or as { url, suite, tags }', () => {
    expect(parseConfig('c.yaml', 'report_to: https://runs.example.com\n', '/x').reportTo).toEqual({ url: 'https://runs.example.com' });
    expect(parseConfig('c.yaml', 'report_to: { url: "http://h:1", suite: shop, tags: [nightly] }\n', '/x').reportTo).toEqual({ url: 'http://h:1', suite: 'shop', tags: ['nightly'] });
    expect(() => parseConfig('c.yaml', 'report_to: ftp://h\n', '/x')).toThrow(/report_to must be an http:\/\/ or https:\/\/ URL/);
  });

  it('takes the branch and commit from BCS_*, then the CI', () => {
    expect(revision({ BCS_BRANCH: 'b', BCS_COMMIT: 'c', GITHUB_REF_NAME: 'g', GITHUB_SHA: 's' })).toEqual({ branch: 'b', commit: 'c' });
    expect(revision({ GITHUB_HEAD_REF: 'feature', GITHUB_REF_NAME: '12/merge', GITHUB_SHA: 's' })).toEqual({ branch: 'feature', commit: 's' });
    expect(revision({ GITHUB_HEAD_REF: '', GITHUB_REF_NAME: 'main', GITHUB_SHA: 's' })).toEqual({ branch: 'main', commit: 's' });
  });
});
