import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { formatDiagnostic, loadScenarioSource, validateScenario } from '../../src/scenario/index.js';
import { checkAgainst, schemaAccepts } from '../../src/scenario/schema.js';

const FILE = 'scenarios/bad.yaml';
const KINDS = 'goto, go_back, go_forward, reload, click, fill, press, hover, check, uncheck, select, type, focus, scroll_into_view, drag, set_input_files, switch_page, close_page, dialog, route, unroute, request, wait_for_response, wait_for_download, save_storage_state, expect, expect_soft, screenshot, expect_screenshot, expect_accessible, sleep, computer, clipboard, exec, spawn, wait_process, read_file, write_file, upload, wait_file, execute, invoke, script, marker, if, repeat, for_each, retry, include, function';
const TARGETS = 'selector, text, role, label, placeholder, test_id';

/** The formatted diagnostics for an inline scenario. */
function problems(source: string): string[] {
  return validateScenario(loadScenarioSource(FILE, source)).map(formatDiagnostic);
}

/** A valid scenario header, so each test only shows the part that is wrong. */
const HEAD = 'name: bad\n';

describe('validateScenario', () => {
  test('a valid scenario has no problems', () => {
    expect(problems(`${HEAD}steps:\n  - goto: https://example.com\n  - screenshot:\n`)).toEqual([]);
  });

  test('unknown top-level key, at the key', () => {
    expect(problems(`${HEAD}stesp:\n  - goto: x\nsteps:\n  - goto: x\n`)).toEqual([
      `${FILE}:2:1 unknown field 'stesp'; did you mean 'steps'? expected one of name, description, tags, vars, secrets, serve, web_server, base_url, browser, context, replay, telemetry, timeout, trace, skip, fixme, only, slow, each, screenshot_on_failure, before, steps, after`,
    ]);
  });

  test('missing name, at the top of the document', () => {
    expect(problems('# a comment\nsteps:\n  - goto: x\n')).toEqual([`${FILE}:2:1 missing required field 'name'`]);
  });

  test('a document that is not a mapping', () => {
    expect(problems('- goto: x\n')).toEqual([`${FILE}:1:1 a scenario must be a YAML mapping with at least name and steps`]);
  });

  test('empty steps', () => {
    expect(problems(`${HEAD}steps: []\n`)).toEqual([`${FILE}:2:8 steps must not be empty`]);
  });

  test('fields one level too far left under a kind are named as an indentation problem, nothing else', () => {
    const source = `${HEAD}steps:\n  - fill:\n    label: Name\n    value: Ada\n  - click:\n    role: button\n    name: Go\n`;
    expect(problems(source)).toEqual([
      `${FILE}:3:5 'fill' is empty and 'label' and 'value' sit beside it: indent them two more spaces under 'fill:'`,
      `${FILE}:6:5 'click' is empty and 'role' and 'name' sit beside it: indent them two more spaces under 'click:'`,
    ]);
  });

  test('an empty kind says it is empty, without rules that only apply to objects', () => {
    expect(problems(`${HEAD}steps:\n  - fill:\n`)).toEqual([`${FILE}:3:5 steps[0].fill is empty; it needs an object`]);
  });

  test('unknown step kind, at the key', () => {
    const source = `${HEAD}description: x\ntags: [a]\nbrowser:\n  headless: true\nsteps:\n  - gto: https://example.com\n`;
    expect(problems(source)).toEqual([`${FILE}:7:5 unknown step kind 'gto'; expected one of ${KINDS}`]);
  });

  test('step with no kind, at the step', () => {
    expect(problems(`${HEAD}steps:\n  - name: just a name\n    timeout: 2s\n`)).toEqual([
      `${FILE}:3:5 step has no kind; expected one of ${KINDS}`,
    ]);
  });

  test('step with two kinds, at the second kind', () => {
    expect(problems(`${HEAD}steps:\n  - goto: x\n    click: "#a"\n`)).toEqual([
      `${FILE}:4:5 a step has exactly one kind, found 'goto' and 'click'`,
    ]);
  });

  test('a stray key beside a kind is an unknown field, not an unknown kind', () => {
    expect(problems(`${HEAD}steps:\n  - goto: x\n    wait_until: load\n`)).toEqual([
      `${FILE}:4:5 unknown field 'wait_until' in steps[0]; a step has one kind ('goto') plus optional name, timeout, retries, retry_delay, continue_on_error`,
    ]);
  });

  test('steps that are not objects', () => {
    expect(problems(`${HEAD}steps:\n  - screenshot\n  -\n  - 42\n`)).toEqual([
      `${FILE}:3:5 step 'screenshot' needs a colon: write '- screenshot:'`,
      `${FILE}:4:3 step must be an object with one kind; expected one of ${KINDS}`,
      `${FILE}:5:5 step must be an object with one kind; expected one of ${KINDS}`,
    ]);
  });

  test('browser.timeout_seconds out of range, at the value', () => {
    expect(problems(`${HEAD}browser:\n  timeout_seconds: 5\nsteps:\n  - goto: x\n`)).toEqual([
      `${FILE}:3:20 browser.timeout_seconds must be >= 10`,
    ]);
    expect(problems(`${HEAD}browser: { timeout_seconds: 300000 }\nsteps:\n  - goto: x\n`)).toEqual([
      `${FILE}:2:29 browser.timeout_seconds must be <= 259200`,
    ]);
  });

  test('viewport width of the wrong type, and unknown browser fields', () => {
    const source = `${HEAD}browser:\n  viewport: { width: x, height: 800 }\n  headles: true\nsteps:\n  - goto: x\n`;
    expect(problems(source)).toEqual([
      `${FILE}:3:22 browser.viewport.width must be an integer`,
      `${FILE}:4:3 unknown field 'headles' in browser; did you mean 'headless'? expected one of headless, stealth, timeout_seconds, viewport, start_url, name, tags, kiosk_mode, chrome_policy, profile, auth, extensions, proxy, proxy_id, pool, acquire_timeout`,
    ]);
  });

  test('a bare number as a duration is refused with the units it could mean; 0 needs none', () => {
    expect(problems(`${HEAD}timeout: 5\nsteps:\n  - sleep: 0\n  - expect: { text: hi, timeout: 500 }\n`)).toEqual([
      `${FILE}:2:10 timeout: a duration needs a unit: write "5ms" or "5s" (a bare number 5 could mean either)`,
      `${FILE}:5:34 steps[1].expect.timeout: a duration needs a unit: write "500ms" or "500s" (a bare number 500 could mean either)`,
    ]);
  });

  test('bad durations', () => {
    const source = `${HEAD}timeout: soon\nsteps:\n  - sleep: 5x\n  - goto: x\n    timeout: -1\n  - expect: { text: hi, timeout: 2h }\n`;
    const duration = 'expected a duration such as "500ms", "2s" or "1m"';
    expect(problems(source)).toEqual([
      `${FILE}:2:10 timeout: ${duration}`,
      `${FILE}:4:12 steps[0].sleep: ${duration}`,
      `${FILE}:6:14 steps[1].timeout: invalid duration -1; expected a duration such as "500ms", "2s" or "1m"`,
      `${FILE}:7:34 steps[2].expect.timeout: ${duration}`,
    ]);
  });

  test('a target that is neither a string nor an object', () => {
    expect(problems(`${HEAD}steps:\n  - goto: x\n  - goto: y\n  - goto: z\n  - click: 42\n`)).toEqual([
      `${FILE}:6:12 steps[3].click: expected a selector string or an object with one of ${TARGETS}`,
    ]);
  });

  test('a target object without a locator, with an unknown field', () => {
    expect(problems(`${HEAD}steps:\n  - click: { txt: Hi }\n`)).toEqual([
      `${FILE}:3:12 steps[0].click: missing a target; expected one of ${TARGETS}`,
      `${FILE}:3:14 unknown field 'txt' in steps[0].click; did you mean 'text'? expected one of selector, text, role, name, level, pressed, expanded, selected, include_hidden, checked, disabled, exact, label, placeholder, test_id, alt, title, button, click_count; or, to narrow the locator, nth, first, last, has_text, has_not_text, has, has_not, within, frame`,
    ]);
  });

  test('a target object with two locators, at the second', () => {
    expect(problems(`${HEAD}steps:\n  - fill: { text: a, role: b, value: x }\n`)).toEqual([
      `${FILE}:3:22 steps[0].fill: a target has exactly one of ${TARGETS}; found 'text' and 'role'`,
    ]);
  });

  test('target options that need a particular locator', () => {
    expect(problems(`${HEAD}steps:\n  - click: { selector: "#a", exact: true, name: x }\n`)).toEqual([
      `${FILE}:3:30 steps[0].click: 'exact' only applies to text, role, label or placeholder`,
      `${FILE}:3:43 steps[0].click: 'name' is only allowed together with 'role'`,
    ]);
  });

  test('expect needs a condition; conditions are checked precisely', () => {
    const source = `${HEAD}steps:\n  - expect: { timeout: 1s }\n  - expect:\n      url: { equals: a, contains: b }\n      title: 5\n      visible: { role: link, nme: y }\n`;
    expect(problems(source)).toEqual([
      `${FILE}:3:13 steps[0].expect: expected a condition: on the page text, visible, url, title or aria_snapshot; on an element (a locator such as role or test_id) text, count, value, attribute, css, aria_snapshot or a state such as visible, enabled or checked; or a value: var with equals, contains, matches, greater_than, length and more`,
      `${FILE}:5:25 steps[1].expect.url: expected only one of equals, contains, matches; found 'equals' and 'contains'`,
      `${FILE}:6:14 steps[1].expect.title: expected a string or an object with one of equals, contains, matches`,
      `${FILE}:7:30 unknown field 'nme' in steps[1].expect.visible; did you mean 'name'? expected one of selector, text, role, name, level, pressed, expanded, selected, include_hidden, checked, disabled, exact, label, placeholder, test_id, alt, title; or, to narrow the locator, nth, first, last, has_text, has_not_text, has, has_not, within, frame`,
    ]);
  });

  test('goto, press and screenshot shapes', () => {
    const source = [
      HEAD + 'steps:',
      '  - goto: { url: 5, wait_until: never }',
      '  - press: [Enter]',
      '  - press: { label: Name }',
      '  - screenshot: { full: true }',
      '  - click: { role: button, button: left, click_count: 0 }',
      '',
    ].join('\n');
    expect(problems(source)).toEqual([
      `${FILE}:3:18 steps[0].goto.url must be a string`,
      `${FILE}:3:33 steps[0].goto.wait_until must be one of load, domcontentloaded, networkidle, commit`,
      `${FILE}:4:12 steps[1].press: expected a key name such as "Enter" or an object with key and optional target fields`,
      `${FILE}:5:12 steps[2].press: missing required field 'key'`,
      `${FILE}:6:19 unknown field 'full' in steps[3].screenshot; expected one of name, full_page, screen, region`,
      `${FILE}:7:55 steps[4].click.click_count must be >= 1`,
    ]);
  });

  test('variable names and values', () => {
    const source = `${HEAD}vars:\n  "my var": x\n  ok: null\nsteps:\n  - goto: x\n`;
    expect(problems(source)).toEqual([
      `${FILE}:3:3 invalid variable name 'my var'; use letters, digits and _, not starting with a digit`,
      `${FILE}:4:7 vars.ok: expected a string, number, boolean, list or mapping`,
    ]);
  });

  test('reports every problem, sorted by position, without repeats', () => {
    const source = [
      'name: many',
      'stesp: 1',
      'browser:',
      '  timeout_seconds: 5',
      '  viewport: { width: x, height: 800 }',
      'steps:',
      '  - gto: https://example.com',
      '  - goto: x',
      '    click: "#a"',
      '  - sleep: forever',
      '  - click: { txt: Hi }',
      '',
    ].join('\n');
    expect(problems(source)).toEqual([
      `${FILE}:2:1 unknown field 'stesp'; did you mean 'steps'? expected one of name, description, tags, vars, secrets, serve, web_server, base_url, browser, context, replay, telemetry, timeout, trace, skip, fixme, only, slow, each, screenshot_on_failure, before, steps, after`,
      `${FILE}:4:20 browser.timeout_seconds must be >= 10`,
      `${FILE}:5:22 browser.viewport.width must be an integer`,
      `${FILE}:7:5 unknown step kind 'gto'; expected one of ${KINDS}`,
      `${FILE}:9:5 a step has exactly one kind, found 'goto' and 'click'`,
      `${FILE}:10:12 steps[2].sleep: expected a duration such as "500ms", "2s" or "1m"`,
      `${FILE}:11:12 steps[3].click: missing a target; expected one of ${TARGETS}`,
      `${FILE}:11:14 unknown field 'txt' in steps[3].click; did you mean 'text'? expected one of selector, text, role, name, level, pressed, expanded, selected, include_hidden, checked, disabled, exact, label, placeholder, test_id, alt, title, button, click_count; or, to narrow the locator, nth, first, last, has_text, has_not_text, has, has_not, within, frame`,
    ]);
  });
});

describe('the validator generated at build time (runner/scenario-accepts.mjs)', () => {
  const files = readdirSync('scenarios', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml')).map((f) => join('scenarios', f));
  const named = (data: unknown) => ({ name: 'part', ...(data as object) });
  const samples = files.flatMap((file) => {
    const data = named(loadScenarioSource(file, readFileSync(file, 'utf8')).data);
    const { name: _, ...nameless } = data as Record<string, unknown>;
    return [
      [file, data],
      [`${file} without a name`, nameless],
      [`${file} with an unknown field`, { ...data, stesp: [] }],
      [`${file} with a number for a step`, { ...data, steps: [42] }],
    ] as [string, unknown][];
  });

  test('is used: it was generated from this schema, and accepts every example scenario', () => {
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect(schemaAccepts(named(loadScenarioSource(file, readFileSync(file, 'utf8')).data)), file).toBe(true);
  });

  test.each(samples)('agrees with the explaining validator: %s', (_, data) => {
    expect(schemaAccepts(data)).toBe(checkAgainst('', data, []).length === 0);
  });
});
