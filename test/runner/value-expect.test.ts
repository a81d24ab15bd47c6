// `expect: { var }` on values a real run saved (a script's result, a response's JSON, an exec's output),
// and a retry block with toPass's timeout and intervals polling an API until a value is reached.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StepResult } from '../../runner/reporters/results.js';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { appSuite } from '../helpers/app-suite.js';
import { plan } from '../helpers/compile-steps.js';
import { formatPlan } from '../../runner/cli/plan-format.js';

const project = await inlineFiles({});
const counters = new Map<string, number>();
const web = appSuite((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end('<title>home</title><ul><li>milk</li><li>bread</li></ul>');
  // Each scenario counts on its own key: the n-th request answers n.
  if (url.pathname === '/api/count') {
    const key = url.searchParams.get('key') ?? '';
    const n = (counters.get(key) ?? 0) + 1;
    counters.set(key, n);
    return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: n, tags: ['a', 'b'] }));
  }
  res.writeHead(404).end('no');
});

async function run(name: string, steps: string) {
  await project.write({ [`${name}.yaml`]: `name: ${name}\nbase_url: ${web.url()}\nsteps:\n${steps}` });
  const file = project.path(`${name}.yaml`);
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out], web.env());
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  return { res, file, main: (results.scenarios[0].steps as StepResult[]).filter((s) => s.phase === 'main') };
}

describe('expect on saved values', { timeout: 120_000 }, () => {
  it("checks a script's result, a response's JSON and an exec's output with Playwright's generic matchers", async () => {
    const { res } = await run('values', `  - goto: /
  - script: { code: "return await page.evaluate(() => ({ items: [...document.querySelectorAll('li')].map((li) => ({ name: li.textContent })), empty: '' }))", save: r }
  - expect: { var: "r.items[0].name", equals: milk, matches: "^m", length: 4, truthy: true }
  - expect: { var: r.items, length: 2, contains: { name: bread } }
  - expect: { var: r.items, equals: [{ name: milk }, { name: bread }] }
  - expect: { var: r.empty, falsy: true, defined: true }
  - expect: { var: r.nothing, defined: false }
  - expect: { var: r.items, not: true, contains: { name: eggs } }
  - request: { url: "/api/count?key=values", save: res }
  - expect: { var: res.json.count, greater_than: 0, greater_than_or_equal: 1, less_than: 2, less_than_or_equal: 1 }
  - expect: { var: res.json.tags, contains: b }
  - exec: { command: echo, args: [hello world], save: out }
  - expect: { var: out.stdout, contains: world, matches: "^hello" }
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });

  it('a failure says what was expected and received, as Playwright does, at the step', async () => {
    const { res, main, file } = await run('value-fails', `  - request: { url: "/api/count?key=fails", save: res }
  - expect_soft: { var: res.json.count, greater_than: 3 }
  - expect_soft: { var: res.json.tags, length: 3 }
  - expect: { var: res.json.tags, not: true, contains: a }
`);
    expect(res.code).toBe(1);
    expect(main[1]!.error).toEqual({ kind: 'assertion', location: `${file}:5:5`, message: 'expected res.json.count greater than 3, got 1\n\nExpected: > 3\nReceived: 1' });
    expect(main[2]!.error!.message).toBe('expected res.json.tags length 3, got ["a","b"]\n\nExpected length: 3\nReceived length: 2');
    expect(main[3]!.error!.message).toBe('expected res.json.tags not contains "a", got ["a","b"]\n\nExpected value: not "a"\nReceived array: ["a","b"]');
  });

  it("polls with a retry block's timeout and intervals (expect.poll, toPass) until the value is reached", async () => {
    const { res, main } = await run('poll', `  - retry:
      timeout: 60s
      intervals: [50ms]
      steps:
        - request: { url: "/api/count?key=poll", save: c }
        - expect: { var: c.json.count, greater_than_or_equal: 3 }
  - expect: { var: c.json.count, equals: 3 }
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(main[0]).toMatchObject({ name: 'retry for 60000 ms', status: 'passed', attempts: 3 });
  });

  it('gives up once its timeout has passed, with the last failure', async () => {
    const { res, main } = await run('poll-gives-up', `  - retry:
      timeout: 1s
      intervals: [100ms, 200ms]
      steps:
        - request: { url: "/api/count?key=never", save: c }
        - expect: { var: c.json.count, less_than: 0 }
`);
    expect(res.code).toBe(1);
    expect(main[0]!.status).toBe('failed');
    expect(main[0]!.note).toMatch(/^gave up after \d+ attempts?: its timeout of 1000 ms passed$/);
    expect(main[0]!.error!.message).toMatch(/^step 'expect c.json.count less than 0' failed: expected c.json.count less than 0, got \d+/);
  });
});

describe('bcs plan', () => {
  it("says a retry's timeout and intervals, and that a value expect checks once", () => {
    const text = formatPlan(plan(`  - retry:
      timeout: 5s
      steps:
        - script: { code: "return 1", save: n }
        - expect: { var: n, greater_than: 0 }
`));
    expect(text).toContain('run the steps again from the first until all pass, no new attempt after 5000 ms, 100, 250, 500, 1000 ms apart (the last repeating)');
    expect(text).toContain('expect n greater than 0 (once)');
  });
});
