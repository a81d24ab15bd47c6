// Builds dist/ with esbuild: one bundle per entry point, with the npm packages it uses inside, but for those
// that must be loaded from node_modules (KEEP_EXTERNAL).
// Kept as plain JS so `npm ci` (prepare) and the test setup can run it before anything is compiled.
import { build } from 'esbuild';
import { cp, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { writeScenarioAccepts } from './scenario-accepts.mjs';
import { writeScenarioTypes } from './scenario-types.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

export const entryPoints = ['runner/cli/cli.ts', 'runner/suite/service-thread.ts', 'src/index.ts', 'src/service/index.ts', 'fixtures/index.ts', 'bench/create-latency.ts', 'bench/runner-overhead.ts', 'bench/computer-latency.ts', 'bench/host-latency.ts', 'bench/pool-latency.ts', 'bench/replay-cpu.ts', 'bench/cdp-proxy.ts', 'bench/vs-playwright.ts', 'bench/idle-sessions.ts', 'bench/invoke-latency.ts', 'bench/session-network.ts', 'bench/live-view.ts', 'bench/headless-shell.ts', 'bench/store-latency.ts', 'bench/cluster-latency.ts', 'bench/cluster-capacity.ts', 'bench/pool-reset-cost.ts', 'bench/merge-reports.ts', 'bench/report-to-cost.ts', 'bench/monitor-tick.ts'];

/**
 * Packages left to Node to load: native or binary ones, ones that read their own files at run time, the
 * Playwright the scenarios and the user's own tests share, and the big ones loaded only for rare work. All are
 * direct dependencies, so node_modules resolves them from dist/ as it would from src/. The rest is bundled:
 * Node resolving, reading and wrapping each file of fastify, ajv and their dependencies, and lexing each
 * CommonJS one for an ESM import, took ~100 ms of every embedded service's start (bench/BENCHMARKS.md).
 */
export const KEEP_EXTERNAL = [
  'playwright-core', 'playwright', '@playwright/test', 'chromium-bidi', '@axe-core/playwright', 'axe-core',
  'better-sqlite3', 'node-pty', 'esbuild', '@sparticuz/chromium', '@ffmpeg-installer/linux-x64', '@1password/sdk',
  'pg', 'nodemailer', '@fastify/swagger', '@onkernel/sdk', 'vitest',
].flatMap((name) => [name, `${name}/*`]);

export async function buildDist() {
  await writeScenarioAccepts();
  await writeScenarioTypes();
  await build({
    absWorkingDir: root,
    entryPoints,
    outdir: 'dist',
    outbase: '.',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external: KEEP_EXTERNAL,
    sourcemap: true,
    // Bundled CommonJS (the generated scenario validator) requires npm packages: give it Node's require,
    // which an ESM bundle does not have.
    banner: { js: "import { createRequire as __bcsCreateRequire } from 'node:module'; const require = __bcsCreateRequire(import.meta.url);" },
    plugins: [builtinsByRequire],
    logLevel: 'warning',
  });
  await buildConsole();
}

/**
 * node:http and node:https loaded with require: an ESM import of a built-in reads every one of its exports,
 * and http's include WebSocket, whose getter loads undici (~30 ms of a start, on each thread that imports it).
 */
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^node:https?$/ }, (args) => (args.namespace === 'builtin-require' ? undefined : { path: args.path, namespace: 'builtin-require' }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-require' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/** Where the service looks for the console's files: next to the sources, and the same path under dist/. */
export const consoleOutdir = 'src/console/generated';

/**
 * The web console (src/console, Preact): one minified script and one stylesheet for browsers, written next to
 * the sources (the service run from source serves them) and copied into dist/ (the package serves those).
 */
export async function buildConsole() {
  await build({
    absWorkingDir: root,
    entryPoints: [
      { in: 'src/console/main.tsx', out: 'console' },
      { in: 'src/console/app.css', out: 'console' },
    ],
    outdir: consoleOutdir,
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16'],
    tsconfig: 'src/console/tsconfig.json',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'warning',
  });
  await mkdir(`${root}dist/${consoleOutdir}`, { recursive: true });
  await cp(`${root}${consoleOutdir}`, `${root}dist/${consoleOutdir}`, { recursive: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildDist();
}
