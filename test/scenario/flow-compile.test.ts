// Control flow compiled to plain-data plan blocks: what is known at compile time is decided, what only a
// run knows stays a template, and every problem is reported at its file:line:col.
import { describe, expect, test } from 'vitest';
import { ScenarioError, compileScenario, loadScenarioSource, validateScenario } from '../../src/scenario/index.js';
import type { Block, CompileOptions, Plan, PlanStep } from '../../src/scenario/index.js';

const FILE = 'scenarios/flow.yaml';

function compile(source: string, opts: CompileOptions = {}): Plan {
  const loaded = loadScenarioSource(FILE, source);
  expect(validateScenario(loaded)).toEqual([]);
  return compileScenario(loaded, { env: {}, ...opts });
}

function errors(source: string, opts: CompileOptions = {}): string[] {
  try {
    compile(source, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return (err as ScenarioError).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
  }
  throw new Error('expected a ScenarioError');
}

const main = (plan: Plan) => plan.steps.filter((s) => s.phase === 'main');
function block<T extends Block['type']>(step: PlanStep | undefined, type: T): Extract<Block, { type: T }> {
  expect(step?.block?.type).toBe(type);
  return step!.block as Extract<Block, { type: T }>;
}

describe('blocks in the plan', () => {
  test('if/then/else with a condition on a saved value, numbered depth-first', () => {
    const plan = compile(`name: t
steps:
  - exec: { command: ./login.sh, save: login }
  - if: { var: login.exit_code, equals: 0 }
    then:
      - goto: https://example.com/home
    else:
      - goto: https://example.com/login
      - sleep: 1ms
  - goto: https://example.com/end
`);
    const [exec, ifStep, end] = main(plan);
    expect(ifStep).toMatchObject({ kind: 'if', name: 'if login.exit_code equals 0', source: { file: FILE, line: 4, col: 5 }, timeout_ms: 0, operations: [] });
    const b = block(ifStep, 'if');
    expect(b.condition).toEqual({ var: 'login.exit_code', equals: 0 });
    // Setup is step 0 (create browser); the block comes before its steps, the next step after all of them.
    expect(b.then.map((s) => [s.index, s.name])).toEqual([[3, 'goto https://example.com/home']]);
    expect(b.else.map((s) => [s.index, s.name])).toEqual([[4, 'goto https://example.com/login'], [5, 'sleep 1ms']]);
    expect([exec!.index, ifStep!.index, end!.index]).toEqual([1, 2, 6]);
    expect(plan.steps.at(-1)!.index).toBe(7);
    // Plain data: JSON and back is the same plan.
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  test('repeat: a count from vars is a number now; one from a saved value stays a template', () => {
    const plan = compile(`name: t
vars: { n: 3 }
steps:
  - repeat: { times: "{{ n }}", as: i, steps: [{ goto: "https://example.com/{{ i }}" }] }
  - exec: { command: "true", save: out }
  - repeat: { times: "{{ out }}", steps: [{ sleep: 1ms }] }
`);
    const [first, , second] = main(plan);
    expect(first!.name).toBe('repeat 3 times as i');
    expect(block(first, 'repeat')).toMatchObject({ times: 3, as: 'i' });
    expect(block(first, 'repeat').steps[0]!.operations[0]).toMatchObject({ url: 'https://example.com/{{ i }}' });
    expect(block(second, 'repeat').times).toBe('{{ out }}');
    expect(block(second, 'repeat')).not.toHaveProperty('as');
  });

  test('for_each: list literals and list variables now, saved lists at run time; item fields inside', () => {
    const plan = compile(`name: t
vars:
  users: [{ name: Ada }, { name: Grace }]
  site: https://example.com
steps:
  - for_each: { items: ["{{ site }}/a", b], steps: [{ goto: "{{ item }}" }] }
  - for_each: { items: "{{ users }}", as: user, steps: [{ goto: "{{ site }}/{{ user.name }}" }] }
  - read_file: { path: /tmp/list.json, save: list }
  - for_each: { items: "{{ list.json.users }}", steps: [{ goto: "{{ item.url }}" }] }
`);
    const [literal, fromVar, , fromSaved] = main(plan);
    expect(block(literal, 'for_each')).toMatchObject({ items: ['https://example.com/a', 'b'], as: 'item' });
    expect(block(fromVar, 'for_each')).toMatchObject({ items: [{ name: 'Ada' }, { name: 'Grace' }], as: 'user' });
    expect(fromVar!.name).toBe('for each user in [{"name":"Ada"},{"name":"Grace"}]');
    expect(block(fromVar, 'for_each').steps[0]!.operations[0]).toMatchObject({ url: 'https://example.com/{{ user.name }}' });
    expect(block(fromSaved, 'for_each').items).toBe('{{ list.json.users }}');
    expect(fromSaved!.name).toBe('for each item in list.json.users');
  });

  test('for_each items from a --var: a JSON list, else one item per line', () => {
    const source = 'name: t\nvars: { list: x }\nsteps:\n  - for_each: { items: "{{ list }}", steps: [{ goto: "{{ item }}" }] }\n';
    expect(block(main(compile(source, { vars: { list: '["a","b"]' } }))[0], 'for_each').items).toEqual(['a', 'b']);
    expect(block(main(compile(source, { vars: { list: 'a\nb\n' } }))[0], 'for_each').items).toEqual(['a', 'b']);
  });

  test('retry block and per-step options', () => {
    const plan = compile(`name: t
steps:
  - retry:
      attempts: 3
      delay: 500ms
      steps:
        - name: flaky
          goto: https://example.com
          retries: 2
          retry_delay: 1s
        - expect_soft: { title: Example, timeout: 2s }
          continue_on_error: true
    timeout: 30s
`);
    const retry = main(plan)[0]!;
    expect(retry).toMatchObject({ kind: 'retry', name: 'retry up to 3 attempts', timeout_ms: 30_000 });
    const b = block(retry, 'retry');
    expect(b).toMatchObject({ attempts: 3, delay_ms: 500 });
    expect(b.steps[0]).toMatchObject({ name: 'flaky', retries: 2, retry_delay_ms: 1000 });
    expect(b.steps[0]).not.toHaveProperty('soft');
    expect(b.steps[1]).toMatchObject({ kind: 'expect_soft', name: 'expect_soft title "Example"', soft: true, continue_on_error: true, timeout_ms: 2000 });
    expect(b.steps[1]!.operations).toEqual([{ op: 'page', action: 'expect', title: { equals: 'Example' } }]);
  });

  test("retry with toPass's timeout and intervals: attempts optional, default intervals, delay or intervals", () => {
    const plan = compile(`name: t
steps:
  - retry: { timeout: 10s, steps: [{ goto: https://example.com }] }
  - retry: { timeout: 2s, attempts: 5, intervals: [50ms, 1s], steps: [{ goto: https://example.com }] }
  - retry: { timeout: 2s, delay: 300ms, steps: [{ goto: https://example.com }] }
`);
    const [a, b, c] = main(plan).filter((s) => s.kind === 'retry');
    expect(a!.name).toBe('retry for 10000 ms');
    expect(block(a, 'retry')).toMatchObject({ timeout_ms: 10_000, delay_ms: 0, intervals_ms: [100, 250, 500, 1000] });
    expect(block(a, 'retry')).not.toHaveProperty('attempts');
    expect(b!.name).toBe('retry up to 5 attempts within 2000 ms');
    expect(block(b, 'retry')).toMatchObject({ attempts: 5, timeout_ms: 2000, intervals_ms: [50, 1000] });
    expect(block(c, 'retry')).toMatchObject({ timeout_ms: 2000, delay_ms: 300 });
    expect(block(c, 'retry')).not.toHaveProperty('intervals_ms');
  });

  test('a retry with neither attempts nor timeout, or with both delay and intervals, is an error at the field', () => {
    const problems = validateScenario(loadScenarioSource(FILE, 'name: t\nsteps:\n  - retry: { delay: 1s, steps: [{ goto: https://example.com }] }\n'));
    expect(problems.map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual(['3:12 steps[0].retry: expected at least one of attempts, timeout']);
    expect(errors('name: t\nsteps:\n  - retry: { timeout: 1s, delay: 1s, intervals: [1s], steps: [{ goto: https://example.com }] }\n')).toEqual([
      "3:49 use 'delay' (one pause) or 'intervals' (a pause per attempt), not both",
    ]);
  });

  test('before and after hooks are main steps around the steps, marked with their hook', () => {
    const plan = compile(`name: t
before:
  - goto: https://example.com/login
steps:
  - goto: https://example.com/work
after:
  - screenshot: last
`);
    expect(main(plan).map((s) => [s.hook, s.name])).toEqual([
      ['before', 'goto https://example.com/login'],
      [undefined, 'goto https://example.com/work'],
      ['after', 'screenshot last'],
    ]);
    expect(main(plan)[2]!.operations[0]).toMatchObject({ file: '03-last.png' });
  });

  test('screenshots inside loops keep their run-time name parts', () => {
    const plan = compile('name: t\nsteps:\n  - for_each: { items: [a], steps: [{ screenshot: "Shot {{ item }}!" }] }\n');
    expect(block(main(plan)[0], 'for_each').steps[0]!.operations[0]).toMatchObject({ file: '01-shot-{{ item }}.png' });
  });

  test('screenshot_on_failure: false is carried by the plan; the default leaves it out', () => {
    expect(compile('name: t\nscreenshot_on_failure: false\nsteps:\n  - goto: about:blank\n').screenshot_on_failure).toBe(false);
    expect(compile('name: t\nsteps:\n  - goto: about:blank\n')).not.toHaveProperty('screenshot_on_failure');
  });
});

describe('conditions', () => {
  test('a variable known now keeps its value; combinators, step outcomes and exists', () => {
    const plan = compile(`name: t
vars: { mode: fast }
steps:
  - name: login
    exec: { command: "true", save: out }
    continue_on_error: true
  - if:
      all:
        - { var: mode, one_of: [fast, quick] }
        - any: [{ failed: login }, { not: { passed: login } }]
        - { exists: out }
        - { exists: env.NOT_SET_ANYWHERE }
        - { exists: mode }
        - { var: "{{ out.stdout }}", matches: "^ok" }
    then: [{ sleep: 1ms }]
`);
    const ifStep = main(plan)[1]!;
    expect(block(ifStep, 'if').condition).toEqual({
      all: [
        { var: 'mode', value: 'fast', one_of: ['fast', 'quick'] },
        { any: [{ failed: 'login' }, { not: { passed: 'login' } }] },
        { exists: 'out' },
        { exists: 'env.NOT_SET_ANYWHERE', known: false },
        { exists: 'mode', known: true },
        { var: 'out.stdout', matches: '^ok' },
      ],
    });
    expect(ifStep.name).toBe(
      'if mode ("fast") one of "fast", "quick" and (step "login" failed or not (step "login" passed)) and out exists and env.NOT_SET_ANYWHERE exists and mode exists and out.stdout matches /^ok/',
    );
  });

  test('conditions name earlier steps and known variables; problems at their positions', () => {
    expect(errors(`name: t
steps:
  - if: { failed: later }
    then:
      - name: inside
        sleep: 1ms
  - if: { passed: inside }
    then: [{ sleep: 1ms }]
  - name: later
    sleep: 1ms
  - if: { var: nobody, equals: 1 }
    then: [{ sleep: 1ms }]
  - if: { var: later, matches: "([" }
    then: [{ sleep: 1ms }]
`)).toEqual([
      "3:19 no step before this one is named 'later'; give the step 'name: later'",
      "11:16 unknown variable 'nobody'",
      "13:16 unknown variable 'later'",
      '13:32 invalid regular expression: Invalid regular expression: /([/: Unterminated character class',
    ]);
  });
});

describe('loop variables and saved values across blocks', () => {
  test('item exists only inside its loop; as must not clash; saves count in execution order', () => {
    expect(errors(`name: t
vars: { env_name: x }
steps:
  - for_each: { items: [a], steps: [{ goto: "{{ item }}" }] }
  - goto: "{{ item }}"
  - repeat: { times: 1, as: env_name, steps: [{ sleep: 1ms }] }
  - for_each:
      items: [a]
      steps:
        - goto: "{{ got }}"
        - exec: { command: "true", save: got }
  - goto: "{{ got.stdout }}"
  - for_each: { items: [a], as: got, steps: [{ sleep: 1ms }] }
`)).toEqual([
      "5:11 unknown variable 'item'",
      "6:29 'env_name' is already a variable in vars; choose another name with 'as'",
      "10:17 'got' is used before it is saved: steps[3].for_each.steps[1] saves it, so only later steps can use it",
      "13:33 'got' is also saved by a step; choose another name with 'as'",
    ]);
  });

  test('repeat times that is not a number', () => {
    expect(errors('name: t\nvars: { n: lots }\nsteps:\n  - repeat: { times: "{{ n }}", steps: [{ sleep: 1ms }] }\n')).toEqual([
      '4:22 \'times\' must be a whole number, got "lots"',
    ]);
  });
});

describe('function steps', () => {
  const source = 'name: t\nsteps:\n  - function: fn-1\n    save: result\n    name: compute\n  - goto: "https://example.com/{{ result.id }}"\n';

  test('exist only in TypeScript scenarios', () => {
    expect(errors(source)).toEqual(['3:15 function steps exist only in TypeScript scenarios']);
  });

  test('compile to a function operation when the table has the id; its result is a saved value', () => {
    const plan = compile(source, { functions: ['fn-1'] });
    expect(main(plan)[0]).toMatchObject({ kind: 'function', name: 'compute', operations: [{ op: 'function', id: 'fn-1', save: 'result' }] });
    expect(main(plan)[1]!.operations[0]).toMatchObject({ url: 'https://example.com/{{ result.id }}' });
    // The builder hands over its table itself.
    expect(main(compile(source, { functions: { 'fn-1': () => 1 } }))[0]!.kind).toBe('function');
  });

  test('an id the table does not have', () => {
    expect(errors(source, { functions: new Set(['fn-2']) })).toEqual(["3:15 unknown function 'fn-1'; the scenario's functions are fn-2"]);
  });
});

describe('soft expectations of host steps', () => {
  test('checked after the hard ones; a soft exit code replaces the default exit 0', () => {
    const plan = compile(`name: t
steps:
  - exec: { command: ./check.sh, expect: { stdout: { contains: ok } }, expect_soft: { exit_code: 1, stderr: "" } }
  - exec: { command: ./check.sh, expect_soft: { stdout: done } }
  - read_file: { path: /tmp/a.json, expect_soft: { json: { path: $.n, equals: 1 } } }
  - clipboard: { read: true, expect_soft: { contains: x } }
`);
    const [a, b, c, d] = main(plan).map((s) => s.operations[0]);
    expect(a).toMatchObject({
      expect: [{ subject: 'stdout', contains: 'ok' }],
      expect_soft: [{ subject: 'exit_code', equals: 1 }, { subject: 'stderr', equals: '' }],
    });
    expect(b).toMatchObject({ expect: [{ subject: 'exit_code', equals: 0 }], expect_soft: [{ subject: 'stdout', equals: 'done' }] });
    expect(c).toMatchObject({ expect_soft: [{ subject: 'json', json_path: '$.n', equals: 1 }] });
    expect(c).not.toHaveProperty('expect');
    expect(d).toMatchObject({ expect_soft: [{ subject: 'text', contains: 'x' }] });
  });
});

describe('web_server', () => {
  test('starts before the browser, stops after it, and gives {{ web_server.url }}', () => {
    const plan = compile(`name: t
web_server:
  command: npm run dev
  url: http://127.0.0.1:4173/health
  timeout: 20s
  cwd: app
  env: { PORT: 4173 }
steps:
  - goto: "{{ web_server.url }}/page"
`);
    expect(plan.steps.map((s) => `${s.phase} ${s.kind}`)).toEqual([
      'setup web_server', 'setup browser', 'main goto', 'teardown release', 'teardown web_server_stop',
    ]);
    expect(plan.steps[0]).toMatchObject({
      name: 'start web server: npm run dev', source: { line: 2, col: 1 }, timeout_ms: 25_000,
      operations: [{ op: 'web_server', save: 'web_server', command: 'npm run dev', url: 'http://127.0.0.1:4173/health', timeout_ms: 20_000, cwd: expect.stringMatching(/\/scenarios\/app$/), env: { PORT: '4173' } }],
    });
    expect(plan.steps[2]!.operations[0]).toMatchObject({ url: '{{ web_server.url }}/page' });
  });

  test('its url only with a web_server, and not inside it', () => {
    expect(errors('name: t\nsteps:\n  - goto: "{{ web_server.url }}"\n')).toEqual([
      "3:11 'web_server.url' is only available when the scenario has 'web_server'",
    ]);
    expect(errors('name: t\nweb_server: { command: "x {{ web_server.url }}", url: http://127.0.0.1:1 }\nsteps:\n  - goto: about:blank\n')).toEqual([
      "2:24 'web_server.url' is not available in 'web_server' itself",
    ]);
  });
});

describe('templates in every string field', () => {
  test('durations, users, modes, hashes, patterns and paths take variables, inside blocks too', () => {
    const plan = compile(`name: t
vars: { wait: 2s, short: 150ms, user: kernel, mode: "0600", hash: ${'A'.repeat(64)}, n: 2 }
timeout: "{{ wait }}"
steps:
  - repeat:
      times: "{{ n }}"
      as: i
      steps:
        - sleep: "{{ short }}"
          timeout: "{{ wait }}"
          retries: 1
          retry_delay: "{{ short }}"
        - exec: { command: id, as_user: "{{ user }}", timeout: "{{ wait }}", expect: { stdout: { matches: "^{{ i }}$" } } }
        - write_file: { path: "/tmp/{{ i }}.txt", content: "{{ i }}", mode: "{{ mode }}" }
        - read_file: { path: "/tmp/{{ i }}.json", expect: { sha256: "{{ hash }}", json: { path: "$.items[{{ i }}]", equals: 1 } } }
        - expect: { url: { matches: "/{{ i }}$" }, timeout: "{{ short }}" }
  - retry: { attempts: 2, delay: "{{ short }}", steps: [{ sleep: 1ms }] }
`);
    const repeat = block(main(plan)[0], 'repeat');
    const [sleep, exec, write, read, expectUrl] = repeat.steps;
    expect(sleep).toMatchObject({ timeout_ms: 2000, retry_delay_ms: 150, operations: [{ action: 'sleep', ms: 150 }] });
    expect(exec).toMatchObject({ operations: [{ body: { as_user: 'kernel', timeout_sec: 2 }, expect: [{ subject: 'exit_code' }, { subject: 'stdout', matches: '^{{ i }}$' }] }] });
    expect(write!.operations[0]).toMatchObject({ query: { path: '/tmp/{{ i }}.txt', mode: '0600' }, raw_body: { text: '{{ i }}' } });
    expect(read!.operations[0]).toMatchObject({ expect: [{ subject: 'sha256', equals: 'a'.repeat(64) }, { json_path: '$.items[{{ i }}]' }] });
    expect(expectUrl).toMatchObject({ timeout_ms: 150, operations: [{ url: { matches: '/{{ i }}$' } }] });
    expect(block(main(plan)[1], 'retry').delay_ms).toBe(150);
    expect(plan.steps.find((s) => s.kind === 'release')).toBeDefined();
  });

  test('a duration that is not one once substituted, or only known at run time, is reported where it is written', () => {
    expect(errors(`name: t
vars: { wait: soon }
steps:
  - sleep: "{{ wait }}"
  - exec: { command: "true", save: out }
  - goto: about:blank
    timeout: "{{ out }}"
`)).toEqual([
      '4:12 expected a duration such as "500ms", "2s" or "1m", got "soon"',
      '7:14 a duration must be known when the scenario compiles, but "{{ out }}" is only known when it runs',
    ]);
  });
});
