// Host step kinds through the real CLI against the real service: the example scenario end to end, its
// plan, and failing expectations (exit 1, the step named, its file:line:col, the browser still released).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

interface Step {
  kind: string;
  name: string;
  status: string;
  request_ids: string[];
  artifacts: { type: string; path: string }[];
  error?: { kind: string; message: string; location: string };
}

const project = await inlineFiles({});
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

/** Runs a scenario that must fail at exactly one step; returns that step and the file. */
async function failing(name: string, yaml: string, head = ''): Promise<{ failed: Step; steps: Step[]; file: string; stdout: string }> {
  await project.write({ [`${name}.yaml`]: `name: ${name}\n${head}steps:\n${yaml}` });
  const file = project.path(`${name}.yaml`);
  // Both reporters: the step list on stdout, results.json for the details.
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out], remote());
  expect(res.code, res.stderr + res.stdout).toBe(1);
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  expect(results.summary).toMatchObject({ failed: 1 });
  const [run] = results.scenarios as { steps: Step[] }[];
  const failed = run!.steps.filter((s) => s.status === 'failed');
  expect(failed).toHaveLength(1);
  expect(run!.steps.find((s) => s.kind === 'release')?.status).toBe('passed');
  return { failed: failed[0]!, steps: run!.steps, file, stdout: res.stdout };
}

describe('the host-apis example', () => {
  it('passes on the embedded service, with request ids and artifacts', async () => {
    const out = project.path('host-apis-out');
    const res = await runCli(['run', 'scenarios/host-apis.yaml', '--reporter', 'list,json', '--output-dir', out]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('✓ type a note with the mouse and keyboard');
    expect(res.stdout).toContain('✓ wait_process writer');
    expect(res.stdout).toMatch(/1 passed, 0 failed/);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    const steps = results.scenarios[0].steps as Step[];
    const kinds = new Set(steps.map((s) => s.kind));
    for (const kind of ['computer', 'clipboard', 'screenshot', 'exec', 'spawn', 'wait_process', 'read_file', 'write_file', 'upload', 'wait_file', 'execute']) {
      expect(kinds, kind).toContain(kind);
    }
    // Every step that calls the API records the call's request id.
    for (const s of steps.filter((s) => !['serve', 'serve_stop', 'goto', 'expect'].includes(s.kind))) {
      expect(s.request_ids[0], s.name).toMatch(/^req_/);
    }
    // Passing host steps keep what they got back, as function steps keep what they returned.
    const outputOf = (kind: string) => (steps.find((s) => s.kind === kind) as { output?: Record<string, unknown> }).output;
    expect(outputOf('exec')).toMatchObject({ exit_code: 0, stdout: expect.any(String), stderr: expect.any(String) });
    expect(outputOf('read_file')).toMatchObject({ text: expect.any(String), size_bytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(outputOf('read_file')).not.toHaveProperty('json');
    expect(outputOf('execute')).toHaveProperty('result');
    expect(res.stdout).toMatch(/✓ exec .*\n\s+returned \{"exit_code":0/);
    const screen = steps.find((s) => s.kind === 'screenshot')!.artifacts[0]!;
    expect(screen).toEqual({ type: 'screenshot', path: 'host-apis/08-pasted.png' });
    expect((await readFile(join(out, screen.path))).subarray(1, 4).toString()).toBe('PNG');
    const report = steps.flatMap((s) => s.artifacts).find((a) => a.type === 'file')!;
    expect(report.path).toBe('host-apis/report.json');
    expect(JSON.parse(await readFile(join(out, report.path), 'utf8'))).toMatchObject({ items: [1, 2, 3] });
  });

  it('plans every host step as its API call', async () => {
    const res = await runCli(['plan', 'scenarios/host-apis.yaml']);
    expect(res.code, res.stderr).toBe(0);
    const S = '/browsers/{{ session.session_id }}';
    for (const line of [
      `POST ${S}/computer/batch {"actions":[{"type":"click_mouse","click_mouse":{"x":220,"y":100}},`,
      `POST ${S}/computer/clipboard/write {"text":"pasted from the clipboard"}`,
      `POST ${S}/computer/screenshot -> bytes`,
      'write screenshot artifact 08-pasted.png',
      `POST ${S}/process/exec {"command":"id","args":["-un"]}`,
      'save exec result as {{ user }}',
      `PUT ${S}/fs/write_file?path=/home/kernel/report.json <text, `,
      `GET ${S}/fs/read_file?path=/home/kernel/report.json -> bytes`,
      'expect size_bytes at least 10, json $.items[2] equals 3, json $.user equals "{{ user }}"',
      `POST ${S}/fs/upload multipart files[0][dest_path]=/home/kernel/uploads/hello.txt files[0][file]=@`,
      `poll every 200 ms: GET ${S}/fs/file_info?path=/home/kernel/Downloads/later.txt until size_bytes at least 7 (404 = not yet)`,
      `poll every 200 ms: GET ${S}/process/{{ writer.process_id }}/status until state equals "exited"`,
      `POST ${S}/playwright/execute {"code":`,
    ]) {
      expect(res.stdout).toContain(line);
    }
  });
});

describe('failing expectations', () => {
  it('exec: a wrong exit code, with the command’s stderr', async () => {
    const { failed, steps, file, stdout } = await failing(
      'exec-exit',
      '  - exec: "echo not there >&2; exit 2"\n  - exec: "true"\n',
    );
    expect(failed).toMatchObject({ kind: 'exec', name: 'exec echo not there >&2; exit 2', error: { kind: 'assertion', location: `${file}:3:5` } });
    expect(failed.error!.message).toBe('expected exit_code 0, got 2; stderr: not there');
    expect(failed.request_ids[0]).toMatch(/^req_/);
    expect(steps.find((s) => s.name === 'exec true')?.status).toBe('skipped');
    expect(stdout).toContain('✗ exec echo not there >&2; exit 2');
    expect(stdout).toContain('expected exit_code 0, got 2; stderr: not there');
    expect(stdout).toContain(`at ${file}:3:5`);
  });

  it('exec: stdout, and a saved variable used by a later step', async () => {
    const { failed, file } = await failing(
      'exec-stdout',
      [
        '  - exec: { command: echo, args: [hello], save: greeting }',
        '  - name: check the greeting',
        '    exec: { command: echo, args: ["{{ greeting }} world"], expect: { stdout: { matches: "^bye" } } }',
        '',
      ].join('\n'),
    );
    expect(failed).toMatchObject({ name: 'check the greeting', error: { kind: 'assertion', location: `${file}:4:5` } });
    expect(failed.error!.message).toBe('expected stdout matches /^bye/, got "hello world"');
  });

  it('read_file: every failing check at once, and the file kept as an artifact', async () => {
    const { failed, file } = await failing(
      'read-file',
      [
        '  - write_file: { path: /tmp/data.json, content: \'{"total": 2}\' }',
        '  - read_file:',
        '      path: /tmp/data.json',
        '      save_to: data.json',
        '      expect: { contains: total, bytes_at_least: 100, json: { path: $.total, equals: 3 } }',
        '',
      ].join('\n'),
    );
    expect(failed).toMatchObject({ kind: 'read_file', error: { kind: 'assertion', location: `${file}:4:5` } });
    expect(failed.error!.message).toBe('expected size_bytes at least 100, got 12; expected json $.total equals 3, got 2');
    // The file read, then the failure screenshot every failed page-connected step gets.
    expect(failed.artifacts[0]).toEqual({ type: 'file', path: 'read-file/data.json' });
    expect(failed.artifacts[1]).toMatchObject({ type: 'screenshot', path: expect.stringMatching(/failure-.*\.png$/) });
  });

  it('read_file of a missing file is a step error naming the API answer', async () => {
    const { failed, file } = await failing('read-missing', '  - read_file: /tmp/never-written.txt\n');
    expect(failed.error).toMatchObject({ kind: 'step', location: `${file}:3:5` });
    expect(failed.error!.message).toMatch(/404 not_found: path '\/tmp\/never-written.txt' not found/);
    expect(failed.request_ids[0]).toMatch(/^req_/);
  });

  it('wait_file: gives up at its timeout, saying what it waited for', async () => {
    const { failed, file } = await failing('wait-file', '  - wait_file: { path: /tmp/never.txt, timeout: 700ms }\n');
    expect(failed).toMatchObject({ kind: 'wait_file', error: { kind: 'assertion', location: `${file}:3:5` } });
    expect(failed.error!.message).toMatch(/^expected \/tmp\/never.txt to exist within 700 ms; last check: 404 not_found: /);
  });

  it('wait_process: the exit code, and a process still running at the timeout', async () => {
    const exit = await failing(
      'wait-exit',
      '  - spawn: { command: sh, args: [-c, "exit 3"], save: job }\n  - wait_process: { process: job, timeout: 5s }\n',
    );
    expect(exit.failed).toMatchObject({ kind: 'wait_process', error: { kind: 'assertion', location: `${exit.file}:4:5`, message: 'expected exit_code 0, got 3' } });
    const slow = await failing(
      'wait-slow',
      '  - spawn: { command: sleep, args: [30], save: slow }\n  - wait_process: { process: slow, timeout: 600ms }\n',
    );
    expect(slow.failed.error!.message).toBe('expected process slow to exit within 600 ms; last check: expected state equals "exited", got "running"');
  });

  it('clipboard: the text read back', async () => {
    // The clipboard needs a secure page: one served on loopback is.
    const { failed, file } = await failing(
      'clipboard',
      '  - goto: "{{ serve.url }}/host.html"\n  - clipboard: { write: copied }\n  - clipboard: { read: true, expect: { contains: pasted } }\n',
      `serve: ${join(ROOT, 'scenarios/site')}\n`,
    );
    expect(failed).toMatchObject({
      kind: 'clipboard',
      name: 'clipboard read',
      error: { kind: 'assertion', location: `${file}:6:5`, message: 'expected text contains "pasted", got "copied"' },
    });
  });

  it('execute: a wrong result is an assertion; code that throws is a step error', async () => {
    const wrong = await failing('execute-result', '  - execute: { code: "return 6 * 7", expect: { result: 41 } }\n');
    expect(wrong.failed).toMatchObject({ kind: 'execute', error: { kind: 'assertion', message: 'expected result equals 41, got 42', location: `${wrong.file}:3:5` } });
    const thrown = await failing('execute-throws', '  - execute: "throw new Error(\'boom\')"\n');
    expect(thrown.failed.error).toMatchObject({ kind: 'step', location: `${thrown.file}:3:5` });
    expect(thrown.failed.error!.message).toMatch(/^playwright code failed: .*boom/);
  });
});

describe('invalid host steps', () => {
  it('exit 2 with file:line:col before any browser starts', async () => {
    await project.write({ 'invalid-host.yaml': 'name: invalid\nsteps:\n  - upload: { files: [{ from: missing.txt, to: /tmp/x }] }\n  - wait_process: nobody\n' });
    const file = project.path('invalid-host.yaml');
    const res = await runCli(['run', file], remote());
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}:3:31 local file not found: ${project.path('missing.txt')}`);
    expect(res.stderr).toContain(`${file}:4:19 unknown process 'nobody': no earlier spawn step has 'save: nobody'`);
    expect(res.stdout).not.toContain('running');
  });
});
