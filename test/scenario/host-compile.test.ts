// Host step kinds compile to API calls: the exact Plan operations, names and timeouts for each kind,
// and the compile-time checks (saved variables, local files, JSON paths) with their positions.
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ScenarioError, compileScenario, loadScenarioSource, validateScenario } from '../../src/scenario/index.js';
import type { Plan, PlanStep } from '../../src/scenario/index.js';

const S = '/browsers/{{ session.session_id }}';
const FILE = 'scenarios/t.yaml';

function compile(steps: string, head = ''): Plan {
  const loaded = loadScenarioSource(FILE, `name: t\n${head}steps:\n${steps}`);
  expect(validateScenario(loaded).map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([]);
  return compileScenario(loaded, { env: {} });
}

function main(steps: string, head = ''): PlanStep[] {
  return compile(steps, head).steps.filter((s) => s.phase === 'main');
}

function only(steps: string, head = ''): PlanStep {
  const [step] = main(steps, head);
  return step!;
}

/** Compile errors as `line:col message` (the file is always FILE). */
function errors(steps: string, head = '', vars?: Record<string, string>): string[] {
  const loaded = loadScenarioSource(FILE, `name: t\n${head}steps:\n${steps}`);
  expect(validateScenario(loaded).map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([]);
  try {
    compileScenario(loaded, { env: {}, vars });
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return (err as ScenarioError).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
  }
  throw new Error('expected a ScenarioError');
}

describe('computer', () => {
  test('a list of one-key actions is one batch call, shorthands expanded', () => {
    const step = only(
      [
        '  - computer:',
        '      - click_mouse: { x: 640, y: 400, num_clicks: 2 }',
        '      - type_text: Q3',
        '      - type_text: { text: slow, delay: 10 }',
        '      - press_key: Return',
        '      - press_key: [ctrl+a, Delete]',
        '      - sleep: 1.5s',
        '      - drag_mouse: { path: [[0, 0], [10, 10]] }',
        '',
      ].join('\n'),
    );
    expect(step.operations).toEqual([
      {
        op: 'api', method: 'POST', path: `${S}/computer/batch`,
        body: {
          actions: [
            { type: 'click_mouse', click_mouse: { x: 640, y: 400, num_clicks: 2 } },
            { type: 'type_text', type_text: { text: 'Q3' } },
            { type: 'type_text', type_text: { text: 'slow', delay: 10 } },
            { type: 'press_key', press_key: { keys: ['Return'] } },
            { type: 'press_key', press_key: { keys: ['ctrl+a', 'Delete'] } },
            { type: 'sleep', sleep: { duration_ms: 1500 } },
            { type: 'drag_mouse', drag_mouse: { path: [[0, 0], [10, 10]] } },
          ],
        },
      },
    ]);
    expect(step.name).toBe('computer click_mouse, type_text, type_text, press_key +3 more');
    expect(step.timeout_ms).toBe(10_000);
  });

  test('a single action, and pauses that need more than the default timeout', () => {
    const [one, long, explicit] = main(
      '  - computer: { move_mouse: { x: 1, y: 2 } }\n  - computer: [{ sleep: 20s }]\n  - computer: [{ sleep: 20s }]\n    timeout: 5s\n',
    );
    expect(one!.operations[0]).toMatchObject({ body: { actions: [{ type: 'move_mouse', move_mouse: { x: 1, y: 2 } }] } });
    expect(one!.name).toBe('computer move_mouse');
    expect(long!.timeout_ms).toBe(22_000);
    expect(explicit!.timeout_ms).toBe(5_000);
  });

  test('a batch sleep over the service limit, at the sleep', () => {
    expect(errors('  - computer:\n      - sleep: 31s\n')).toEqual([
      '4:16 a sleep inside a computer batch is at most 30s; use a sleep step for longer pauses',
    ]);
  });
});

describe('screenshot of the screen', () => {
  test('POSTs computer/screenshot for bytes, saved as a screenshot artifact', () => {
    const [plain, region] = main(
      '  - screenshot: { name: Whole Screen, screen: true }\n  - screenshot: { screen: true, region: { x: 0, y: 0, width: 10, height: 20 } }\n',
    );
    expect(plain!.name).toBe('screenshot Whole Screen (screen)');
    expect(plain!.operations).toEqual([
      { op: 'api', method: 'POST', path: `${S}/computer/screenshot`, response: 'bytes', artifact: { type: 'screenshot', file: '01-whole-screen.png' } },
    ]);
    expect(region!.name).toBe('screenshot (screen)');
    expect(region!.operations[0]).toMatchObject({ body: { region: { x: 0, y: 0, width: 10, height: 20 } }, artifact: { file: '02-screenshot.png' } });
  });

  test('page-only and screen-only options are reported where they are written', () => {
    expect(errors('  - screenshot: { screen: true, full_page: true }\n  - screenshot: { screen: false, region: { x: 0, y: 0, width: 1, height: 1 } }\n')).toEqual([
      "3:44 'full_page' applies to page screenshots; a screen screenshot captures what the screen shows",
      "4:42 'region' needs 'screen: true': a page screenshot is the page's viewport or full page",
    ]);
  });
});

describe('clipboard', () => {
  test('write and read', () => {
    const [write, read, bare] = main(
      '  - clipboard: { write: "hello {{ who }}" }\n  - clipboard: { read: true, save: clip, expect: { contains: hello } }\n  - clipboard: { read: true }\n',
      'vars: { who: Ada }\n',
    );
    expect(write!.name).toBe('clipboard write "hello Ada"');
    expect(write!.operations).toEqual([{ op: 'api', method: 'POST', path: `${S}/computer/clipboard/write`, body: { text: 'hello Ada' } }]);
    expect(read!.name).toBe('clipboard read');
    expect(read!.operations).toEqual([
      { op: 'api', method: 'POST', path: `${S}/computer/clipboard/read`, decode: 'clipboard', expect: [{ subject: 'text', contains: 'hello' }], save: 'clip' },
    ]);
    expect(bare!.operations).toEqual([{ op: 'api', method: 'POST', path: `${S}/computer/clipboard/read`, decode: 'clipboard' }]);
  });
});

describe('exec and spawn', () => {
  test('an object: body fields, expectations (exit code 0 first), save, and room for its timeout', () => {
    const step = only(
      [
        '  - exec:',
        '      command: grep',
        '      args: [-c, "two words", 3]',
        '      cwd: /home/kernel',
        '      env: { MODE: fast, COUNT: 2 }',
        '      as_root: true',
        '      timeout: 30s',
        '      expect: { stdout: { matches: "^\\\\d+$" }, stderr: "" }',
        '      save: count',
        '',
      ].join('\n'),
    );
    expect(step.name).toBe("exec grep -c 'two words' 3");
    expect(step.timeout_ms).toBe(32_000);
    expect(step.operations).toEqual([
      {
        op: 'api', method: 'POST', path: `${S}/process/exec`,
        body: { command: 'grep', args: ['-c', 'two words', '3'], cwd: '/home/kernel', as_root: true, env: { MODE: 'fast', COUNT: '2' }, timeout_sec: 30 },
        decode: 'exec',
        expect: [{ subject: 'exit_code', equals: 0 }, { subject: 'stdout', matches: '^\\d+$' }, { subject: 'stderr', equals: '' }],
        save: 'count',
      },
    ]);
  });

  test('a string is a shell command line; exit codes: one, several, any', () => {
    const [line, several, any, one] = main(
      [
        '  - exec: "ls /tmp | wc -l"',
        '  - exec: { command: "false", expect: { exit_code: [1, 2] } }',
        '  - exec: { command: "false", expect: { exit_code: any } }',
        '  - exec: { command: "false", expect: { exit_code: [3] } }',
        '',
      ].join('\n'),
    );
    expect(line!.name).toBe('exec ls /tmp | wc -l');
    expect(line!.operations[0]).toMatchObject({ body: { command: 'sh', args: ['-c', 'ls /tmp | wc -l'] }, expect: [{ subject: 'exit_code', equals: 0 }] });
    expect(several!.operations[0]).toMatchObject({ expect: [{ subject: 'exit_code', one_of: [1, 2] }] });
    expect(any!.operations[0]).not.toHaveProperty('expect');
    expect(one!.operations[0]).toMatchObject({ expect: [{ subject: 'exit_code', equals: 3 }] });
  });

  test('spawn saves a handle; wait_process polls its status, then checks the exit code', () => {
    const [spawn, wait, waitShort] = main(
      '  - spawn: { command: sleep, args: [1], save: sleeper }\n  - wait_process: { process: sleeper, timeout: 5s, expect: { exit_code: 3 } }\n  - wait_process: sleeper\n',
    );
    expect(spawn!.name).toBe('spawn sleep 1');
    expect(spawn!.operations).toEqual([
      { op: 'api', method: 'POST', path: `${S}/process/spawn`, body: { command: 'sleep', args: ['1'] }, decode: 'spawn', save: 'sleeper' },
    ]);
    expect(wait!.name).toBe('wait_process sleeper');
    expect(wait!.timeout_ms).toBe(5_000);
    expect(wait!.operations).toEqual([
      {
        op: 'poll', method: 'GET', path: `${S}/process/{{ sleeper.process_id }}/status`, decode: 'process_status',
        until: [{ subject: 'state', equals: 'exited' }], interval_ms: 200, waiting_for: 'process sleeper to exit',
        expect: [{ subject: 'exit_code', equals: 3 }],
      },
    ]);
    expect(waitShort!.timeout_ms).toBe(10_000);
    expect(waitShort!.operations[0]).toMatchObject({ expect: [{ subject: 'exit_code', equals: 0 }] });
  });

  test('wait_process needs an earlier spawn step', () => {
    expect(errors('  - wait_process: nope\n  - exec: { command: "true", save: out }\n  - wait_process: { process: out }\n')).toEqual([
      "3:19 unknown process 'nope': no earlier spawn step has 'save: nope'",
      "5:30 'out' is saved by an exec step; wait_process needs a spawn step's process",
    ]);
  });
});

describe('files', () => {
  test('read_file: one GET for bytes, checks in the order written, artifact and save', () => {
    const step = only(
      [
        '  - read_file:',
        '      path: /home/kernel/Downloads/q3.json',
        '      save: q3',
        '      save_to: q3.json',
        '      expect:',
        '        bytes_at_least: 10',
        '        contains: total',
        '        sha256: ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789',
        '        json: [{ path: "$.total", equals: 3 }, { equals: { total: 3 } }]',
        '        matches: "^\\\\{"',
        '',
      ].join('\n'),
    );
    expect(step.name).toBe('read_file /home/kernel/Downloads/q3.json');
    expect(step.operations).toEqual([
      {
        op: 'api', method: 'GET', path: `${S}/fs/read_file`, query: { path: '/home/kernel/Downloads/q3.json' }, response: 'bytes', decode: 'file',
        expect: [
          { subject: 'size_bytes', at_least: 10 },
          { subject: 'text', contains: 'total' },
          { subject: 'sha256', equals: 'abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789' },
          { subject: 'json', json_path: '$.total', equals: 3 },
          { subject: 'json', json_path: '$', equals: { total: 3 } },
          { subject: 'text', matches: '^\\{' },
        ],
        save: 'q3',
        artifact: { type: 'file', file: 'q3.json' },
      },
    ]);
    expect(only('  - read_file: /tmp/a.txt\n').operations).toEqual([
      { op: 'api', method: 'GET', path: `${S}/fs/read_file`, query: { path: '/tmp/a.txt' }, response: 'bytes', decode: 'file' },
    ]);
  });

  test('write_file from content or from a local file; upload as multipart', () => {
    const [content, from, upload, many] = main(
      [
        '  - write_file: { path: /tmp/a.txt, content: "hi {{ who }}", mode: 600 }',
        '  - write_file: { path: /tmp/b.txt, from: fixtures/hello.txt, mode: "0640" }',
        '  - upload: { files: [{ from: fixtures/hello.txt, to: /tmp/up/hello.txt }] }',
        '  - upload: { files: [{ from: fixtures/hello.txt, to: /tmp/1 }, { from: ./fixtures/hello.txt, to: /tmp/2 }] }',
        '',
      ].join('\n'),
      'vars: { who: Ada }\n',
    );
    const hello = path.resolve('scenarios/fixtures/hello.txt');
    expect(content!.name).toBe('write_file /tmp/a.txt');
    expect(content!.operations).toEqual([
      { op: 'api', method: 'PUT', path: `${S}/fs/write_file`, query: { path: '/tmp/a.txt', mode: '600' }, raw_body: { text: 'hi Ada' } },
    ]);
    expect(from!.operations[0]).toMatchObject({ query: { path: '/tmp/b.txt', mode: '0640' }, raw_body: { file: hello } });
    expect(upload!.name).toBe('upload fixtures/hello.txt -> /tmp/up/hello.txt');
    expect(upload!.operations).toEqual([
      {
        op: 'api', method: 'POST', path: `${S}/fs/upload`,
        form: [{ name: 'files[0][dest_path]', value: '/tmp/up/hello.txt' }, { name: 'files[0][file]', file: hello }],
      },
    ]);
    expect(many!.name).toBe('upload 2 files');
    expect((many!.operations[0] as { form: unknown[] }).form).toHaveLength(4);
  });

  test('wait_file polls file_info, 404 meaning not yet', () => {
    const [exists, sized] = main('  - wait_file: /home/kernel/Downloads/a.pdf\n  - wait_file: { path: /tmp/b, min_bytes: 1000, timeout: 30s }\n');
    expect(exists!.operations).toEqual([
      {
        op: 'poll', method: 'GET', path: `${S}/fs/file_info`, query: { path: '/home/kernel/Downloads/a.pdf' }, decode: 'file_info',
        pending_status: [404], until: [], interval_ms: 200, waiting_for: '/home/kernel/Downloads/a.pdf to exist',
      },
    ]);
    expect(sized!.timeout_ms).toBe(30_000);
    expect(sized!.operations[0]).toMatchObject({ until: [{ subject: 'size_bytes', at_least: 1000 }], waiting_for: '/tmp/b to have at least 1000 bytes' });
  });

  test('missing local files, bad modes, bad JSON paths and regular expressions, where written', () => {
    expect(
      errors(
        [
          '  - write_file: { path: /tmp/a, from: missing.txt }',
          '  - upload: { files: [{ from: fixtures, to: /tmp/b }] }',
          '  - write_file: { path: /tmp/a, content: x, mode: 648 }',
          '  - read_file: { path: /tmp/a, expect: { matches: "(", json: { path: "$.a b", equals: 1 } } }',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      `3:39 local file not found: ${path.resolve('scenarios/missing.txt')}`,
      `4:31 not a file: ${path.resolve('scenarios/fixtures')}`,
      '5:51 mode 648 is not octal; write it quoted, such as "0644"',
      expect.stringMatching(/^6:51 invalid regular expression: /),
      "6:70 invalid JSON path: unexpected ' ' at position 4; expected .name, [index] or [\"key\"]",
    ]);
  });
});

describe('execute', () => {
  test('code, timeout, expectations on the result, save', () => {
    const [full, short] = main(
      [
        '  - execute:',
        '      code: |',
        '        const t = await page.title();',
        '        return { t };',
        '      timeout: 90s',
        '      expect: { result: { t: Home }, json: { path: $.t, equals: Home } }',
        '      save: r',
        '  - execute: return 1',
        '',
      ].join('\n'),
    );
    expect(full!.name).toBe('execute const t = await page.title();');
    expect(full!.timeout_ms).toBe(92_000);
    expect(full!.operations).toEqual([
      {
        op: 'api', method: 'POST', path: `${S}/playwright/execute`,
        body: { code: 'const t = await page.title();\nreturn { t };\n', timeout_sec: 90 },
        decode: 'execute',
        expect: [{ subject: 'result', equals: { t: 'Home' } }, { subject: 'result', json_path: '$.t', equals: 'Home' }],
        save: 'r',
      },
    ]);
    expect(short!.operations).toEqual([{ op: 'api', method: 'POST', path: `${S}/playwright/execute`, body: { code: 'return 1' }, decode: 'execute' }]);
  });

  test('a timeout over the service limit', () => {
    expect(errors('  - execute: { code: return 1, timeout: 301s }\n')).toEqual(['3:41 playwright code may run at most 300s']);
  });
});

describe('invoke', () => {
  test('one POST that waits: body, payload as data sent as JSON text, succeeded by default, checks in order, save', () => {
    const step = only(
      [
        '  - invoke:',
        '      app: titles',
        '      action: title',
        '      version: "1.0.0"',
        '      payload: { url: "{{ site }}/", depth: 2, tags: [a] }',
        '      timeout: 90s',
        '      expect:',
        '        output: { title: Hello }',
        '        json: [{ path: $.title, contains: ell }, { path: $.title, matches: "^H" }, { path: $.n, equals: 2 }]',
        '      save: result',
        '',
      ].join('\n'),
      'vars: { site: "http://127.0.0.1:8000" }\n',
    );
    expect(step.name).toBe('invoke titles/title@1.0.0');
    expect(step.timeout_ms).toBe(90_000);
    expect(step.operations).toEqual([
      {
        op: 'api', method: 'POST', path: '/invocations',
        body: { app_name: 'titles', version: '1.0.0', action_name: 'title', payload: { url: 'http://127.0.0.1:8000/', depth: 2, tags: ['a'] } },
        json_text: ['payload'],
        decode: 'invocation',
        expect: [
          { subject: 'status', equals: 'succeeded' },
          { subject: 'output', equals: { title: 'Hello' } },
          { subject: 'output', json_path: '$.title', contains: 'ell' },
          { subject: 'output', json_path: '$.title', matches: '^H' },
          { subject: 'output', json_path: '$.n', equals: 2 },
        ],
        save: 'result',
      },
    ]);
  });

  test('the shortest form: version latest, no payload, at least 60 s unless a timeout says otherwise', () => {
    const [plain, stepTimeout] = main('  - invoke: { app: a, action: b }\n  - invoke: { app: a, action: b }\n    timeout: 5s\n');
    expect(plain!.name).toBe('invoke a/b');
    expect(plain!.timeout_ms).toBe(60_000);
    expect(plain!.operations).toEqual([
      {
        op: 'api', method: 'POST', path: '/invocations', body: { app_name: 'a', version: 'latest', action_name: 'b' },
        decode: 'invocation', expect: [{ subject: 'status', equals: 'succeeded' }],
      },
    ]);
    expect(stepTimeout!.timeout_ms).toBe(5_000);
  });

  test('expecting a failure: status and its reason; soft checks; a soft status drops the default', () => {
    const [failed, soft] = main(
      [
        '  - invoke: { app: a, action: fail, payload: null, expect: { status: failed, status_reason: { contains: boom } } }',
        '  - invoke: { app: a, action: b, expect_soft: { status: succeeded, output: 3 } }',
        '',
      ].join('\n'),
    );
    expect(failed!.operations[0]).toMatchObject({
      body: { payload: null },
      json_text: ['payload'],
      expect: [{ subject: 'status', equals: 'failed' }, { subject: 'status_reason', contains: 'boom' }],
    });
    expect(soft!.operations[0]).not.toHaveProperty('expect');
    expect(soft!.operations[0]).toMatchObject({ expect_soft: [{ subject: 'status', equals: 'succeeded' }, { subject: 'output', equals: 3 }] });
  });

  test('async: a POST that queues it (the service stops it at the timeout), then a poll until it has ended', () => {
    const [step, untimed] = main('  - invoke: { app: a, action: b, async: true, timeout: 2m, expect: { output: ok }, save: r }\n  - invoke: { app: a, action: b, async: true, timeout: 3s }\n');
    expect(step!.timeout_ms).toBe(120_000);
    const id = (step!.operations[0] as { save: string }).save;
    expect(id).toMatch(/^invocation-\d+$/);
    expect(step!.operations).toEqual([
      { op: 'api', method: 'POST', path: '/invocations', body: { app_name: 'a', version: 'latest', action_name: 'b', async: true, async_timeout_seconds: 120 }, save: id },
      {
        op: 'poll', method: 'GET', path: `/invocations/{{ ${id}.id }}`, decode: 'invocation',
        until: [{ subject: 'status', one_of: ['succeeded', 'failed'] }], interval_ms: 250, waiting_for: 'the invocation of a/b to end',
        expect: [{ subject: 'status', equals: 'succeeded' }, { subject: 'output', equals: 'ok' }], save: 'r',
      },
    ]);
    // The service's least async timeout is 10 s; the step still stops waiting at 3 s.
    expect(untimed!.timeout_ms).toBe(3_000);
    expect(untimed!.operations[0]).toMatchObject({ body: { async_timeout_seconds: 10 } });
  });

  test('saved fields are checked; output is open', () => {
    const steps = main('  - invoke: { app: a, action: b, save: r }\n  - exec: "echo {{ r.output.title }} {{ r.status }} {{ r.id }} {{ r }}"\n');
    expect(steps[1]!.operations[0]).toMatchObject({ body: { args: ['-c', 'echo {{ r.output.title }} {{ r.status }} {{ r.id }} {{ r }}'] } });
    expect(errors('  - invoke: { app: a, action: b, save: r }\n  - exec: "echo {{ r.result }} {{ r.status.x }}"\n')).toEqual([
      "4:11 'r' (saved by invoke) has no field 'result'; expected one of id, status, status_reason, output",
      "4:11 'r.status' is an invoke field with nothing inside it",
    ]);
  });

  test('bad JSON paths, regular expressions and async timeouts, where written', () => {
    expect(
      errors(
        [
          '  - invoke: { app: a, action: b, expect: { json: { path: title, equals: 1 }, status_reason: { matches: "(" } } }',
          '  - invoke: { app: a, action: b, expect_soft: { json: [{ path: $.a, matches: "[" }] } }',
          '  - invoke: { app: a, action: b, async: true, timeout: 61m }',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      '3:58 invalid JSON path: a JSON path starts with $, e.g. $.items[0].name',
      expect.stringMatching(/^3:104 invalid regular expression: /),
      expect.stringMatching(/^4:78 invalid regular expression: /),
      "5:56 with async: true an action may run at most 1h (the service's async_timeout_seconds)",
    ]);
  });
});

describe('a scenario that needs no browser', () => {
  const setupKinds = (steps: string, head = '') => compile(steps, head).steps.filter((s) => s.phase !== 'main').map((s) => s.kind);

  test('invoke steps alone, in blocks too, create no browser; serving a folder still works', () => {
    expect(setupKinds('  - invoke: { app: a, action: b }\n')).toEqual([]);
    expect(setupKinds('  - repeat: { times: 2, steps: [{ invoke: { app: a, action: b, save: r } }] }\n  - if: { var: r.status, equals: succeeded }\n    then: [{ invoke: { app: a, action: c } }]\n')).toEqual([]);
    expect(setupKinds('  - invoke: { app: a, action: b, payload: "{{ serve.url }}" }\n', 'serve: .\n')).toEqual(['serve', 'serve_stop']);
  });

  test('any other step, a browser setting or a use of the session gets one', () => {
    const browser = ['browser', 'release'];
    expect(setupKinds('  - invoke: { app: a, action: b }\n  - goto: "data:text/html,x"\n')).toEqual(browser);
    expect(setupKinds('  - repeat: { times: 1, steps: [{ exec: ls }] }\n  - invoke: { app: a, action: b }\n')).toEqual(browser);
    expect(setupKinds('  - invoke: { app: a, action: b }\n', 'browser: { headless: true }\n')).toEqual(browser);
    expect(setupKinds('  - invoke: { app: a, action: b }\n', 'replay: { record: true }\n')).toEqual(['browser', 'replay', 'replay_stop', 'release']);
    expect(setupKinds('  - invoke: { app: a, action: b, payload: { cdp: "{{ session.cdp_ws_url }}" } }\n')).toEqual(browser);
  });
});

describe('saved variables', () => {
  test('later steps use them; they stay templates for the runner, also in names', () => {
    const steps = main(
      [
        '  - exec: { command: hostname, save: host }',
        '  - read_file: { path: /tmp/r.json, save: report }',
        '  - name: "greet {{ host }}"',
        '    write_file: { path: "/tmp/{{ host.stdout }}.txt", content: "{{ report.json.items[0] }} {{ report.size_bytes }}" }',
        '',
      ].join('\n'),
    );
    expect(steps[2]!.name).toBe('greet {{ host }}');
    expect(steps[2]!.operations[0]).toMatchObject({
      query: { path: '/tmp/{{ host.stdout }}.txt' },
      raw_body: { text: '{{ report.json.items[0] }} {{ report.size_bytes }}' },
    });
  });

  test('uses before the save, unknown fields, clashes with other variables', () => {
    const source = [
      '  - exec: "echo {{ out }}"',
      '  - exec: { command: "true", save: out }',
      '  - exec: "echo {{ out.stdot }} {{ out.stdout.x }}"',
      '  - clipboard: { read: true, save: who }',
      '  - spawn: { command: sleep, args: [1], save: session }',
      '  - exec: { command: "true", save: cli }',
      '  - name: "{{ self }}"',
      '    exec: { command: "true", save: self }',
      '',
    ].join('\n');
    expect(errors(source, 'vars: { who: x, text: "{{ out }}" }\n', { cli: '1' })).toEqual([
      "2:23 'out' is saved by steps[1] at run time, so only later steps can use it",
      "4:11 'out' is used before it is saved: steps[1] saves it, so only later steps can use it",
      "6:11 'out' (saved by exec) has no field 'stdot'; expected one of stdout, stderr, exit_code, duration_ms, timed_out",
      "6:11 'out.stdout' is an exec field with nothing inside it",
      "7:36 'who' is already a variable in vars; choose another name",
      "8:47 'session' is reserved for {{ session.* }}; choose another name",
      "9:36 'cli' is also given with --var; choose another name",
      "10:11 'self' is used before it is saved: this step saves it, so only later steps can use it",
    ]);
  });
});
