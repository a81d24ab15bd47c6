#!/usr/bin/env node
// The `bcs` executable: the CLI is compiled to dist/ by `npm ci` (prepare) or `npm run build`.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
const cli = new URL('../dist/runner/cli/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('bcs: dist/ is missing; run `npm run build` (npm ci does it for you)\n');
  process.exit(2);
}
// V8's compiled code for what the CLI loads (playwright-core, the service, ...) kept between runs: a run's
// start takes ~20% less CPU. In the user's own cache folder, not a shared temporary one, as the cache is
// code; NODE_COMPILE_CACHE chooses another, NODE_DISABLE_COMPILE_CACHE=1 turns it off. Only under a home
// (or XDG_CACHE_HOME) that is a writable folder: Node's recursive mkdir never returns under a missing path
// on /proc, where a sandbox may point HOME.
if (!process.env.NODE_COMPILE_CACHE) {
  const base = process.env.XDG_CACHE_HOME || homedir();
  if (writableFolder(base)) module.enableCompileCache?.(join(process.env.XDG_CACHE_HOME ? base : join(base, '.cache'), 'browser-scenarios', 'compile-cache'));
}
// `bcs run` on the embedded service: its thread (dist/runner/suite/service-thread.js) starts loading the
// service now, on another core, while the CLI loads here; the run starts it or, if the run turns out to
// need none (a --base-url in bcs.config.yaml, an invalid suite), ends it. ~0.1 s of a run's start.
if (process.argv[2] === 'run' && !process.env.BCS_BASE_URL && !process.argv.some((a) => a.startsWith('--base-url'))) {
  const { Worker } = await import('node:worker_threads');
  const thread = new Worker(new URL('../dist/runner/suite/service-thread.js', import.meta.url), { workerData: { compileCache: module.getCompileCacheDir?.() } });
  thread.unref();
  thread.on('error', (err) => process.stderr.write(`bcs: the embedded service's thread failed: ${err.message}\n`));
  globalThis[Symbol.for('browser-scenarios.service-thread')] = thread;
}
await import(cli.href);

function writableFolder(dir) {
  try {
    if (!statSync(dir).isDirectory()) return false;
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
