// The package as a new user gets it before it is published: `npm pack`, then `npm i` of the tarball into
// an empty project, where a TypeScript scenario runs with the installed `bcs` on the embedded service
// and a Vitest file uses the fixtures. Dependencies come from npm's cache (the suite's own `npm ci`
// filled it), falling back to the registry. The two native modules are placed beforehand as the
// checkout built them, with what they depend on (npm keeps a dependency already installed at a matching
// version): compiling them again cost minutes of the suite and proves nothing the checkout's own install
// did not.
//
// `npm pack` runs prepack and prepare, which rebuild dist/ while other files of the suite run the CLI
// from it and emit the declarations that fixtures.test.ts emits too (a minute of CPU each time). So this
// file runs package.json's prepack itself, command by command, except those two: the build is the global
// setup's, the declarations are helpers/declarations.ts's (shared with fixtures.test.ts), each made once
// per test run the way prepack makes them. Then `npm pack --ignore-scripts` packs, and postpack runs. The
// first test holds prepack and prepare to that, so the tarball is the one `npm pack` would give a user.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { DECLARATIONS_COMMAND, emitDeclarations } from '../helpers/declarations.js';

const run = promisify(execFile);
/** Packing builds; installing resolves and unpacks the dependencies (a compile, if a native module's version differs). */
const INSTALL_MS = 15 * 60_000;
const NATIVE_MODULES = ['better-sqlite3', 'node-pty'];
/** The build prepack and prepare run, and the global setup too. */
const BUILD = 'node runner/build.mjs';
/** The typescript of the checkout: the new project has none, and its `tsc` only reads what it installed. */
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let work: string;
/** The checkout's package.json before packing: packing must leave it so. */
let checkoutManifest: string;
let app: string;
const env = { ...process.env, BCS_BASE_URL: '', BCS_API_KEY: '', NO_COLOR: '1', JOBS: 'max', npm_config_fund: 'false', npm_config_audit: 'false' };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'bcs-pack-'));
  app = join(work, 'app');
  checkoutManifest = await readFile(join(ROOT, 'package.json'), 'utf8');
  const { scripts } = JSON.parse(checkoutManifest) as { scripts: Record<string, string> };
  // dist/ is the global setup's build (BUILD); the declarations, and whatever else prepack runs (in order),
  // are made side by side.
  const [declarations] = await Promise.all([
    emitDeclarations(),
    (async () => {
      for (const command of scripts.prepack!.split(' && ')) if (command !== BUILD && command !== DECLARATIONS_COMMAND) await npmScript(command);
    })(),
    (async () => {
      // -H: a checkout whose node_modules entries are links (a git worktree sharing another's) copies the
      // package, not a link npm would then rebuild in place.
      await run('mkdir', ['-p', join(app, 'node_modules')]);
      for (const name of await dependencyClosure(NATIVE_MODULES)) await run('cp', ['-aH', join(ROOT, 'node_modules', name), join(app, 'node_modules', name)]);
    })(),
  ]).catch(async (err) => {
    if (scripts.postpack) await npmScript(scripts.postpack);
    throw err;
  });
  try {
    if (declarations.code !== 0) throw new Error(`${DECLARATIONS_COMMAND} failed (exit ${declarations.code}):\n${declarations.output}`);
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT, env, maxBuffer: 64 << 20 });
  } finally {
    // npm runs postpack after packing whether or not prepack changed anything: so does this file.
    if (scripts.postpack) await npmScript(scripts.postpack);
  }
  const tarball = (await readdir(work)).find((f) => f.endsWith('.tgz'))!;
  const vitest = JSON.parse(await readFile(join(ROOT, 'node_modules', 'vitest', 'package.json'), 'utf8')).version as string;
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'new-user-app', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball), `vitest@${vitest}`], { cwd: app, env, maxBuffer: 64 << 20 });
}, INSTALL_MS);
/** A package.json script's command, run in the checkout as npm runs it (its node_modules/.bin first on PATH). */
function npmScript(command: string) {
  return run('sh', ['-c', command], { cwd: ROOT, env: { ...env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` }, maxBuffer: 64 << 20 });
}
/** The packages, and every package they depend on that the checkout installed at its top level. */
async function dependencyClosure(names: string[]): Promise<string[]> {
  const seen = new Set<string>();
  const visit = async (name: string, dependent?: string): Promise<void> => {
    // A dependency installed inside its dependent's own node_modules is copied with it.
    if (seen.has(name) || (dependent && existsSync(join(dependent, 'node_modules', name)))) return;
    seen.add(name);
    const dir = join(ROOT, 'node_modules', name);
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(manifest.dependencies ?? {})) await visit(dep, dir);
  };
  for (const name of names) await visit(name);
  return [...seen];
}

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed package, installed into a new project', { timeout: 300_000 }, () => {
  it('was packed from what npm pack itself would run first', async () => {
    const { scripts } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    // npm pack runs prepack, prepare and postpack (and nothing else). Prepack builds first and emits the
    // declarations, which this file took from the run's shared build and emit; it ran the rest itself.
    const prepack = scripts.prepack!.split(' && ');
    expect(prepack[0]).toBe(BUILD);
    expect(prepack).toContain(DECLARATIONS_COMMAND);
    // npm reads the manifest afresh before prepare: with prepack's stripped, prepare does not run, and the
    // checkout's prepare (npm ci builds) is that same build.
    expect(scripts.prepare).toBe(BUILD);
    // The global setup's build command is the same one.
    expect(await readFile(join(ROOT, 'test/helpers/global-setup.ts'), 'utf8')).toContain("['runner/build.mjs']");
    // Packing left the checkout's manifest as it was.
    expect(await readFile(join(ROOT, 'package.json'), 'utf8')).toBe(checkoutManifest);
  });

  it('ships a manifest that runs nothing it does not ship', async () => {
    const dir = join(app, 'node_modules', 'browser-scenarios');
    const { scripts = {} } = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    // What a script names that the package lacks: a file of the checkout (runner/build.mjs, a tsconfig).
    const missing = Object.entries(scripts).flatMap(([name, command]) =>
      command
        .split(/\s+|&&|\|\||;/)
        .filter((word) => /^[\w.-]+\/[\w./-]+$|\.(m?js|json|ts)$/.test(word) && !existsSync(join(dir, word)))
        .map((word) => `${name}: ${word}`),
    );
    expect(missing).toEqual([]);
    // Nor one that needs the checkout without naming a file of it (`tsc -p .`, `vitest run`): npm runs no
    // script of a dependency but its install scripts, and this package needs none.
    expect(scripts).toEqual({});
  });

  it("compiles a new project's TypeScript against the installed declarations, library checks on", async () => {
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: false },
        // Every declaration file the package ships, whether these imports reach it or not: none may name a
        // type the install does not have (the store's driver's, a devDependency's).
        include: ['types.ts', 'node_modules/browser-scenarios/**/*.d.ts'],
        exclude: [],
      }),
    );
    // Both entries, and the service's types by name: what a user's editor and CI compile.
    await writeFile(
      join(app, 'types.ts'),
      `import { CloudClient, scenario, startService, type Plan, type RunningService, type ServiceOptions } from 'browser-scenarios';
import { test, type BcsFixtures } from 'browser-scenarios/fixtures';

const options: ServiceOptions = { dataDir: '/tmp/x', networkPolicy: 'local', otlpDestinations: { c: { endpoint: 'http://localhost:4318' } } };
export async function start(): Promise<string> {
  const service: RunningService = await startService(options);
  const where = \`\${service.baseUrl} \${service.chromium.path} \${service.headlessShell?.path ?? ''} \${service.networkPolicy}\`;
  await service.close();
  return where;
}
export const client = new CloudClient({ baseUrl: 'http://localhost:1', apiKey: 'k' });
export type Plans = Plan[];
export const built = scenario('typed').goto('data:text/html,x');
test('typed', async ({ page, browser }: BcsFixtures) => {
  await page.goto('about:blank');
  void browser.session_id;
});
`,
    );
    const result = await run(process.execPath, [TSC, '-p', app], { cwd: app, env }).then(
      () => '',
      (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
    expect(result).toBe('');
  });

  it('runs a TypeScript scenario with the installed bcs on the embedded service', async () => {
    await writeFile(join(app, 'hello.scenario.ts'), `import { scenario } from 'browser-scenarios';

export default scenario('hello from a new project')
  .goto('data:text/html,<title>Hi</title><h1>Hello</h1>')
  .expect({ role: 'heading', text: 'Hello' })
  .fn('read the title', async ({ page }) => page.title(), { save: 'title' })
  .expect({ title: '{{ title }}' });
`);
    const { stdout } = await run(join(app, 'node_modules', '.bin', 'bcs'), ['run', 'hello.scenario.ts', '--reporter', 'list'], { cwd: app, env });
    expect(stdout).toContain('1 passed, 0 failed');
  });

  it('ships the OpenAPI document of every route', async () => {
    const doc = JSON.parse(await readFile(join(app, 'node_modules', 'browser-scenarios', 'openapi.json'), 'utf8'));
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/browsers', '/browsers/{id}/process/exec', '/org/api_keys']));
  });

  it('runs Vitest tests that use the fixtures', async () => {
    await writeFile(join(app, 'page.test.ts'), `import { expect, test } from 'browser-scenarios/fixtures';
import { scenario } from 'browser-scenarios';

test('a page in a browser of the embedded service', async ({ page, browser }) => {
  await page.goto('data:text/html,<p id=p>fixture</p>');
  expect(await page.textContent('#p')).toBe('fixture');
  expect(browser.session_id).toBeTruthy();
});

test('a scenario run from a test', async ({ runScenario }) => {
  const result = await runScenario(scenario('inline').goto('data:text/html,<h2>x</h2>').expect({ role: 'heading', text: 'x' }));
  expect(result.status).toBe('passed');
});
`);
    await writeFile(join(app, 'vitest.config.ts'), `import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { testTimeout: 120_000, hookTimeout: 120_000 } });\n`);
    const { stdout } = await run(join(app, 'node_modules', '.bin', 'vitest'), ['run'], { cwd: app, env });
    expect(stdout).toMatch(/Tests\s+2 passed/);
  });
});
