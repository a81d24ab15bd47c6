// Schema problems in host steps, each at its line and column with a message that says what is expected.
import { describe, expect, test } from 'vitest';
import { formatDiagnostic, loadScenarioSource, validateScenario } from '../../src/scenario/index.js';

const FILE = 'scenarios/bad.yaml';
const ACTIONS = 'click_mouse, move_mouse, type_text, press_key, scroll, drag_mouse, set_cursor, sleep';

function problems(steps: string[]): string[] {
  return validateScenario(loadScenarioSource(FILE, `name: bad\nsteps:\n${steps.join('\n')}\n`)).map(formatDiagnostic);
}

describe('host steps: valid shapes', () => {
  test('every kind in its short and long form', () => {
    expect(
      problems([
        '  - computer: [{ click_mouse: { x: 1, y: 2, button: right, hold_keys: [ctrl] } }, { type_text: hi }, { press_key: [a, b] }, { sleep: 100ms }]',
        '  - computer: { scroll: { x: 1, y: 2, delta_y: 3 } }',
        '  - computer: [{ set_cursor: { hidden: true } }, { move_mouse: { x: 0, y: 0, smooth: true, duration_ms: 100 } }]',
        '  - clipboard: { write: "" }',
        '  - clipboard: { read: true, save: c, expect: { matches: "^a" } }',
        '  - exec: ls',
        '  - exec: { command: ls, args: [-l, 3], cwd: /tmp, env: { A: 1 }, as_user: kernel, as_root: false, timeout: 1m, expect: { exit_code: [0, 1], stdout: x, stderr: { contains: y } }, save: out }',
        '  - spawn: "sleep 1"',
        '  - spawn: { command: sleep, args: [1], save: p }',
        '  - wait_process: p',
        '  - wait_process: { process: p, timeout: 5s, expect: { exit_code: any } }',
        '  - read_file: /tmp/a',
        '  - read_file: { path: "{{ dir }}/a", save: f, save_to: a.txt, expect: { equals: x, bytes_at_least: 0, json: [{ path: $.a, equals: null }] } }',
        '  - write_file: { path: /tmp/a, content: x, mode: "0600" }',
        '  - write_file: { path: /tmp/a, from: a.txt, mode: 644 }',
        '  - upload: { files: [{ from: a.txt, to: /tmp/a.txt }] }',
        '  - wait_file: /tmp/a',
        '  - wait_file: { path: /tmp/a, timeout: 2s, min_bytes: 1 }',
        '  - execute: return 1',
        '  - execute: { code: return 1, timeout: 10s, expect: { result: 1, json: { equals: 1 } }, save: r }',
        '  - screenshot: { screen: true, region: { x: 0, y: 0, width: 10, height: 10 } }',
        '  - invoke: { app: titles, action: title }',
        '  - invoke: { app: titles, action: title, version: "1.0", payload: [1, { a: null }], async: true, timeout: 1m, save: inv }',
        '  - invoke: { app: a, action: b, payload: x, expect: { status: failed, status_reason: { contains: boom }, output: null, json: { path: $.a, matches: "^x" } } }',
        '  - invoke: { app: a, action: b, expect_soft: { output: { a: [1] }, json: [{ equals: 1 }, { path: $.b, contains: y }] } }',
      ]),
    ).toEqual([]);
  });
});

describe('host steps: problems at their positions', () => {
  test('computer actions', () => {
    expect(
      problems([
        '  - computer:',
        '      - click_mouse: { x: 10 }',
        '      - type: hello',
        '      - click_mouse: { x: 1, y: 2 }',
        '        move_mouse: { x: 1, y: 2 }',
        '      - press_key: { keys: [] }',
        '      - scroll: { x: 1, y: 1, delta_y: 5000 }',
        '      - drag_mouse: { path: [[1, 2]] }',
        '  - computer: []',
        '  - computer: 42',
      ]),
    ).toEqual([
      `${FILE}:4:22 steps[0].computer[0].click_mouse: missing required field 'y'`,
      `${FILE}:5:9 steps[0].computer[1]: an action needs one of ${ACTIONS}`,
      `${FILE}:5:9 unknown field 'type' in steps[0].computer[1]; expected one of ${ACTIONS}`,
      `${FILE}:7:9 steps[0].computer[2]: an action is an object with exactly one key (use one list item per action); found 'click_mouse' and 'move_mouse'`,
      `${FILE}:8:28 steps[0].computer[3].press_key.keys must not be empty`,
      `${FILE}:9:40 steps[0].computer[4].scroll.delta_y must be <= 1000`,
      `${FILE}:10:29 steps[0].computer[5].drag_mouse.path must NOT have fewer than 2 items`,
      `${FILE}:11:15 steps[1].computer must not be empty`,
      `${FILE}:12:15 steps[2].computer: expected a list of actions, or one action such as { click_mouse: { x: 10, y: 20 } }`,
    ]);
  });

  test('exec, spawn and wait_process', () => {
    expect(
      problems([
        '  - exec: { comand: ls }',
        '  - exec: { command: ls, args: [{ a: 1 }], expect: { exit_code: zero, stdout: { contain: x } }, save: 1st }',
        '  - exec: { command: ls, cwd: tmp, timeout: soon }',
        '  - spawn: { command: ls, expect: { exit_code: 0 } }',
        '  - wait_process: { process: p, expect: { stdout: x } }',
        '  - wait_process: 42',
      ]),
    ).toEqual([
      `${FILE}:3:11 steps[0].exec: missing required field 'command'`,
      `${FILE}:3:13 unknown field 'comand' in steps[0].exec; did you mean 'command'? expected one of command, args, cwd, env, as_user, as_root, timeout, expect, expect_soft, save`,
      `${FILE}:4:33 steps[1].exec.args[0]: expected a string or number`,
      `${FILE}:4:65 steps[1].exec.expect.exit_code: expected an exit code, a list of exit codes, or "any"`,
      `${FILE}:4:79 steps[1].exec.expect.stdout: expected one of equals, contains, matches`,
      `${FILE}:4:81 unknown field 'contain' in steps[1].exec.expect.stdout; did you mean 'contains'? expected one of equals, contains, matches`,
      `${FILE}:4:103 steps[1].exec.save: expected a variable name: letters, digits and _, not starting with a digit`,
      `${FILE}:5:31 steps[2].exec.cwd: expected an absolute path such as /tmp/report.txt`,
      `${FILE}:5:45 steps[2].exec.timeout: expected a duration such as "500ms", "2s" or "1m"`,
      `${FILE}:6:27 unknown field 'expect' in steps[3].spawn; expected one of command, args, cwd, env, as_user, as_root, save`,
      `${FILE}:7:43 unknown field 'stdout' in steps[4].wait_process.expect; expected one of exit_code`,
      `${FILE}:8:19 steps[5].wait_process: expected the name a spawn step saved, or an object with process and optional timeout, expect, expect_soft`,
    ]);
  });

  test('files', () => {
    expect(
      problems([
        '  - read_file: { path: tmp/x, save_to: a/b, expect: { sha256: xyz, json: { path: $.a } } }',
        '  - read_file: { expect: { size: 3 } }',
        '  - write_file: { path: /tmp/y, content: a, from: b, mode: "999" }',
        '  - write_file: { path: /tmp/y }',
        '  - upload: { files: [{ from: a.txt }] }',
        '  - wait_file: { path: /x, min_bytes: -1 }',
      ]),
    ).toEqual([
      `${FILE}:3:24 steps[0].read_file.path: expected an absolute path such as /tmp/report.txt`,
      `${FILE}:3:40 steps[0].read_file.save_to: expected a file name without folders, such as report.pdf`,
      `${FILE}:3:63 steps[0].read_file.expect.sha256: expected 64 hexadecimal digits`,
      `${FILE}:3:74 steps[0].read_file.expect.json: a JSON check needs one of equals, contains, matches`,
      `${FILE}:4:16 steps[1].read_file: missing required field 'path'`,
      `${FILE}:4:28 unknown field 'size' in steps[1].read_file.expect; expected one of equals, contains, matches, bytes_at_least, sha256, json`,
      `${FILE}:5:45 steps[2].write_file: use 'content' or 'from', not both; found 'content' and 'from'`,
      `${FILE}:5:60 steps[2].write_file.mode: expected an octal mode such as "644" or "0600"`,
      `${FILE}:6:17 steps[3].write_file: expected 'content' (text) or 'from' (a local file)`,
      `${FILE}:7:23 steps[4].upload.files[0]: missing required field 'to'`,
      `${FILE}:8:39 steps[5].wait_file.min_bytes must be >= 0`,
    ]);
  });

  test('invoke', () => {
    expect(
      problems([
        '  - invoke: { app: titles, action: title, versoin: "1.0" }',
        '  - invoke: { action: title, version: 2, async: yes }',
        '  - invoke: { app: "", action: b, expect: { status: done, outptu: 1 } }',
        '  - invoke: { app: a, action: b, timeout: 30, expect: { json: { path: $.a, equals: 1, contains: x } } }',
        '  - invoke: titles/title',
      ]),
    ).toEqual([
      `${FILE}:3:43 unknown field 'versoin' in steps[0].invoke; did you mean 'version'? expected one of app, action, version, payload, async, timeout, expect, expect_soft, save`,
      `${FILE}:4:13 steps[1].invoke: missing required field 'app'`,
      `${FILE}:4:39 steps[1].invoke.version must be a string`,
      `${FILE}:4:49 steps[1].invoke.async must be a boolean`,
      `${FILE}:5:20 steps[2].invoke.app must not be empty`,
      `${FILE}:5:53 steps[2].invoke.expect.status must be one of succeeded, failed`,
      `${FILE}:5:59 unknown field 'outptu' in steps[2].invoke.expect; did you mean 'output'? expected one of status, status_reason, output, json`,
      `${FILE}:6:43 steps[3].invoke.timeout: a duration needs a unit: write "30ms" or "30s" (a bare number 30 could mean either)`,
      `${FILE}:6:87 steps[3].invoke.expect.json: a JSON check has exactly one of equals, contains, matches; found 'equals' and 'contains'`,
      `${FILE}:7:13 steps[4].invoke must be an object`,
    ]);
  });

  test('clipboard, execute and screen screenshots', () => {
    expect(
      problems([
        '  - clipboard: { write: hi, save: c }',
        '  - clipboard: {}',
        '  - clipboard: { read: false }',
        '  - execute: { code: "", timeout: 1h }',
        '  - execute: { code: x, expect: { value: 1 } }',
        '  - screenshot: { region: { x: 0, y: 0, width: 1, height: 1 } }',
        '  - screenshot: { screen: true, region: { x: -1, y: 0, width: 0, height: 1 } }',
      ]),
    ).toEqual([
      `${FILE}:3:29 steps[0].clipboard: 'save' is only allowed together with 'read'`,
      `${FILE}:4:16 steps[1].clipboard: expected 'write' (text to put on the clipboard) or 'read: true'`,
      `${FILE}:5:24 steps[2].clipboard.read must be one of true`,
      `${FILE}:6:22 steps[3].execute.code must not be empty`,
      `${FILE}:6:35 steps[3].execute.timeout: expected a duration such as "500ms", "2s" or "1m"`,
      `${FILE}:7:35 unknown field 'value' in steps[4].execute.expect; expected one of result, json`,
      `${FILE}:8:19 steps[5].screenshot: 'region' is only allowed together with 'screen'`,
      `${FILE}:9:46 steps[6].screenshot.region.x must be >= 0`,
      `${FILE}:9:63 steps[6].screenshot.region.width must be >= 1`,
    ]);
  });
});
