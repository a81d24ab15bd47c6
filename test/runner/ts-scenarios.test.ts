// TypeScript scenarios end to end: the real `bcs` runs and plans `.scenario.ts` files against the real
// service and Chromium, and function steps get the live page, context, browser, session and variables.
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/api/index.js';
import { scenario, type FunctionTable, type Plan } from '../../src/scenario/index.js';
import { executePlan } from '../../runner/exec/execute.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({});
let svc: TestService;
beforeAll(async () => {
  // A user's project: this package installed in its node_modules (a symlink, which inlineFiles does not write).
  await mkdir(project.path('node_modules'));
  await symlink(ROOT, project.path('node_modules/browser-scenarios'), 'dir');
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

async function write(name: string, text: string): Promise<string> {
  await project.write({ [name]: text });
  return project.path(name);
}

const PAGE = 'data:text/html,<title>Typed</title><input aria-label=Note><p id=out></p><script>document.querySelector("input").addEventListener("keydown",e=>{if(e.key==="Enter")document.getElementById("out").textContent="Saved: "+e.target.value})</script>';

describe('bcs with a TypeScript scenario', () => {
  it('runs it: OS-level input from the computer callback, results at its TypeScript lines', async () => {
    const file = await write(
      'typed.scenario.ts',
      `import { scenario } from 'browser-scenarios';

export default scenario('typed')
  .browser({ headless: true, viewport: { width: 800, height: 600 } })
  .goto(${JSON.stringify(PAGE)})
  .click({ label: 'Note' })
  .computer((c) => c.type('from TypeScript').key('Return'))
  .expect({ text: 'Saved: from TypeScript' });
`,
    );
    const res = await runCli(['run', file, '--json'], remote());
    expect(res.code, res.stderr + res.stdout).toBe(0);
    const [run] = JSON.parse(res.stdout).scenarios;
    expect(run).toMatchObject({ name: 'typed', file, status: 'passed' });
    const main = run.steps.filter((s: { phase: string }) => s.phase === 'main');
    expect(main.map((s: { kind: string; source: { line: number; col: number } }) => `${s.kind} ${s.source.line}:${s.source.col}`)).toEqual([
      'goto 5:4', 'click 6:4', 'computer 7:4', 'expect 8:4',
    ]);
  });

  it('reports a function step that throws at its TypeScript line, the step at its fn() call', async () => {
    const file = await write(
      'throws.scenario.ts',
      `import { scenario } from 'browser-scenarios';

export default scenario('throws')
  .goto('data:text/html,<title>T</title>')
  .fn('check the title', async ({ page }) => {
    const title: string = await page.title();
    if (title !== 'U') throw new Error(\`title is \${title}\`);
  })
  .sleep(1);
`,
    );
    const res = await runCli(['run', file, '--json'], remote());
    expect(res.code, res.stderr).toBe(1);
    const failed = JSON.parse(res.stdout).scenarios[0].steps.find((s: { status: string }) => s.status === 'failed');
    expect(failed.error).toEqual({ kind: 'step', message: `title is T (at ${file}:7:30)`, location: `${file}:5:4` });
  });

  it('refuses an invalid one before any browser starts: exit 2 with file:line:col', async () => {
    const file = await write('invalid.scenario.ts', `import { scenario } from 'browser-scenarios';\n\nexport default scenario('invalid')\n  .goto('data:text/html,x')\n  .sleep('soon' as never);\n`);
    const res = await runCli(['run', file], remote());
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}:5:4 steps[1].sleep: expected a duration such as "500ms", "2s" or "1m"`);
  });

  it('plans it: the same plan as the YAML, with the TypeScript lines in the listing', async () => {
    const ts = await write('planned.scenario.ts', `import { scenario } from 'browser-scenarios';\n\nexport default scenario('planned')\n  .goto('https://example.test')\n  .exec({ command: 'echo', args: ['hi'], save: 'out' })\n  .expect({ title: '{{ out }}' });\n`);
    const yaml = await write('planned.yaml', `name: planned\nsteps:\n  - goto: https://example.test\n  - exec: { command: echo, args: [hi], save: out }\n  - expect: { title: "{{ out }}" }\n`);
    const [tsJson, yamlJson, listing] = await Promise.all([
      runCli(['plan', ts, '--json']),
      runCli(['plan', yaml, '--json']),
      runCli(['plan', ts]),
    ]);
    expect(tsJson.code, tsJson.stderr).toBe(0);
    const strip = (text: string) => JSON.stringify({ ...JSON.parse(text, (k, v) => (k === 'source' ? undefined : v)), scenario: undefined });
    expect(strip(tsJson.stdout)).toBe(strip(yamlJson.stdout));
    expect(listing.stdout).toContain(`planned  ${ts}`);
    expect(listing.stdout).toMatch(/exec echo hi {2}\(line 5:4, /);
  });
});

describe('function steps', () => {
  const THIS = relative(process.cwd(), fileURLToPath(import.meta.url));
  const client = () => new CloudClient({ baseUrl: svc.baseUrl, apiKey: svc.apiKey });

  /**
   * A compiled builder whose `sleep` placeholders become the given steps: the runner's side of function
   * steps, independent of how the compiler writes them.
   */
  function planWith(stand_ins: Record<string, Partial<Plan['steps'][number]>>): Plan {
    const b = scenario('functions').browser({ headless: true }).goto('data:text/html,<title>Functions</title><h1>Hi</h1>');
    for (const name of Object.keys(stand_ins)) b.sleep(0, { name });
    const { plan } = b.compile({ env: {} });
    return { ...plan, steps: plan.steps.map((s) => ({ ...s, ...stand_ins[s.name] })) };
  }

  async function run(plan: Plan, functions: FunctionTable) {
    const outputDir = project.path('fn-out');
    return executePlan(plan, { client: client(), outputDir, reporter: {}, signal: new AbortController().signal, functions });
  }

  it('get the page, context, browser, session, variables and a signal; what they return is saved and reported', async () => {
    const seen: Record<string, unknown> = {};
    const functions: FunctionTable = {
      'fn-1': async ({ page, context, browser, session, vars, signal }) => {
        Object.assign(seen, {
          sameContext: context === page.context(),
          connected: browser.isConnected(),
          session: session.session_id,
          visitor: vars.visitor,
          scopeSession: (vars.session as { session_id: string }).session_id,
          aborted: signal.aborted,
        });
        return { title: await page.title(), heading: await page.locator('h1').textContent() };
      },
    };
    const plan = planWith({
      call: { kind: 'function', operations: [{ op: 'function', id: 'fn-1', save: 'found', vars: { visitor: 'Ada' } } as never] },
      use: { kind: 'expect', operations: [{ op: 'page', action: 'expect', title: { equals: '{{ found.title }}' } }] },
    });
    const result = await run(plan, functions);
    expect(result.status, JSON.stringify(result.steps)).toBe('passed');
    expect(seen).toEqual({ sameContext: true, connected: true, session: result.session_id, visitor: 'Ada', scopeSession: result.session_id, aborted: false });
    expect(result.steps.find((s) => s.name === 'call')?.output).toEqual({ title: 'Functions', heading: 'Hi' });
  });

  it('that throw fail their step, saying where in the function', async () => {
    const functions: FunctionTable = {
      'fn-1': async ({ page }) => {
        await page.title();
        throw new Error('the page is wrong'); // throws-here
      },
    };
    const result = await run(planWith({ call: { kind: 'function', operations: [{ op: 'function', id: 'fn-1' }] } }), functions);
    const failed = result.steps.find((s) => s.name === 'call');
    const lines = (await readFile(fileURLToPath(import.meta.url), 'utf8')).split('\n');
    const line = lines.findIndex((l) => l.endsWith('// throws-here'));
    expect(failed?.error).toMatchObject({
      kind: 'step',
      message: `the page is wrong (at ${THIS}:${line + 1}:${lines[line]!.indexOf('new Error') + 1})`,
    });
    expect(result.steps.at(-1)).toMatchObject({ kind: 'release', status: 'passed' });
  });

  it('see their signal abort when the step times out', async () => {
    let aborted = false;
    const functions: FunctionTable = {
      'fn-1': ({ signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => { aborted = true; reject(signal.reason); })),
    };
    const plan = planWith({ wait: { kind: 'function', timeout_ms: 200, operations: [{ op: 'function', id: 'fn-1' }] } });
    const result = await run(plan, functions);
    expect(result.steps.find((s) => s.name === 'wait')?.error?.kind).toBe('timeout');
    await eventually(() => (aborted ? true : undefined), 30_000);
  });

  it('naming a function the table lacks is an infrastructure error', async () => {
    const result = await run(planWith({ call: { kind: 'function', operations: [{ op: 'function', id: 'fn-9' }] } }), {});
    expect(result.status).toBe('error');
    expect(result.steps.find((s) => s.name === 'call')?.error).toMatchObject({
      kind: 'infrastructure',
      message: "function step 'fn-9' is not in the scenario's function table",
    });
  });
});

describe('the examples', () => {
  it('runs examples/quickstart.scenario.ts with its function step', async () => {
    const res = await runCli(['run', 'scenarios/examples/quickstart.scenario.ts', '--json'], remote());
    expect(res.code, res.stderr + res.stdout).toBe(0);
    const [run] = JSON.parse(res.stdout).scenarios;
    const fn = run.steps.find((s: { kind: string }) => s.kind === 'function');
    expect(fn).toMatchObject({ name: 'read the greeting with Playwright', status: 'passed', output: 'Hello, Grace!' });
    expect(fn.source.file).toBe('scenarios/examples/quickstart.scenario.ts');
  });

  it('plans it, the function step included', async () => {
    const res = await runCli(['plan', 'scenarios/examples/quickstart.scenario.ts']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('call function fn-1 with the page, context, browser, session and variables -> {{ greeting }}');
  });
});

describe('a file of several scenarios', () => {
  it('runs each of examples/greetings.scenario.ts', async () => {
    const res = await runCli(['run', 'scenarios/examples/greetings.scenario.ts', '--json'], remote());
    expect(res.code, res.stderr + res.stdout).toBe(0);
    const { scenarios } = JSON.parse(res.stdout);
    expect(scenarios.map((s: { name: string; status: string }) => `${s.name} ${s.status}`)).toEqual([
      'greet Ada passed', 'greet Grace passed', 'greet Katherine passed',
    ]);
  });
});
