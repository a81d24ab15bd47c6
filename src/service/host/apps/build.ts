// A deployment's build: unpack the zip (checked entry by entry: no links, nothing outside), find the
// entrypoint, install the app's dependencies when it ships a lockfile (npm ci, scripts off: no app code
// runs outside the sandbox), bundle, and make the result readable by the sandbox's user.
import { spawn } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { extractZip, withWalk } from '../fs/index.js';
import { DomainError } from '../errors.js';
import { bundleApp, BundleError } from './bundle.js';

/** Why a build failed, in words for `status_reason`. */
export class BuildError extends Error {
  override name = 'BuildError';
}

/** Tried in order when the deployment names no entrypoint. */
const DEFAULT_ENTRYPOINTS = ['index.ts', 'index.js', 'index.mjs', 'src/index.ts', 'src/index.js', 'main.ts', 'main.js', 'app.ts', 'app.js'];
const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json'];
const INSTALL_TIMEOUT_MS = 10 * 60_000;

export interface BuildOptions {
  zipPath: string;
  /** The deployment's folder: source/ and bundle.mjs go there. */
  dir: string;
  entrypoint?: string;
  log: (line: string) => void;
}

/** Builds the deployment; returns the entrypoint used. Throws BuildError with the reason. */
export async function buildDeployment(opts: BuildOptions): Promise<string> {
  const source = join(opts.dir, 'source');
  await mkdir(source, { recursive: true, mode: 0o755 });
  try {
    await withWalk(source, (walk) => extractZip(opts.zipPath, walk, '/', 'file'));
  } catch (err) {
    if (err instanceof DomainError) throw new BuildError(err.message.replace(/^file: /, 'the zip: '));
    throw err;
  }
  const entrypoint = await findEntrypoint(source, opts.entrypoint);
  opts.log(`entrypoint: ${entrypoint}`);
  await installDependencies(source, opts.log);
  opts.log('bundling with esbuild');
  try {
    const { warnings } = await bundleApp(source, entrypoint, opts.dir);
    for (const w of warnings) opts.log(`warning: ${w}`);
  } catch (err) {
    if (err instanceof BundleError) throw new BuildError(`the build failed:\n${err.message}`);
    throw err;
  }
  await readableByAll(opts.dir);
  return entrypoint;
}

async function findEntrypoint(source: string, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    const clean = posix.normalize(given.replace(/^\.\//, ''));
    if (clean.startsWith('../') || clean === '..' || posix.isAbsolute(clean)) {
      throw new BuildError(`entrypoint_rel_path '${given}' must be a path inside the zip`);
    }
    const info = await lstat(join(source, clean)).catch(() => null);
    if (!info?.isFile()) throw new BuildError(`entrypoint_rel_path '${given}' is not a file in the zip`);
    return clean;
  }
  const pkg = await readPackageJson(source);
  const candidates = typeof pkg?.main === 'string' ? [posix.normalize(pkg.main), ...DEFAULT_ENTRYPOINTS] : DEFAULT_ENTRYPOINTS;
  for (const candidate of candidates) {
    if (candidate.startsWith('..')) continue;
    if ((await lstat(join(source, candidate)).catch(() => null))?.isFile()) return candidate;
  }
  throw new BuildError(`no entrypoint: give entrypoint_rel_path, or ship one of ${DEFAULT_ENTRYPOINTS.join(', ')}`);
}

async function readPackageJson(source: string): Promise<Record<string, unknown> | null> {
  const text = await readFile(join(source, 'package.json'), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const pkg = JSON.parse(text) as unknown;
    return pkg && typeof pkg === 'object' ? (pkg as Record<string, unknown>) : null;
  } catch (err) {
    throw new BuildError(`package.json is not valid JSON (${(err as Error).message})`);
  }
}

/** `npm ci` when the app ships package.json and a lockfile; install scripts never run. */
async function installDependencies(source: string, log: (line: string) => void): Promise<void> {
  const pkg = await readPackageJson(source);
  if (!pkg) return;
  const lockfile = await firstExisting(source, LOCKFILES);
  const deps = Object.keys({ ...(pkg.dependencies as object), ...(pkg.devDependencies as object) });
  if (!lockfile) {
    if (deps.length) log(`package.json lists dependencies but no package-lock.json was shipped: they are not installed (imports resolve against what the zip holds and the service's @onkernel/sdk)`);
    return;
  }
  log(`installing dependencies (npm ci, from ${lockfile})`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: source,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: source, npm_config_cache: join(source, '..', 'npm-cache'), npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        output.push(line);
        log(line);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), INSTALL_TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new BuildError(`could not run npm to install the dependencies (${err.message})`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const why = signal ? `was killed (${signal}${signal === 'SIGKILL' ? ', over the time limit' : ''})` : `exited with code ${code}`;
      reject(new BuildError(`npm ci ${why}: ${output.slice(-5).join('\n') || 'no output'}`));
    });
  });
  log(`dependencies installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function firstExisting(dir: string, names: string[]): Promise<string | undefined> {
  for (const name of names) if ((await stat(join(dir, name)).catch(() => null))?.isFile()) return name;
  return undefined;
}

/** Adds read (and, for folders, pass) permission for all: the sandbox's user reads the bind mount. */
async function readableByAll(path: string): Promise<void> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return;
  if (info.isDirectory()) {
    await chmod(path, (info.mode & 0o7777) | 0o555);
    for (const entry of await readdir(path)) await readableByAll(join(path, entry));
  } else if (info.isFile()) {
    await chmod(path, (info.mode & 0o7777) | 0o444);
  }
}
