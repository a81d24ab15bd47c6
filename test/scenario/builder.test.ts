// The TypeScript builder builds the data a YAML file holds: the same plans come out, and every step kind of
// the schema has a method.
import { describe, expect, test } from 'vitest';
import {
  STEP_METHODS, ScenarioBuilder, compileScenario, loadScenarioFile, loadScenarioSource, scenario, steps, validateScenario,
  type Plan, type StepsBuilder,
} from '../../src/scenario/index.js';
import { SCENARIO_METHODS } from '../../src/scenario/builder.js';
import { scenarioSchema } from '../../src/scenario/schema.js';
import { SCENARIO_DEFINITION, loadedFromDefinition } from '../../src/scenario/builder-compile.js';
import { STEP_KINDS } from '../../src/scenario/validate.js';

/** The plan without where things are written, which is all that differs between a YAML file and a builder. */
function withoutSources(plan: Plan): unknown {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'source').map(([k, x]) => [k, strip(x)]));
    return v;
  };
  return strip({ ...plan, scenario: { ...plan.scenario, file: '' } });
}

async function yamlPlan(file: string): Promise<Plan> {
  const loaded = await loadScenarioFile(file);
  expect(validateScenario(loaded)).toEqual([]);
  return compileScenario(loaded, { env: {} });
}

function yamlSourcePlan(file: string, yaml: string, env: Record<string, string> = {}): Plan {
  const loaded = loadScenarioSource(file, yaml);
  expect(validateScenario(loaded)).toEqual([]);
  return compileScenario(loaded, { env });
}

const data = (b: ScenarioBuilder) => b[SCENARIO_DEFINITION]().data as { steps: Record<string, unknown>[] } & Record<string, unknown>;

describe('the same plan as YAML', () => {
  test('the quickstart', async () => {
    const built = scenario('quickstart')
      .description('Greets a visitor through a form, then visits the about page; the run is recorded as a replay.')
      .tags('smoke')
      .serve('site')
      .vars({ visitor: 'Ada' })
      .browser({ headless: true, viewport: { width: 1280, height: 800 } })
      .replay()
      .goto('{{ serve.url }}/index.html')
      .expect({ title: 'Quickstart' })
      .fill({ label: 'Your name', value: '{{ visitor }}' })
      .click({ role: 'button', name: 'Greet' })
      .expect({ text: 'Hello, {{ visitor }}!' })
      .marker('greeted by the form')
      .fill({ label: 'Your name' }, 'Grace', { name: 'greet again with the keyboard' })
      .press({ key: 'Enter', label: 'Your name' })
      .expect({ text: 'Hello, Grace!', timeout: '5s' })
      .screenshot('greeted')
      .click('#about')
      .expect({ url: { contains: '/about.html' }, visible: { role: 'heading', name: 'About this site' } })
      .sleep('100ms');
    const { plan, functions } = built.compile({ file: 'scenarios/quickstart.scenario.ts', env: {} });
    expect(functions).toEqual({});
    expect(plan.scenario.file).toBe('scenarios/quickstart.scenario.ts');
    expect(withoutSources(plan)).toEqual(withoutSources(await yamlPlan('scenarios/quickstart.yaml')));
  });

  test('every host step of host-apis.yaml', async () => {
    const built = scenario('host apis')
      .description(
        'Drives the browser host through the API - OS-level input, the clipboard, a screen screenshot, commands, processes, files and Playwright code - and checks what each one left behind.',
      )
      .tags('host')
      .serve('site')
      .vars({ note: 'typed at OS level' })
      .browser({ headless: true, viewport: { width: 1280, height: 800 } })
      .goto('{{ serve.url }}/host.html')
      .computer((c) => c.click(220, 100).type('{{ note }}').key('Return'), { name: 'type a note with the mouse and keyboard' })
      .expect({ text: 'Saved: {{ note }}' })
      .clipboard({ write: 'pasted from the clipboard' })
      .computer([{ click_mouse: { x: 220, y: 100 } }, { press_key: ['ctrl+a', 'ctrl+v', 'Return'] }], { name: 'paste over the note' })
      .expect({ text: 'Saved: pasted from the clipboard' })
      .clipboard({ read: true, expect: { contains: 'clipboard' } })
      .screenshot({ name: 'pasted', screen: true })
      .exec({ command: 'id', args: ['-un'], save: 'user' }, { name: 'ask the host who runs commands' })
      .exec({
        command: 'sh',
        args: ['-c', 'printf "%s" "$GREETING" > "$HOME/greeting.txt" && wc -c < "$HOME/greeting.txt"'],
        env: { GREETING: 'hello from {{ user }}' },
        expect: { exit_code: 0, stdout: { matches: '^\\s*\\d+$' } },
      })
      .readFile({ path: '/home/kernel/greeting.txt', expect: { equals: 'hello from {{ user }}' } })
      .writeFile({ path: '/home/kernel/report.json', content: '{ "user": "{{ user }}", "items": [1, 2, 3] }' })
      .readFile({
        path: '/home/kernel/report.json',
        save_to: 'report.json',
        save: 'report',
        expect: { bytes_at_least: 10, json: [{ path: '$.items[2]', equals: 3 }, { path: '$.user', equals: '{{ user }}' }] },
      })
      .upload([{ from: 'fixtures/hello.txt', to: '/home/kernel/uploads/hello.txt' }])
      .exec({ command: 'cat', args: ['uploads/hello.txt'], cwd: '/home/kernel', expect: { stdout: 'hello from a local file' } })
      .spawn({ command: 'sh', args: ['-c', 'sleep 0.3 && echo "{{ report.json.items }}" > "$HOME/Downloads/later.txt"'], save: 'writer' })
      .waitFile({ path: '/home/kernel/Downloads/later.txt', min_bytes: 7, timeout: '10s' })
      .waitProcess({ process: 'writer', timeout: '10s', expect: { exit_code: 0 } })
      .readFile({ path: '/home/kernel/Downloads/later.txt', expect: { json: { equals: [1, 2, 3] } } })
      .execute({
        code: "return { title: await page.title(), saved: await page.textContent('#saved') }",
        expect: { json: { path: '$.title', equals: 'Host APIs' } },
        save: 'state',
      })
      .exec({ command: 'echo', args: ['{{ state.result.saved }}'], expect: { stdout: 'Saved: pasted from the clipboard' } });
    const { plan } = built.compile({ file: 'scenarios/host-apis.scenario.ts', env: {} });
    expect(withoutSources(plan)).toEqual(withoutSources(await yamlPlan('scenarios/host-apis.yaml')));
  });

  test('replay, markers, telemetry, a pool, shorthands and every computer action', () => {
    const yaml = `name: the rest
tags: [a, b]
timeout: 3s
replay: { record: true, framerate: 10 }
telemetry: { console: true }
browser: { pool: warm, acquire_timeout: 5s, name: leased, tags: { team: qa } }
steps:
  - goto: { url: "data:text/html,hi", wait_until: commit }
  - marker: opened
  - computer:
      - click_mouse: { x: 1, y: 2, num_clicks: 2, hold_keys: [shift] }
      - move_mouse: { x: 3, y: 4, smooth: true }
      - type_text: { text: slow, delay: 5 }
      - press_key: { keys: [a], duration: 50 }
      - scroll: { x: 5, y: 6, delta_y: 3 }
      - drag_mouse: { path: [[1, 1], [9, 9]] }
      - set_cursor: { hidden: true }
      - sleep: 20ms
      - press_key: Tab
  - screenshot:
  - screenshot: { name: corner, screen: true, region: { x: 0, y: 0, width: 10, height: 10 } }
  - read_file: /tmp/a.txt
  - wait_file: /tmp/a.txt
  - spawn: sleep 1
  - exec: "true"
  - execute: return 1
  - click: { text: Go, button: right, click_count: 2 }
  - press: Enter
  - write_file: { path: /tmp/b.txt, from: fixtures/hello.txt, mode: "600" }
  - name: slow
    timeout: 4s
    sleep: 1s
`;
    const built = scenario('the rest')
      .tags('a', 'b')
      .timeout('3s')
      .replay({ record: true, framerate: 10 })
      .telemetry({ console: true })
      .browser({ pool: 'warm', acquire_timeout: '5s', name: 'leased', tags: { team: 'qa' } })
      .goto({ url: 'data:text/html,hi', wait_until: 'commit' })
      .marker('opened')
      .computer((c) =>
        c.click(1, 2, { num_clicks: 2, hold_keys: ['shift'] })
          .move(3, 4, { smooth: true })
          .type('slow', { delay: 5 })
          .key('a', { duration: 50 })
          .scroll(5, 6, { delta_y: 3 })
          .drag([[1, 1], [9, 9]])
          .cursor(true)
          .sleep('20ms')
          .action({ press_key: 'Tab' }),
      )
      .screenshot()
      .screenshot({ name: 'corner', screen: true, region: { x: 0, y: 0, width: 10, height: 10 } })
      .readFile('/tmp/a.txt')
      .waitFile('/tmp/a.txt')
      .spawn('sleep 1')
      .exec('true')
      .execute('return 1')
      .click({ text: 'Go', button: 'right', click_count: 2 })
      .press('Enter')
      .writeFile({ path: '/tmp/b.txt', from: 'fixtures/hello.txt', mode: '600' })
      .sleep('1s', { name: 'slow', timeout: '4s' });
    const { plan } = built.compile({ file: 'scenarios/rest.scenario.ts', env: {} });
    expect(withoutSources(plan)).toEqual(withoutSources(yamlSourcePlan('scenarios/rest.yaml', yaml)));
  });

  test('blocks, hooks, retries, soft expects, secrets and the web server', () => {
    const yaml = `name: blocks
secrets: { TOKEN: { env: BCS_TEST_TOKEN } }
web_server: { command: "python3 -m http.server 4173", url: "http://127.0.0.1:4173", timeout: 20s, reuse_existing: true }
screenshot_on_failure: false
vars: { pages: [a, b] }
before:
  - goto: "{{ web_server.url }}"
steps:
  - exec: { command: echo, args: ["3"], save: count }
  - if: { var: count.stdout, equals: "3" }
    then:
      - expect_soft: { text: three }
    else:
      - sleep: 10ms
  - name: twice
    repeat: { times: 2, as: pass, steps: [{ goto: "{{ web_server.url }}/{{ pass }}" }] }
  - for_each: { items: "{{ pages }}", as: page, steps: [{ goto: "{{ web_server.url }}/{{ page }}" }] }
  - retry: { attempts: 3, delay: 1s, steps: [{ click: "#go" }, { expect: { text: done } }] }
  - name: flaky
    retries: 2
    retry_delay: 500ms
    continue_on_error: true
    click: "#maybe"
after:
  - screenshot: last
`;
    const built = scenario('blocks')
      .secrets({ TOKEN: { env: 'BCS_TEST_TOKEN' } })
      .webServer({ command: 'python3 -m http.server 4173', url: 'http://127.0.0.1:4173', timeout: '20s', reuse_existing: true })
      .screenshotOnFailure(false)
      .vars({ pages: ['a', 'b'] })
      .before((s) => s.goto('{{ web_server.url }}'))
      .exec({ command: 'echo', args: ['3'], save: 'count' })
      .if({ var: 'count.stdout', equals: '3' }, (s) => s.expectSoft({ text: 'three' }), (s) => s.sleep('10ms'))
      .repeat({ times: 2, as: 'pass' }, (s) => s.goto('{{ web_server.url }}/{{ pass }}'), { name: 'twice' })
      .forEach({ items: '{{ pages }}', as: 'page' }, steps((s) => s.goto('{{ web_server.url }}/{{ page }}')))
      .retry({ attempts: 3, delay: '1s' }, (s) => s.click('#go').expect({ text: 'done' }))
      .click('#maybe', { name: 'flaky', retries: 2, retry_delay: '500ms', continue_on_error: true })
      .after((s) => s.screenshot('last'));
    const env = { BCS_TEST_TOKEN: 'secret' };
    const { plan } = built.compile({ file: 'scenarios/blocks.scenario.ts', env });
    expect(withoutSources(plan)).toEqual(withoutSources(yamlSourcePlan('scenarios/blocks.yaml', yaml, env)));
  });

  test('numbers are milliseconds, as in Playwright: the builder writes them with their unit', () => {
    const built = scenario('ms')
      .timeout(4000)
      .sleep(250)
      .goto('about:blank', { timeout: 1500, retries: 1, retry_delay: 100 })
      .computer((c) => c.sleep(50))
      .waitFile({ path: '/tmp/x', timeout: 3000 });
    const { plan } = built.compile({ file: 'ms.scenario.ts', env: {} });
    const main = plan.steps.filter((s) => s.phase === 'main');
    expect(main.slice(1).map((s) => s.timeout_ms)).toEqual([1500, 4000, 3000]);
    expect(main[0]!.operations[0]).toMatchObject({ action: 'sleep', ms: 250 });
    expect(main[1]!.retry_delay_ms).toBe(100);
    expect(main[2]!.operations[0]).toMatchObject({ body: { actions: [{ type: 'sleep', sleep: { duration_ms: 50 } }] } });
  });

  test('--var values override the builder’s vars as they override a file’s', () => {
    const { plan } = scenario('v').vars({ who: 'Ada' }).goto('https://example.test/{{ who }}').compile({ vars: { who: 'Grace' } });
    expect(plan.steps.find((s) => s.kind === 'goto')?.operations[0]).toMatchObject({ url: 'https://example.test/Grace' });
  });
});

describe('step kinds', () => {
  /** Arguments for each kind's method; a kind the schema gains needs a sample here (and a method). */
  const SAMPLES: Record<string, unknown[]> = {
    goto: ['https://example.test'], go_back: [], go_forward: [{ wait_until: 'commit' }], reload: [{ wait_until: 'domcontentloaded' }], click: ['#go'], fill: ['#name', 'Ada'], press: ['Enter'], expect: [{ text: 'hi' }],
    hover: ['#a'], check: [{ label: 'ok' }], uncheck: ['#b'], select: [{ label: 'Colour' }, 'Blue'], type: ['#q', 'abc', { delay: 20 }],
    focus: ['#q'], scroll_into_view: ['#end'], drag: ['#a', { test_id: 'bin' }], set_input_files: ['#f', []],
    switch_page: [{ url: { contains: 'help' } }], close_page: [], dialog: ['accept'], route: [{ url: '**/api', abort: true }],
    save_storage_state: ['state.json'], unroute: ['all'], request: [{ url: 'https://example.test/api', expect: { status: 200 } }], wait_for_response: ['**/api'], expect_accessible: [{ impact: 'critical', exclude: ['.ad'], tags: ['wcag2a'] }], expect_screenshot: [{ name: 'home', mask: [{ test_id: 'clock' }], max_diff_pixels: 5 }], wait_for_download: [{ name: 'report.csv', expect: { contains: 'a' } }],
    screenshot: ['shot'], sleep: [10], computer: [(c: { key(k: string): unknown }) => c.key('Return')],
    clipboard: [{ write: 'x' }], exec: ['true'], spawn: ['sleep 1'], wait_process: [{ process: 'job' }],
    read_file: ['/tmp/a'], write_file: [{ path: '/tmp/a', content: 'x' }], upload: [[{ from: 'a', to: '/tmp/a' }]],
    wait_file: ['/tmp/a'], execute: ['return 1'], invoke: [{ app: 'titles', action: 'title', payload: { n: 1 }, timeout: 5000, expect: { json: { path: '$.t', contains: 'a' } } }], script: ['return 1'], marker: ['m'], function: ['call', () => 1],
    expect_soft: [{ text: 'hi' }], if: [{ exists: 'x' }, (s: StepsBuilder) => s.goto('a')], repeat: [2, (s: StepsBuilder) => s.goto('a')],
    for_each: [['a', 'b'], (s: StepsBuilder) => s.goto('{{ item }}')], retry: [2, (s: StepsBuilder) => s.goto('a')], include: ['other.yaml'],
  };

  test.each(STEP_KINDS)('the schema’s %s step has a builder method that writes it', (kind) => {
    const method = (STEP_METHODS as Record<string, string>)[kind];
    expect(method, `STEP_METHODS has no entry for '${kind}'`).toBeDefined();
    expect(SAMPLES[kind], `no sample arguments for '${kind}'`).toBeDefined();
    const b = scenario('kinds').replay();
    if (kind === 'wait_process') b.spawn({ command: 'sleep', save: 'job' });
    (b[method as keyof ScenarioBuilder] as (...args: unknown[]) => unknown)(...SAMPLES[kind]!);
    const def = b[SCENARIO_DEFINITION]();
    expect(Object.keys((def.data.steps as object[]).at(-1)!)).toContain(kind);
    expect(validateScenario(loadedFromDefinition(def, 'kinds.ts'))).toEqual([]);
  });

  test('the method table names no kind the schema lacks', () => {
    expect(Object.keys(STEP_METHODS).filter((k) => !STEP_KINDS.includes(k))).toEqual([]);
  });

  test('every top-level field of the schema has a builder method, and no method names a field it lacks', () => {
    const fields = Object.keys(scenarioSchema.properties as object);
    expect(Object.keys(SCENARIO_METHODS).sort()).toEqual([...fields].sort());
    for (const method of Object.values(SCENARIO_METHODS)) if (method) expect(typeof ScenarioBuilder.prototype[method]).toBe('function');
  });

  test('step(kind, value) writes any kind by its YAML name, as the typed method does', () => {
    expect(data(scenario('s').step('wait_file', '/tmp/x', { name: 'n' })).steps).toEqual(data(scenario('s').waitFile('/tmp/x', { name: 'n' })).steps);
  });

  test('options left undefined are left out, as YAML never writes them', () => {
    const name: string | undefined = undefined;
    const built = scenario('u').goto({ url: 'https://example.test', wait_until: undefined }, { name });
    expect(data(built).steps).toEqual([{ goto: { url: 'https://example.test' } }]);
    expect(() => built.compile()).not.toThrow();
  });

  test('fill takes a selector string or a locator with the value beside it', () => {
    expect(data(scenario('f').fill('#name', 'Ada').fill({ label: 'Age' }, 42)).steps).toEqual([
      { fill: { selector: '#name', value: 'Ada' } },
      { fill: { label: 'Age', value: 42 } },
    ]);
  });

  test('builders are added to in place, so loops and helpers can add steps', () => {
    const b = scenario('loop');
    for (const page of ['a', 'b', 'c']) b.goto(`https://example.test/${page}`);
    const login = (s: ScenarioBuilder) => s.fill('#user', 'ada').click('#login');
    b.use(login);
    expect(data(b).steps.map((s) => Object.keys(s)[0])).toEqual(['goto', 'goto', 'goto', 'fill', 'click']);
    expect(b.name).toBe('loop');
  });

  test('a step list built once is appended where it is used; hooks add to earlier ones', () => {
    const login = steps((s) => s.fill('#user', 'ada').click('#login'));
    const d = data(scenario('a').before((s) => s.goto('https://example.test')).before(login).append(login).sleep(1));
    expect(d.before).toEqual([{ goto: 'https://example.test' }, { fill: { selector: '#user', value: 'ada' } }, { click: '#login' }]);
    expect(d.steps.map((s) => Object.keys(s)[0])).toEqual(['fill', 'click', 'sleep']);
  });

  test('vars added by several calls are merged; tags and other fields keep the latest call', () => {
    const d = data(scenario('m').vars({ a: 1 }).vars({ b: 'two' }).tags('x').tags('y', 'z').goto('https://example.test'));
    expect(d.vars).toEqual({ a: 1, b: 'two' });
    expect(d.tags).toEqual(['y', 'z']);
  });
});

describe('function steps', () => {
  test('register their code under fn-N and write a function step naming it', () => {
    const first = () => 'one';
    const second = async () => ({ two: 2 });
    const def = scenario('f').fn('first', first).goto('https://example.test').fn('second', second, { save: 'result', timeout: '2s' })[SCENARIO_DEFINITION]();
    expect(def.data.steps).toEqual([
      { function: 'fn-1', name: 'first' },
      { goto: 'https://example.test' },
      { function: 'fn-2', name: 'second', save: 'result', timeout: '2s' },
    ]);
    expect(def.functions).toEqual({ 'fn-1': first, 'fn-2': second });
  });

  test('ids are numbered per definition, through nested step lists too', () => {
    const inner = () => 'inner';
    const def = scenario('n')
      .fn('outer', () => 'outer')
      .step('retry', { attempts: 2, steps: steps((s) => s.goto('https://example.test').fn('inner', inner)) })[SCENARIO_DEFINITION]();
    expect(def.data.steps).toEqual([
      { function: 'fn-1', name: 'outer' },
      { retry: { attempts: 2, steps: [{ goto: 'https://example.test' }, { function: 'fn-2', name: 'inner' }] } },
    ]);
    expect(def.functions['fn-2']).toBe(inner);
  });

  test('a function that is not one is refused at once', () => {
    expect(() => scenario('x').fn('nothing', 'return 1' as never)).toThrow("fn('nothing', ...) needs a function");
  });

  test('compile to a function operation with the table beside the plan', () => {
    const code = () => 'x';
    const { plan, functions } = scenario('f').goto('https://example.test').fn('call it', code, { save: 'out' }).compile();
    const step = plan.steps.find((s) => s.kind === 'function');
    expect(step?.name).toBe('call it');
    expect(step?.operations).toEqual([expect.objectContaining({ op: 'function', id: 'fn-1', save: 'out' })]);
    expect(functions).toEqual({ 'fn-1': code });
  });
});
