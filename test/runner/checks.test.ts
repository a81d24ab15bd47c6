// Decoding API responses and checking them locally: the fields scenarios see and the failure messages.
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import type { Operation } from '../../src/scenario/plan.js';
import { resolveRuntime, savedValue } from '../../src/scenario/template.js';
import { failedChecks, failureMessage } from '../../runner/exec/checks.js';
import { decode } from '../../runner/exec/decode.js';
import { StepFailure } from '../../runner/exec/failures.js';
import { describeOperation } from '../../runner/cli/plan-format.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const exec = (exit_code: number, stdout: string, stderr = '', timed_out = false) =>
  decode('exec', { exit_code, stdout_b64: b64(stdout), stderr_b64: b64(stderr), duration_ms: 5, timed_out });

describe('decode', () => {
  test('exec: base64 decoded, one trailing newline removed', () => {
    expect(exec(0, 'two\n\n', 'warn\r\n').fields).toEqual({ exit_code: 0, stdout: 'two\n', stderr: 'warn', duration_ms: 5, timed_out: false });
    expect(exec(0, 'ok\n').text).toBe('ok');
  });

  test('file: text, size, sha256, and json when it parses', () => {
    const json = decode('file', new Uint8Array(Buffer.from('{"a":[1]}')));
    const sha256 = createHash('sha256').update('{"a":[1]}').digest('hex');
    expect(json.fields).toEqual({ text: '{"a":[1]}', size_bytes: 9, json: { a: [1] }, sha256 });
    const text = decode('file', new Uint8Array(Buffer.from('not json')));
    expect(text.fields).not.toHaveProperty('json');
    expect(text.absent?.json).toMatch(/^the file is not JSON/);
  });

  test('execute: success gives the result; failure is a step error with its message', () => {
    expect(decode('execute', { success: true, result: { n: 1 }, stdout: 'log' })).toMatchObject({ fields: { result: { n: 1 }, stdout: 'log' }, text: '{"n":1}' });
    expect(decode('execute', { success: true, result: 'plain' }).text).toBe('plain');
    const err = (() => {
      try {
        decode('execute', { success: false, error: 'TypeError: x is not a function', stderr: 'trace\n' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(StepFailure);
    expect(err).toMatchObject({ kind: 'step', message: 'playwright code failed: TypeError: x is not a function; stderr: trace' });
  });
});

describe('checks and their messages', () => {
  test('the exit code failure shows stderr', () => {
    const d = exec(2, '', 'ls: cannot access /nope\n');
    const failed = failedChecks([{ subject: 'exit_code', equals: 0 }], d);
    expect(failureMessage(failed, d)).toBe('expected exit_code 0, got 2; stderr: ls: cannot access /nope');
  });

  test('output failures do not repeat the output they show; timeouts are said', () => {
    const d = exec(124, 'partial\n', '', true);
    const failed = failedChecks([{ subject: 'exit_code', one_of: [0, 1] }, { subject: 'stdout', contains: 'done' }], d);
    expect(failureMessage(failed, d)).toBe(
      'expected exit_code one of 0, 1, got 124; expected stdout contains "done", got "partial"; the command timed out and was killed',
    );
  });

  test('every condition kind, json paths, and values that are not there', () => {
    const d = decode('file', new Uint8Array(Buffer.from('{"items":[{"n":3}],"ok":true}')));
    const pass = failedChecks(
      [
        { subject: 'text', matches: '^\\{' },
        { subject: 'size_bytes', at_least: 10 },
        { subject: 'json', json_path: '$.items[0].n', equals: 3 },
        { subject: 'json', json_path: '$', equals: { ok: true, items: [{ n: 3 }] } },
      ],
      d,
    );
    expect(pass).toEqual([]);
    const fail = failedChecks(
      [
        { subject: 'size_bytes', at_least: 1000 },
        { subject: 'json', json_path: '$.items[0].n', equals: '3' },
        { subject: 'json', json_path: '$.items[1].n', equals: 3 },
      ],
      d,
    );
    expect(fail.map((f) => f.message)).toEqual([
      'expected size_bytes at least 1000, got 29',
      'expected json $.items[0].n equals "3", got 3',
      'expected json $.items[1].n equals 3, but there is nothing at $.items[1]',
    ]);
    const notJson = decode('file', new Uint8Array(Buffer.from('plain')));
    expect(failedChecks([{ subject: 'json', json_path: '$.a', equals: 1 }], notJson)[0]!.message).toMatch(
      /^expected json \$\.a equals 1, but the file is not JSON/,
    );
  });

  test('long values are cut short', () => {
    const d = exec(0, 'x'.repeat(1000));
    expect(failedChecks([{ subject: 'stdout', equals: 'y' }], d)[0]!.message).toBe(`expected stdout equals "y", got "${'x'.repeat(199)}…`);
  });
});

describe('saved values in templates', () => {
  test('{{ name }} is the text, {{ name.field }} a field, deeper fields inside JSON', () => {
    const d = exec(0, 'out\n');
    const file = decode('file', new Uint8Array(Buffer.from('{"a":{"b":[7]}}')));
    const scope = { run: savedValue(d.text, d.fields), f: savedValue(file.text, file.fields) };
    expect(resolveRuntime('{{ run }}|{{ run.exit_code }}|{{ f.json.a.b }}|{{ f.json.a }}', scope)).toBe('out|0|[7]|{"b":[7]}');
    expect(resolveRuntime('{{ f.json.a.b[0] }} {{ f.json.a.b.0 }}', scope)).toBe('7 7');
    expect(JSON.stringify(scope.run)).toBe('{"exit_code":0,"stdout":"out","stderr":"","duration_ms":5,"timed_out":false}');
    expect(() => resolveRuntime('{{ run.nope }}', scope)).toThrow("cannot resolve {{ run.nope }}: 'run.nope' has no value");
  });
});

describe('bcs plan lines for API operations', () => {
  test('calls, bodies, follow-ups and polls', () => {
    const S = '/browsers/{{ session.session_id }}';
    const ops: Operation[] = [
      { op: 'api', method: 'POST', path: `${S}/process/exec`, body: { command: 'ls' }, decode: 'exec', expect: [{ subject: 'exit_code', equals: 0 }, { subject: 'stdout', contains: 'a' }], save: 'out' },
      { op: 'api', method: 'PUT', path: `${S}/fs/write_file`, query: { path: '/tmp/a b', mode: '600' }, raw_body: { text: 'héllo' } },
      { op: 'api', method: 'PUT', path: `${S}/fs/write_file`, query: { path: '/tmp/a' }, raw_body: { file: '/abs/a.txt' } },
      { op: 'api', method: 'POST', path: `${S}/fs/upload`, form: [{ name: 'files[0][dest_path]', value: '/tmp/a' }, { name: 'files[0][file]', file: '/abs/a.txt' }] },
      { op: 'api', method: 'GET', path: `${S}/fs/read_file`, query: { path: '/tmp/r.json' }, response: 'bytes', decode: 'file', artifact: { type: 'file', file: 'r.json' }, expect: [{ subject: 'json', json_path: '$.n', equals: 1 }] },
      { op: 'poll', method: 'GET', path: `${S}/fs/file_info`, query: { path: '/tmp/x' }, decode: 'file_info', pending_status: [404], until: [], interval_ms: 200, waiting_for: '/tmp/x to exist' },
    ];
    expect(ops.map(describeOperation)).toEqual([
      `POST ${S}/process/exec {"command":"ls"}\nexpect exit_code 0, stdout contains "a"\nsave exec result as {{ out }}`,
      `PUT ${S}/fs/write_file?path=/tmp/a b&mode=600 <text, 6 bytes>`,
      `PUT ${S}/fs/write_file?path=/tmp/a <file /abs/a.txt>`,
      `POST ${S}/fs/upload multipart files[0][dest_path]=/tmp/a files[0][file]=@/abs/a.txt`,
      `GET ${S}/fs/read_file?path=/tmp/r.json -> bytes\nwrite file artifact r.json\nexpect json $.n equals 1`,
      `poll every 200 ms: GET ${S}/fs/file_info?path=/tmp/x until it answers (404 = not yet)\nwaiting for /tmp/x to exist`,
    ]);
  });
});
