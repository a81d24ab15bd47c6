// `bcs validate` for the authoring features: every problem of blocks, conditions, hooks, secrets and the
// web server at its file:line:col, with what was expected — also deep inside blocks.
import { describe, expect, test } from 'vitest';
import { formatDiagnostic, loadScenarioSource, validateScenario } from '../../src/scenario/index.js';

const FILE = 'scenarios/flow-bad.yaml';

function problems(source: string): string[] {
  return validateScenario(loadScenarioSource(FILE, source)).map(formatDiagnostic).map((d) => d.slice(FILE.length + 1));
}

describe('validating blocks', () => {
  test('a valid scenario with every new construct has no problems', () => {
    expect(problems(`name: ok
secrets: { TOKEN: { env: API_TOKEN }, KEY: { file: key.txt } }
web_server: { command: npm start, url: "http://127.0.0.1:3000", timeout: 30s, cwd: app, env: { PORT: 3000 }, reuse_existing: true }
screenshot_on_failure: false
vars: { users: [a, b], limits: { max: 3 } }
before: [{ goto: "{{ web_server.url }}" }]
steps:
  - if: { any: [{ var: x, equals: 1 }, { not: { exists: y } }, { all: [{ failed: a }, { passed: b }] }] }
    then: [{ sleep: 1ms }]
    else: [{ sleep: 1ms }]
  - repeat: { times: 2, as: i, steps: [{ sleep: 1ms }] }
  - for_each: { items: "{{ users }}", as: user, steps: [{ sleep: 1ms }] }
  - retry: { attempts: 2, delay: 1s, steps: [{ sleep: 1ms }] }
    timeout: 10s
    continue_on_error: true
  - include: { file: part.yaml, with: { who: Ada } }
  - include: part.yaml
  - function: fn-1
    save: out
  - goto: x
    retries: 2
    retry_delay: 1s
  - expect_soft: { title: x }
  - exec: { command: "true", expect_soft: { exit_code: [0, 1] } }
after: [{ screenshot: last }]
`)).toEqual([]);
  });

  test('if: then and else belong to it, its condition is told apart by its one key', () => {
    expect(problems(`name: bad
steps:
  - if: { var: x }
  - then: [{ goto: x }]
  - if: { var: x, equals: 1, contains: a }
    then: []
  - if: { failed: a, passed: b }
    then: [{ goto: x }]
  - if: { all: [{ var: x, equals: 1 }, { nope: 1 }, 3] }
    then: [{ goto: x }]
    else: [{ gto: y }]
  - if: { not: { exists: 3 } }
    then: [{ goto: x }]
`)).toEqual([
      "3:5 an 'if' step needs 'then': the steps to run when the condition holds",
      '3:9 steps[0].if: a var condition needs one of equals, one_of, contains, matches, at_least, greater_than, greater_than_or_equal, less_than, less_than_or_equal, length, truthy, falsy',
      "4:5 'then' belongs to an 'if' step: write '- if: <condition>' above it",
      "5:30 steps[2].if: a var condition has exactly one of equals, one_of, contains, matches, at_least, greater_than, greater_than_or_equal, less_than, less_than_or_equal, length, truthy, falsy; found 'equals' and 'contains'",
      '6:11 steps[2].then must not be empty',
      "7:22 a condition has exactly one of var, failed, passed, exists, not, all, any, found 'failed' and 'passed'",
      "9:42 unknown condition 'nope' in steps[4].if.all[1]; expected one of var, failed, passed, exists, not, all, any",
      '9:53 steps[4].if.all[2]: a condition is an object such as { var: name, equals: value }; expected one of var, failed, passed, exists, not, all, any',
      expect.stringMatching(/^11:14 unknown step kind 'gto'; expected one of goto, /),
      '12:26 steps[5].if.not.exists must be a string',
    ]);
  });

  test('loops and retry: their own fields, and every step inside them', () => {
    expect(problems(`name: bad
steps:
  - repeat: { times: -1, steps: [{ goto: x }, { click: { txt: a } }] }
  - repeat: { times: "lots", as: 1x }
  - for_each: { items: 3, steps: [{ goto: x }] }
  - retry: { steps: [{ goto: x }], delay: soon }
    retries: 2
  - for_each:
      items: [a]
      steps:
        - repeat:
            times: 1
            steps:
              - sleep: forever
`)).toEqual([
      '3:22 steps[0].repeat.times must be >= 0',
      '3:56 steps[0].repeat.steps[1].click: missing a target; expected one of selector, text, role, label, placeholder, test_id',
      "3:58 unknown field 'txt' in steps[0].repeat.steps[1].click; did you mean 'text'? expected one of selector, text, role, name, level, pressed, expanded, selected, include_hidden, checked, disabled, exact, label, placeholder, test_id, alt, title, button, click_count; or, to narrow the locator, nth, first, last, has_text, has_not_text, has, has_not, within, frame",
      "4:13 steps[1].repeat: missing required field 'steps'",
      '4:22 steps[1].repeat.times: expected a whole number of passes, or a template such as "{{ count }}"',
      '4:34 steps[1].repeat.as: expected a variable name: letters, digits and _, not starting with a digit',
      '5:24 steps[2].for_each.items: expected a list, or a template naming one such as "{{ users }}"',
      "6:12 steps[3].retry: expected at least one of attempts, timeout",
      '6:43 steps[3].retry.delay: expected a duration such as "500ms", "2s" or "1m"',
      "7:5 'retries' applies to single steps; a retry block says how often with 'attempts'",
      '14:24 steps[4].for_each.steps[0].repeat.steps[0].sleep: expected a duration such as "500ms", "2s" or "1m"',
    ]);
  });

  test('step options, include, function and expect_soft', () => {
    expect(problems(`name: bad
steps:
  - include: { file: a.yaml, with: { "a b": 1 }, extra: 1 }
  - goto: x
    save: y
  - goto: x
    retry_delay: 1s
    continue_on_error: yes
  - function: ""
  - expect_soft: { txt: a }
  - include: 3
  - if: { var: x, equals: 1 }
    then: [{ goto: x }]
    retries: 1
`)).toEqual([
      "3:38 invalid parameter name 'a b'; use letters, digits and _, not starting with a digit",
      "3:50 unknown field 'extra' in steps[0].include; expected one of file, with",
      "5:5 'save' beside the kind applies to function steps; a goto step takes 'save' inside 'goto'",
      "7:5 'retry_delay' applies with 'retries'",
      '8:24 steps[2].continue_on_error must be a boolean',
      '9:15 steps[3].function must not be empty',
      '10:18 steps[4].expect_soft: expected a condition: on the page text, visible, url, title or aria_snapshot; on an element (a locator such as role or test_id) text, count, value, attribute, css, aria_snapshot or a state such as visible, enabled or checked; or a value: var with equals, contains, matches, greater_than, length and more',
      "10:20 unknown field 'txt' in steps[4].expect_soft; did you mean 'text'? expected one of text, visible, url, title, selector, role, name, level, pressed, expanded, selected, include_hidden, exact, label, placeholder, test_id, alt, count, value, attribute, css, values, class, id, accessible_name, accessible_description, accessible_error_message, aria_role, js_property, attached, hidden, enabled, disabled, checked, focused, editable, empty, in_viewport, aria_snapshot, not, var, equals, contains, matches, greater_than, greater_than_or_equal, less_than, less_than_or_equal, length, truthy, falsy, defined, timeout; or, to narrow the locator, nth, first, last, has_text, has_not_text, has, has_not, within, frame",
      '11:14 steps[5].include: expected a scenario file path, or an object with file and optional with',
      "14:5 'retries' applies to single steps; to run the steps of an 'if' block again, put them in a 'retry' block",
    ]);
  });

  test('secrets, web_server, before and after', () => {
    expect(problems(`name: bad
secrets:
  TOKEN: { env: A, file: b }
  bad-name: { env: X }
  EMPTY: {}
web_server: { command: x, url: localhost:3000, reuse: true }
screenshot_on_failure: sometimes
before:
  - gto: x
steps:
  - goto: x
after:
  - sleep: forever
`)).toEqual([
      "3:20 secrets.TOKEN: use 'env' or 'file', not both; found 'env' and 'file'",
      "4:3 invalid secret name 'bad-name'; use letters, digits and _, not starting with a digit",
      '5:10 secrets.EMPTY: expected { env: VARIABLE } or { file: path }',
      '6:32 web_server.url: expected an http:// or https:// URL',
      "6:48 unknown field 'reuse' in web_server; expected one of command, url, timeout, cwd, env, reuse_existing",
      '7:24 screenshot_on_failure must be a boolean',
      expect.stringMatching(/^9:5 unknown step kind 'gto'; expected one of goto, /),
      '13:12 after[0].sleep: expected a duration such as "500ms", "2s" or "1m"',
    ]);
  });
});
