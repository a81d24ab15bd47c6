import path from 'node:path';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ScenarioError,
  formatDiagnostic,
  compileScenario,
  loadPlan,
  loadScenarioFile,
  loadScenarioSource,
  validateScenario,
} from '../../src/scenario/index.js';
import type { CompileOptions, Operation, Plan } from '../../src/scenario/index.js';

const QUICKSTART = 'scenarios/quickstart.yaml';

/** One line per operation: phase, step kind, and the op (with the page action or API call). */
function outline(plan: Plan): string[] {
  return plan.steps.flatMap((s) => s.operations.map((op) => `${s.phase} ${s.kind} ${describeOp(op)}`));
}

function describeOp(op: Operation): string {
  if (op.op === 'page') return `page:${op.action}`;
  if (op.op === 'api') return `api:${op.method} ${op.path}`;
  return op.op;
}

function compile(source: string, opts?: CompileOptions): Plan {
  const loaded = loadScenarioSource('scenarios/t.yaml', source);
  expect(validateScenario(loaded)).toEqual([]);
  return compileScenario(loaded, opts);
}

function compileErrors(source: string, opts?: CompileOptions): string[] {
  try {
    compile(source, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return (err as ScenarioError).message.split('\n');
  }
  throw new Error('expected a ScenarioError');
}

describe('compiling the quickstart', () => {
  /** The quickstart records a replay: every main step first puts a marker on it. */
  const MARK = 'api:POST /browsers/{{ session.session_id }}/replays/{{ replay.replay_id }}/markers';
  let plan: Plan;
  beforeAll(async () => {
    const loaded = await loadScenarioFile(QUICKSTART);
    expect(validateScenario(loaded)).toEqual([]);
    plan = compileScenario(loaded, { env: {} });
  });

  test('steps and operations in order', () => {
    expect(outline(plan)).toEqual([
      'setup serve serve',
      'setup browser acquire_browser',
      'setup browser connect',
      'setup replay api:POST /browsers/{{ session.session_id }}/replays',
      `main goto ${MARK}`,
      'main goto page:goto',
      `main expect ${MARK}`,
      'main expect page:expect',
      `main fill ${MARK}`,
      'main fill page:fill',
      `main click ${MARK}`,
      'main click page:click',
      `main expect ${MARK}`,
      'main expect page:expect',
      `main marker ${MARK}`,
      `main fill ${MARK}`,
      'main fill page:fill',
      `main press ${MARK}`,
      'main press page:press',
      `main expect ${MARK}`,
      'main expect page:expect',
      `main screenshot ${MARK}`,
      'main screenshot page:screenshot',
      `main click ${MARK}`,
      'main click page:click',
      `main expect ${MARK}`,
      'main expect page:expect',
      `main sleep ${MARK}`,
      'main sleep page:sleep',
      'teardown replay_stop api:POST /browsers/{{ session.session_id }}/replays/{{ replay.replay_id }}/stop',
      'teardown replay_stop poll',
      'teardown replay_stop api:GET /browsers/{{ session.session_id }}/replays/{{ replay.replay_id }}/markers.vtt',
      'teardown release disconnect',
      'teardown release release_browser',
      'teardown serve_stop serve_stop',
    ]);
    expect(plan.steps.map((s) => s.index)).toEqual(plan.steps.map((_, i) => i));
    expect(plan.version).toBe(1);
    expect(plan.scenario).toEqual({ name: 'quickstart', file: QUICKSTART, tags: ['smoke'] });
  });

  test('setup and teardown steps', () => {
    const [serve, browser] = plan.steps;
    expect(serve).toEqual({
      index: 0, phase: 'setup', kind: 'serve', name: 'serve site',
      source: { file: QUICKSTART, line: 5, col: 1 }, timeout_ms: 10_000,
      operations: [{ op: 'serve', dir: path.resolve('scenarios/site'), save: 'serve' }],
    });
    expect(browser).toEqual({
      index: 1, phase: 'setup', kind: 'browser', name: 'create browser',
      source: { file: QUICKSTART, line: 8, col: 1 }, timeout_ms: 60_000,
      operations: [
        { op: 'acquire_browser', body: { headless: true, viewport: { width: 1280, height: 800 } }, save: 'session' },
        { op: 'connect', ws_url: '{{ session.cdp_ws_url }}' },
      ],
    });
    const [release, stop] = plan.steps.slice(-2);
    expect(release).toMatchObject({
      kind: 'release', name: 'delete browser', source: browser!.source, timeout_ms: 30_000,
      operations: [{ op: 'disconnect' }, { op: 'release_browser' }],
    });
    expect(stop).toMatchObject({ kind: 'serve_stop', name: 'stop serving site', source: serve!.source, operations: [{ op: 'serve_stop' }] });
  });

  test('main steps: names, sources, timeouts and actions', () => {
    const main = plan.steps.filter((s) => s.phase === 'main');
    expect(main.map((s) => [s.name, s.source.line, s.source.col, s.timeout_ms])).toEqual([
      ['goto {{ serve.url }}/index.html', 13, 5, 10_000],
      ['expect title "Quickstart"', 14, 5, 10_000],
      ['fill label="Your name"', 15, 5, 10_000],
      ['click role=button[name="Greet"]', 16, 5, 10_000],
      ['expect text "Hello, Ada!"', 17, 5, 10_000],
      ['marker greeted by the form', 18, 5, 10_000],
      ['greet again with the keyboard', 19, 5, 10_000],
      ['press Enter', 21, 5, 10_000],
      ['expect text "Hello, Grace!"', 22, 5, 5_000],
      ['screenshot greeted', 23, 5, 10_000],
      ['click #about', 24, 5, 10_000],
      ['expect url contains "/about.html", visible role=heading[name="About this site"]', 25, 5, 10_000],
      ['sleep 100ms', 26, 5, 10_000],
    ]);
    // A marker named after the step, then what the step does; the marker step is its own marker.
    const markers = '/browsers/{{ session.session_id }}/replays/{{ replay.replay_id }}/markers';
    expect(main.map((s) => s.operations[0])).toEqual(
      main.map((s) => ({ op: 'api', method: 'POST', path: markers, body: { name: s.kind === 'marker' ? 'greeted by the form' : s.name }, replay: 'marker' })),
    );
    expect(main.map((s) => s.operations.slice(1))).toEqual([
      [{ op: 'page', action: 'goto', url: '{{ serve.url }}/index.html' }],
      [{ op: 'page', action: 'expect', title: { equals: 'Quickstart' } }],
      [{ op: 'page', action: 'fill', target: { label: 'Your name' }, value: 'Ada' }],
      [{ op: 'page', action: 'click', target: { role: 'button', name: 'Greet' } }],
      [{ op: 'page', action: 'expect', text: 'Hello, Ada!' }],
      [],
      [{ op: 'page', action: 'fill', target: { label: 'Your name' }, value: 'Grace' }],
      [{ op: 'page', action: 'press', key: 'Enter', target: { label: 'Your name' } }],
      [{ op: 'page', action: 'expect', text: 'Hello, Grace!' }],
      [{ op: 'page', action: 'screenshot', file: '10-greeted.png' }],
      [{ op: 'page', action: 'click', target: { selector: '#about' } }],
      [{ op: 'page', action: 'expect', url: { contains: '/about.html' }, visible: { role: 'heading', name: 'About this site' } }],
      [{ op: 'page', action: 'sleep', ms: 100 }],
    ]);
  });

  test('the plan is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  test('command-line vars override the file', async () => {
    const loaded = await loadScenarioFile(QUICKSTART);
    const overridden = compileScenario(loaded, { vars: { visitor: 'Grace Hopper' }, env: {} });
    expect(overridden.steps[5]!.operations[1]).toMatchObject({ action: 'fill', value: 'Grace Hopper' });
    expect(overridden.steps[7]!.name).toBe('expect text "Hello, Grace Hopper!"');
  });
});

describe('compiling other shapes', () => {
  test('no serve, no browser block: an empty create body, sources at name', () => {
    const plan = compile('\nname: bare\nsteps:\n  - goto: https://example.com\n');
    expect(outline(plan)).toEqual([
      'setup browser acquire_browser',
      'setup browser connect',
      'main goto page:goto',
      'teardown release disconnect',
      'teardown release release_browser',
    ]);
    expect(plan.steps[0]).toMatchObject({ source: { line: 2, col: 1 } });
    expect(plan.steps[0]!.operations[0]).toEqual({ op: 'acquire_browser', body: {}, save: 'session' });
    expect(plan.scenario.tags).toEqual([]);
  });

  test('step options, defaults and timeouts', () => {
    const plan = compile(
      [
        'name: shapes',
        'timeout: 3s',
        'steps:',
        '  - goto: { url: "https://example.com", wait_until: networkidle }',
        '    timeout: 1.5s',
        '  - click: { text: More, exact: true, button: right, click_count: 2 }',
        '  - fill: { placeholder: Age, value: 42 }',
        '  - press: Control+A',
        '  - expect: { title: { matches: "^Ex.*" }, visible: { test_id: main } }',
        '  - screenshot:',
        '  - screenshot: { name: "After Login!", full_page: true }',
        '  - sleep: 500ms',
        '  - sleep: 1m',
        '',
      ].join('\n'),
    );
    const main = plan.steps.filter((s) => s.phase === 'main');
    expect(main.map((s) => [s.name, s.timeout_ms, s.operations[0]])).toEqual([
      ['goto https://example.com', 1_500, { op: 'page', action: 'goto', url: 'https://example.com', wait_until: 'networkidle' }],
      ['right double click text="More"', 3_000, { op: 'page', action: 'click', target: { text: 'More', exact: true }, button: 'right', click_count: 2 }],
      ['fill placeholder="Age"', 3_000, { op: 'page', action: 'fill', target: { placeholder: 'Age' }, value: '42' }],
      ['press Control+A', 3_000, { op: 'page', action: 'press', key: 'Control+A' }],
      ['expect title matches /^Ex.*/, visible test_id="main"', 3_000,
        { op: 'page', action: 'expect', title: { matches: '^Ex.*' }, visible: { test_id: 'main' } }],
      ['screenshot', 3_000, { op: 'page', action: 'screenshot', file: '06-screenshot.png' }],
      ['screenshot After Login!', 3_000, { op: 'page', action: 'screenshot', file: '07-after-login.png', full_page: true }],
      ['sleep 500ms', 3_000, { op: 'page', action: 'sleep', ms: 500 }],
      // A sleep longer than the default timeout gets room to finish.
      ['sleep 1m', 61_000, { op: 'page', action: 'sleep', ms: 60_000 }],
    ]);
  });

  test('an accessibility audit gets at least 30 s unless the step sets its own timeout', () => {
    const plan = compile(['name: audit', 'browser: {}', 'steps:', '  - expect_accessible: serious', '  - { expect_accessible: minor, timeout: 5s }', ''].join('\n'));
    expect(plan.steps.filter((s) => s.phase === 'main').map((s) => s.timeout_ms)).toEqual([30_000, 5_000]);
  });

  test('vars: env, serve.url, other vars, numbers; session templates stay', () => {
    const plan = compile(
      [
        'name: vars',
        'serve: ./site',
        'vars:',
        '  base: "{{ serve.url }}/app"',
        '  page: "{{ base }}/{{ env.PAGE }}"',
        '  count: 3',
        'browser:',
        '  name: "run-{{ env.RUN }}"',
        '  start_url: "{{ base }}"',
        'steps:',
        '  - goto: "{{page}}?n={{ count }}"',
        '  - name: "check {{ count }}"',
        '    expect: { text: "{{ session.session_id }}" }',
        '',
      ].join('\n'),
      { env: { PAGE: 'index.html', RUN: '7' } },
    );
    expect(plan.steps[0]!.operations[0]).toEqual({ op: 'serve', dir: path.resolve('scenarios/site'), save: 'serve' });
    expect(plan.steps[0]!.name).toBe('serve ./site');
    expect(plan.steps[1]!.operations[0]).toMatchObject({ body: { name: 'run-7', start_url: '{{ serve.url }}/app' } });
    expect(plan.steps[2]!.operations[0]).toMatchObject({ url: '{{ serve.url }}/app/index.html?n=3' });
    expect(plan.steps[3]!.name).toBe('check 3');
    expect(plan.steps[3]!.operations[0]).toMatchObject({ text: '{{ session.session_id }}' });
  });
});

describe('template errors', () => {
  test('unknown variables and unset environment variables, at the string that uses them', () => {
    const source = [
      'name: t',
      'vars:',
      '  greeting: "Hello {{ nobody }}"',
      'steps:',
      '  - fill: { label: Port, value: "{{ env.SITE_PORT }}" }',
      '  - expect: { text: "{{ foo }} and {{ bar }}" }',
      '',
    ].join('\n');
    expect(compileErrors(source, { env: {} })).toEqual([
      "scenarios/t.yaml:3:13 unknown variable 'nobody'",
      "scenarios/t.yaml:5:33 environment variable 'SITE_PORT' is not set",
      "scenarios/t.yaml:6:21 unknown variable 'foo'",
      "scenarios/t.yaml:6:21 unknown variable 'bar'",
    ]);
  });

  test('serve.url without serve', () => {
    expect(compileErrors('name: t\nsteps:\n  - goto: "{{ serve.url }}/index.html"\n')).toEqual([
      "scenarios/t.yaml:3:11 'serve.url' is only available when the scenario has 'serve' (a folder to serve)",
    ]);
  });

  test('a cycle between variables, where it closes', () => {
    const source = 'name: t\nvars:\n  a: "{{ b }}"\n  b: "x{{ a }}"\n  c: "{{ c }}"\nsteps:\n  - goto: "http://h/{{ a }}"\n';
    expect(compileErrors(source)).toEqual([
      'scenarios/t.yaml:4:6 variable cycle: a -> b -> a',
      'scenarios/t.yaml:5:6 variable cycle: c -> c',
    ]);
  });

  test('session fields cannot be used to create the session', () => {
    expect(compileErrors('name: t\nbrowser:\n  name: "{{ session.session_id }}"\nsteps:\n  - sleep: 1ms\n')).toEqual([
      "scenarios/t.yaml:3:9 'session.session_id' is not available in 'browser': the session does not exist yet",
    ]);
  });

  test('an invalid regular expression', () => {
    expect(compileErrors('name: t\nsteps:\n  - expect: { url: { matches: "(" } }\n')[0]).toMatch(
      /^scenarios\/t\.yaml:3:31 invalid regular expression: /,
    );
  });
});

describe('loadPlan', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bcs-scenario-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('loads, validates and compiles', async () => {
    const plan = await loadPlan(QUICKSTART, { env: {} });
    expect(plan.steps).toHaveLength(19);
  });

  test('throws every validation problem at once', async () => {
    const file = path.join(dir, 'bad.yaml');
    await writeFile(file, 'name: bad\nsteps:\n  - gto: x\n  - sleep: later\n');
    const err = await loadPlan(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScenarioError);
    expect((err as ScenarioError).message).toBe(
      [
        `${file}:3:5 unknown step kind 'gto'; expected one of goto, go_back, go_forward, reload, click, fill, press, hover, check, uncheck, select, type, focus, scroll_into_view, drag, set_input_files, switch_page, close_page, dialog, route, unroute, request, wait_for_response, wait_for_download, save_storage_state, expect, expect_soft, screenshot, expect_screenshot, expect_accessible, sleep, computer, clipboard, exec, spawn, wait_process, read_file, write_file, upload, wait_file, execute, invoke, script, marker, if, repeat, for_each, retry, include, function`,
        `${file}:4:12 steps[1].sleep: expected a duration such as "500ms", "2s" or "1m"`,
      ].join('\n'),
    );
  });

  test('throws template problems after validation passes', async () => {
    const file = path.join(dir, 'env.yaml');
    await writeFile(file, 'name: env\nsteps:\n  - goto: "http://localhost:{{ env.SITE_PORT }}/"\n');
    await expect(loadPlan(file, { env: {} })).rejects.toThrow(`${file}:3:11 environment variable 'SITE_PORT' is not set`);
    const plan = await loadPlan(file, { env: { SITE_PORT: '8080' } });
    expect(plan.steps[1]!.operations[0]).toMatchObject({ url: 'http://localhost:8080/' });
  });
});

describe('relative URLs and the served folder', () => {
  const gotoOf = (plan: Plan) => plan.steps.flatMap((s) => s.operations).find((op) => op.op === 'page' && op.action === 'goto');

  test('a relative goto resolves against base_url, else serve.url, else web_server.url', () => {
    expect(gotoOf(compile('name: a\nbase_url: http://app.test/shop/\nsteps:\n  - goto: cart?id=2\n'))).toEqual({
      op: 'page', action: 'goto', url: 'cart?id=2', base_url: 'http://app.test/shop/',
    });
    expect(gotoOf(compile('name: a\nserve: site\nsteps:\n  - goto: /index.html\n'))).toMatchObject({ url: '/index.html', base_url: '{{ serve.url }}' });
    const web = 'name: a\nweb_server: { command: "true", url: "http://127.0.0.1:9/" }\nsteps:\n  - goto: /login\n';
    expect(gotoOf(compile(web))).toMatchObject({ url: '/login', base_url: '{{ web_server.url }}' });
    // Whole URLs, and templates that make them, stand alone.
    expect(gotoOf(compile('name: a\nserve: site\nsteps:\n  - goto: "about:blank"\n'))).not.toHaveProperty('base_url');
  });

  test('a relative goto without any base, and a served folder that does not exist, fail at validate time', () => {
    expect(compileErrors('name: a\nsteps:\n  - goto: /login\n')).toEqual([
      "scenarios/t.yaml:3:11 '/login' is a relative URL and the scenario has no base: set base_url (or serve a folder with serve), or write the whole URL",
    ]);
    expect(compileErrors('name: a\nserve: no-such-site\nsteps:\n  - goto: /\n')).toEqual([
      `scenarios/t.yaml:2:8 cannot serve ${path.resolve('scenarios/no-such-site')}: no such folder`,
    ]);
  });
});

describe("context: Playwright's other options", () => {
  const connectOf = (plan: ReturnType<typeof compile>) => plan.steps.flatMap((s) => s.operations).find((o) => o.op === 'connect') as { context?: unknown };
  test('go into the connect operation as written; a secret password stays a template for the run', () => {
    const plan = compile(`name: c
secrets: { pw: { env: PW } }
context:
  http_credentials: { username: ada, password: "{{ secrets.pw }}", send: always }
  viewport: { width: 400, height: 600 }
  screen: { width: 800, height: 1000 }
  device_scale_factor: 2
  is_mobile: true
  has_touch: true
  forced_colors: active
  contrast: more
  bypass_csp: true
  ignore_https_errors: true
  service_workers: block
  accept_downloads: false
  strict_selectors: true
  record_har: { mode: minimal, url_filter: { matches: "/api/" } }
steps:
  - goto: "data:text/html,x"
`, { env: { PW: 'x' } });
    expect(connectOf(plan).context).toEqual({
      http_credentials: { username: 'ada', password: '{{ secrets.pw }}', send: 'always' }, viewport: { width: 400, height: 600 }, screen: { width: 800, height: 1000 },
      device_scale_factor: 2, is_mobile: true, has_touch: true, forced_colors: 'active', contrast: 'more', bypass_csp: true, ignore_https_errors: true,
      service_workers: 'block', accept_downloads: false, strict_selectors: true, record_har: { mode: 'minimal', url_filter: { matches: '/api/' } },
    });
  });

  test('a screen without a viewport, and values Playwright does not take, are errors at the field', () => {
    const errors = validateScenario(loadScenarioSource('scenarios/t.yaml', 'name: c\ncontext:\n  screen: { width: 800, height: 1000 }\n  service_workers: off\n  device_scale_factor: 0\nsteps:\n  - goto: "data:text/html,x"\n')).map(formatDiagnostic);
    expect(errors, errors.join("\n")).toHaveLength(3);
    expect(errors[0]).toBe('scenarios/t.yaml:3:3 context: expected at least one of viewport, device');
    expect(errors[1]).toMatch(/^scenarios\/t\.yaml:4:20 .*allow.*block/);
    expect(errors[2]).toMatch(/^scenarios\/t\.yaml:5:24 /);
  });
});

describe('context.device', () => {
  const devices = () => ['iPhone 13', 'Pixel 7', 'Desktop Chrome'];
  test('a device Playwright does not know is an error at the field, with the likely one', () => {
    expect(compileErrors('name: d\ncontext: { device: iPhone 31 }\nsteps:\n  - goto: "data:text/html,x"\n', { env: {}, devices })).toEqual([
      "scenarios/t.yaml:2:20 unknown device 'iPhone 31'; did you mean 'iPhone 13'? (Playwright's device registry names 3)",
    ]);
    expect(compile('name: d\ncontext: { device: Pixel 7 }\nsteps:\n  - goto: "data:text/html,x"\n', { env: {}, devices }).steps.length).toBeGreaterThan(0);
  });
});
