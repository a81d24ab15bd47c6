// Builds dist/ with esbuild: one bundle per entry point, npm packages left external.
// Kept as plain JS so `npm ci` (prepare) and the test setup can run it before anything is compiled.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export const entryPoints = ['runner/cli.ts', 'src/index.ts', 'fixtures/index.ts', 'bench/create-latency.ts', 'bench/runner-overhead.ts', 'bench/computer-latency.ts', 'bench/host-latency.ts', 'bench/pool-latency.ts', 'bench/replay-cpu.ts', 'bench/cdp-proxy.ts', 'bench/vs-playwright.ts', 'bench/idle-sessions.ts'];

export async function buildDist() {
  await build({
    absWorkingDir: root,
    entryPoints,
    outdir: 'dist',
    outbase: '.',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildDist();
}
