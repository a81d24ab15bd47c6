// Bundles a deployed app into one ES module with esbuild: the app and what it imports (its own
// node_modules, else the service's `@onkernel/sdk`), wrapped in the worker's runtime entry. Playwright is
// not bundled (it carries files it reads at run time): `playwright-core` and `playwright` imports load the
// app's own copy when it ships one (relative to the bundle), else the service's playwright-core, found
// through BCS_RUNTIME_DIR at run time (the sandbox binds it in; unsandboxed it is the host's folder).
import type { Message, Plugin } from 'esbuild';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { runtimeEntrySource } from './runtime-entry.js';

/** Where the bundle and its generated entry go, inside the deployment's folder. */
export const BUNDLE_FILE = 'bundle.mjs';
const ENTRY_FILE = '.bcs-entry.mjs';

/** A build that failed: `message` names file:line:column of the first error where esbuild had one. */
export class BundleError extends Error {
  override name = 'BundleError';
}

/** The folder holding the service's own node_modules packages that apps may fall back on. */
export function serviceNodeModules(): string {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@onkernel/sdk');
  const marker = `${sep}node_modules${sep}`;
  return entry.slice(0, entry.lastIndexOf(marker) + marker.length - 1);
}

/** The folder holding the service's playwright-core package (its parent is BCS_RUNTIME_DIR unsandboxed). */
export function servicePlaywrightDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('playwright-core/package.json'));
}

/**
 * Bundles `appDir/entrypoint` into `outDir/bundle.mjs`. Warnings come back as lines for the deployment's
 * log; errors throw BundleError.
 */
export async function bundleApp(appDir: string, entrypoint: string, outDir: string): Promise<{ warnings: string[] }> {
  const entry = join(appDir, ENTRY_FILE);
  await writeFile(entry, runtimeEntrySource(join(appDir, entrypoint)), { mode: 0o644 });
  try {
    // Loaded on the first deploy, not with the service.
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [entry],
      outfile: join(outDir, BUNDLE_FILE),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      // An app without node_modules of its own gets the service's SDK.
      nodePaths: [serviceNodeModules()],
      // Bundled CommonJS calls require(); in an ES module that needs a real one.
      banner: { js: "import { createRequire as __bcsCreateRequire } from 'node:module'; const require = __bcsCreateRequire(import.meta.url);" },
      plugins: [playwrightAtRunTime(appDir, outDir)],
      logLevel: 'silent',
      sourcemap: 'inline',
      sourcesContent: false,
      absWorkingDir: appDir,
    });
    return { warnings: result.warnings.map((w) => formatMessage(w, appDir)) };
  } catch (err) {
    const errors = (err as { errors?: Message[] }).errors;
    if (!errors?.length) throw new BundleError((err as Error).message);
    throw new BundleError(errors.slice(0, 5).map((e) => formatMessage(e, appDir)).join('\n'));
  }
}

/** `file:line:col: text`, as compilers print, relative to the app's folder. */
function formatMessage(m: Message, appDir: string): string {
  if (!m.location) return m.text;
  const file = relative(appDir, join(appDir, m.location.file)) || m.location.file;
  return `${file}:${m.location.line}:${m.location.column + 1}: ${m.text}`;
}

/** Runtime packages the service provides when the app has no copy of its own. */
const RUNTIME_PACKAGES = /^(playwright-core|playwright)(\/.*)?$/;

function playwrightAtRunTime(appDir: string, outDir: string): Plugin {
  return {
    name: 'bcs-playwright-at-run-time',
    setup(b) {
      b.onResolve({ filter: RUNTIME_PACKAGES }, (args) => ({ path: args.path, namespace: 'bcs-runtime' }));
      b.onLoad({ filter: /.*/, namespace: 'bcs-runtime' }, (args) => {
        const [, pkg, sub = ''] = RUNTIME_PACKAGES.exec(args.path)!;
        const own = join(appDir, 'node_modules', pkg!);
        // The app's own copy, by its place beside the bundle (the folder is bound elsewhere in a sandbox).
        const target = existsSync(join(own, 'package.json'))
          ? JSON.stringify(`./${relative(outDir, own)}${sub}`)
          : `process.env.BCS_RUNTIME_DIR + ${JSON.stringify(`/playwright-core${sub}`)}`;
        return { contents: `module.exports = require(${target});`, loader: 'js' };
      });
    },
  };
}
