// The Vitest fixtures as a user meets them: the example project (test/fixtures-example) run by the real
// vitest CLI, on the embedded service and on a remote one, and typechecked through the package's exports.
// Below that, what the example cannot reach: an exhausted pool, odd scenario sources, the unpack lock.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CloudClient } from '../src/api/client.js';
import { ScenarioError } from '../src/scenario/index.js';
import { obtainBrowser } from '../fixtures/browser.js';
import { withLock } from '../fixtures/chromium.js';
import { compileSource, testOutputDir } from '../fixtures/scenario.js';
import { openTarget } from '../fixtures/target.js';
import { ROOT } from './helpers/cli.js';
import { emitDeclarations } from './helpers/declarations.js';
import { eventually, startTestService, type TestService } from './helpers/service.js';

const EXAMPLE = join(ROOT, 'test/fixtures-example');
const SPAWN_TIMEOUT_MS = 300_000;

interface TestOutcome {
  fullName: string;
  status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo';
  failureMessages: string[];
  meta: { bcs?: { browser?: { session_id: string; source: string; pool?: string; wait_ms: number } } };
}

interface ExampleRun {
  code: number | null;
  stdout: string;
  stderr: string;
  tests: Map<string, TestOutcome>;
}

/** `vitest run` in the example folder, as its owner would type it, with the JSON report read back. */
async function runExample(files: string[], env: Record<string, string> = {}): Promise<ExampleRun> {
  const dir = await mkdtemp(join(tmpdir(), 'bcs-fixtures-report-'));
  const report = join(dir, 'report.json');
  // The child is a fresh Vitest, not a worker of this one: none of this run's VITEST_* variables.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...files],
    {
      cwd: EXAMPLE,
      env: { ...inherited, NO_COLOR: '1', FORCE_COLOR: '0', BCS_BASE_URL: '', BCS_API_KEY: '', BCS_EXAMPLE_FAILURES: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const parsed = JSON.parse(await readFile(report, 'utf8')) as { testResults: { assertionResults: TestOutcome[] }[] };
    const tests = new Map(parsed.testResults.flatMap((f) => f.assertionResults).map((t) => [t.fullName, t]));
    return { code, stdout, stderr, tests };
  } catch (err) {
    throw new Error(`no JSON report (exit ${code}): ${(err as Error).message}\n${stdout}\n${stderr}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function statuses(run: ExampleRun): Record<string, string> {
  return Object.fromEntries([...run.tests].map(([name, t]) => [name, t.status]));
}

function tsc(project: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

afterAll(async () => {
  await rm(join(EXAMPLE, 'bcs-results'), { recursive: true, force: true });
});

describe('the package ships the fixtures', () => {
  test('package.json exports ./fixtures, and vitest is an optional peer', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    // No `types` condition: the declarations sit beside the bundle (dist/fixtures/index.d.ts).
    expect(pkg.exports['./fixtures']).toBe('./dist/fixtures/index.js');
    expect(pkg.peerDependencies?.vitest).toMatch(/^\^?>?=?4/);
    expect(pkg.peerDependenciesMeta?.vitest).toEqual({ optional: true });
    // Built by the global setup (runner/build.mjs).
    expect((await stat(join(ROOT, 'dist/fixtures/index.js'))).isFile()).toBe(true);
  });
});

describe('the example project, run by the vitest CLI', () => {
  test('passes on the embedded service: cloud, browser, page, a pool lease and runScenario', { timeout: SPAWN_TIMEOUT_MS }, async () => {
    const run = await runExample([]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(statuses(run)).toEqual({
      'page drives the browser session over CDP': 'passed',
      'the previous test deleted its browser': 'passed',
      'records how the browser was obtained in task.meta': 'passed',
      'with browserOptions the browser is created with them': 'passed',
      'a project’s own fixture builds on page': 'passed',
      'leasing from a pool the browser comes from the pool': 'passed',
      'leasing from a pool a passing test gives it back for reuse, reset': 'passed',
      'leasing from a pool a failing test holding a lease': 'skipped',
      'leasing from a pool the failed test’s browser was replaced, not reused': 'skipped',
      'runs a scenario file and returns its step results': 'passed',
      'vars override the scenario’s own': 'passed',
      'runs a TypeScript scenario built in the test, function steps included': 'passed',
      'a failing scenario fails the test with its step and location': 'skipped',
    });
    // The lease and its reuse, as the JSON reporter recorded them from task.meta.
    const leased = run.tests.get('leasing from a pool the browser comes from the pool')!.meta.bcs?.browser;
    const reused = run.tests.get('leasing from a pool a passing test gives it back for reuse, reset')!.meta.bcs?.browser;
    expect(leased).toMatchObject({ source: 'pool', pool: 'fixtures-example' });
    expect(reused?.session_id).toBe(leased?.session_id);
    expect(run.tests.get('page drives the browser session over CDP')!.meta.bcs?.browser?.source).toBe('create');

    // runScenario kept each test's artifacts in a folder of its own, with the result beside them.
    const testDir = join(EXAMPLE, 'bcs-results/vitest/scenario-spec/runs-a-scenario-file-and-returns-its-step-results/counter');
    const result = JSON.parse(await readFile(join(testDir, 'result.json'), 'utf8'));
    expect(result).toMatchObject({ name: 'counter', status: 'passed' });
    expect((await stat(join(testDir, '07-counted.png'))).size).toBeGreaterThan(1000);
  });

  test('reports deliberate failures: the failed lease is replaced, the failed scenario names its step', { timeout: SPAWN_TIMEOUT_MS }, async () => {
    // Only the deliberate failures and the test after the failed lease (its name says `failed`): the rest
    // of both files is what the run above proved, and ran it again only to be skipped here.
    const run = await runExample(['pool.spec.ts', 'scenario.spec.ts', '--testNamePattern=fail'], { BCS_EXAMPLE_FAILURES: '1' });
    expect(run.code).toBe(1);
    expect(Object.entries(statuses(run)).filter(([, status]) => status !== 'skipped').map(([name]) => name).sort()).toEqual([
      'a failing scenario fails the test with its step and location',
      'leasing from a pool a failing test holding a lease',
      'leasing from a pool the failed test’s browser was replaced, not reused',
    ]);
    const failed = [...run.tests.values()].filter((t) => t.status === 'failed');
    expect(failed.map((t) => t.fullName).sort()).toEqual([
      'a failing scenario fails the test with its step and location',
      'leasing from a pool a failing test holding a lease',
    ]);
    for (const t of failed) expect(t.failureMessages[0]).toMatch(/^AssertionError: deliberate failure/);
    expect(run.tests.get('leasing from a pool the failed test’s browser was replaced, not reused')?.status).toBe('passed');
    // The scenario's outcome is annotated on the test: the failing step and where it is written.
    expect(run.stdout + run.stderr).toMatch(
      /bcs:scenario\s+↳ scenario 'counter' failed: \d+\/11 steps in \d+ ms; 'expect text "Total: 3"' at \S+counter\.yaml:13:5: expected text "Total: 3"/,
    );
  });

  describe('with BCS_BASE_URL and BCS_API_KEY', () => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await startTestService({ standby: 0 });
    });
    afterAll(() => svc?.close());

    test('a base URL without a key is refused before any test runs', async () => {
      await expect(openTarget({}, { BCS_BASE_URL: svc.baseUrl })).rejects.toThrow(`${svc.baseUrl} needs an API key: set BCS_API_KEY`);
      await expect(openTarget({ apiKey: svc.apiKey }, { BCS_BASE_URL: svc.baseUrl })).resolves.toMatchObject({ kind: 'remote', baseUrl: svc.baseUrl });
    });

    test('the tests run on that service instead of an embedded one', { timeout: SPAWN_TIMEOUT_MS }, async () => {
      const run = await runExample(['page.spec.ts'], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const sessions = [];
      for await (const s of new CloudClient({ baseUrl: svc.baseUrl, apiKey: svc.apiKey }).browsers.list({ status: 'all' })) sessions.push(s);
      const ids = [...run.tests.values()].map((t) => t.meta.bcs?.browser?.session_id);
      expect(ids).toHaveLength(5);
      expect(sessions.map((s) => s.session_id)).toEqual(expect.arrayContaining(ids));
      // Besides them, only browsers created ahead for a next test that never came: at most one per test.
      expect(sessions.length - ids.length).toBeLessThanOrEqual(ids.length);
      // Every test's browser was deleted after it, and the spare when the worker ended.
      expect(new Set(sessions.map((s) => s.end_reason))).toEqual(new Set(['deleted']));
    });
  });
});

describe('browser leases', () => {
  let svc: TestService;
  let client: CloudClient;
  beforeAll(async () => {
    svc = await startTestService({ standby: 0 });
    client = new CloudClient({ baseUrl: svc.baseUrl, apiKey: svc.apiKey });
    await client.request('POST', '/browser_pools', { body: { name: 'one', size: 1 } });
  });
  afterAll(() => svc?.close());

  test('an exhausted pool fails after the acquire timeout; a failed holder’s browser is replaced', async () => {
    const held = await obtainBrowser(client, { params: {}, pool: 'one', acquireTimeoutMs: 20_000 });
    const started = Date.now();
    await expect(obtainBrowser(client, { params: {}, pool: 'one', acquireTimeoutMs: 1000 })).rejects.toThrow(
      "no browser in pool 'one' became free within 1000 ms",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    await held.release(true);
    const ended = await client.browsers.retrieve(held.session.session_id, { include_deleted: true });
    expect(ended.deleted_at).toBeDefined();
    // The lease fields of the create params apply to a lease; the pool's configuration stays.
    const next = await obtainBrowser(client, { params: { name: 'second', headless: false }, pool: 'one', acquireTimeoutMs: 20_000 });
    expect(next.session).toMatchObject({ name: 'second', headless: true });
    expect(next.session.session_id).not.toBe(held.session.session_id);
    await next.release(false);
    // Released for reuse: idle again in the pool.
    await eventually(async () => ((await client.browsers.retrieve(next.session.session_id)).deleted_at === undefined ? true : undefined));
  });

  test('a created browser that already ended is released without an error', async () => {
    const lease = await obtainBrowser(client, { params: {}, pool: null, acquireTimeoutMs: 0 });
    expect(lease.source).toBe('create');
    await client.browsers.delete(lease.session.session_id);
    await expect(lease.release(false)).resolves.toBeUndefined();
  });
});

describe('scenario sources and folders', () => {
  test('a compiled scenario is used as it is; anything else is refused with what is accepted', async () => {
    const compiled = await compileSource(join(EXAMPLE, 'scenarios/counter.yaml'));
    expect(await compileSource(compiled)).toBe(compiled);
    await expect(compileSource(compiled, { step: '2' })).rejects.toThrow('vars apply when compiling');
    await expect(compileSource(42 as never)).rejects.toThrow('a scenario file path, a file URL, a builder with compile(), or a compiled scenario');
    await expect(compileSource(join(EXAMPLE, 'missing.yaml'))).rejects.toBeInstanceOf(ScenarioError);
    // Anything with compile() is a builder: it gets the vars.
    const seen: unknown[] = [];
    await compileSource({ compile: (opts) => (seen.push(opts), compiled) }, { a: 'b' });
    expect(seen).toEqual([{ vars: { a: 'b' } }]);
  });

  test('each test gets a readable folder of its own, retries beside the first attempt', () => {
    const t = { file: '/p/tests/login.spec.ts', fullName: 'login > rejects a wrong password', retry: 0 };
    expect(testOutputDir('out', t, '/p')).toBe('/p/out/tests-login-spec/login-rejects-a-wrong-password');
    expect(testOutputDir('/abs', { ...t, retry: 2 }, '/p')).toBe('/abs/tests-login-spec/login-rejects-a-wrong-password-retry-2');
  });
});

describe('the Chromium unpack lock', () => {
  test('serialises concurrent holders and takes over a lock left by a killed process', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bcs-lock-'));
    const lock = join(dir, 'lock');
    try {
      let inside = 0;
      let most = 0;
      const work = async () => {
        most = Math.max(most, ++inside);
        await new Promise((r) => setTimeout(r, 50));
        inside--;
      };
      await Promise.all([withLock(lock, work), withLock(lock, work), withLock(lock, work)]);
      expect(most).toBe(1);

      await mkdir(lock);
      const old = new Date(Date.now() - 120_000);
      await utimes(lock, old, old);
      const started = Date.now();
      await expect(withLock(lock, async () => 'ran')).resolves.toBe('ran');
      // Taken over at once, not after waiting out the limit that would otherwise have thrown.
      expect(Date.now() - started).toBeLessThan(10_000);
      await expect(stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// Last in the file: the declaration emit it waits for is then most likely done by package/install.test.ts
// on the other worker meanwhile, instead of one worker idling while the other runs it.
describe('the package ships the fixtures, typed', () => {
  test('the example typechecks against the declarations emitted beside the bundles, and they are not `any`', { timeout: SPAWN_TIMEOUT_MS }, async () => {
    // Emitted once per test run, for this file and the packing test (helpers/declarations.ts).
    const built = await emitDeclarations();
    expect(built.output).toBe('');
    expect(built.code).toBe(0);

    // The example's files with the example's settings, plus a user's mistakes that must be caught (the
    // fixtures are typed, not `any`): the only errors are those.
    const dir = await mkdtemp(join(EXAMPLE, '.typecheck-'));
    try {
      await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['../*.ts', '*.ts'] }));
      await writeFile(
        join(dir, 'wrong.ts'),
        `import { test } from 'browser-scenarios/fixtures';\n` +
          `test('x', async ({ browser, runScenario }) => {\n` +
          `  const id: number = browser.session_id;\n` +
          `  const r = await runScenario('a.yaml');\n` +
          `  r.status satisfies 'passed' | 'failed' | 'error';\n` +
          `  await runScenario(42);\n` +
          `});\n`,
      );
      const checked = await tsc(join(dir, 'tsconfig.json'));
      expect(checked.code).not.toBe(0);
      const errors = checked.output.split('\n').filter((l) => l.includes('error TS'));
      expect(errors, checked.output).toHaveLength(2);
      expect(errors[0]).toMatch(/wrong\.ts\(3,9\): error TS2322: Type 'string' is not assignable to type 'number'/);
      expect(errors[1]).toMatch(/wrong\.ts\(6,21\): error TS2345/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
