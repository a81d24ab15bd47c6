// `--only-changed [REF]`: the files git says changed since REF (default HEAD: the uncommitted changes), with
// untracked ones, as Playwright Test's --only-changed; and which scenarios depend on them. git is needed at
// run time for this flag only.
import { execFile, execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import type { CompiledScenario } from '../../src/scenario/index.js';

const run = promisify(execFile);

/** A reason --only-changed cannot work (no git, not a repository, an unknown ref): a usage error, exit 2. */
export class ChangedFilesError extends Error {}

/** Absolute (real) paths of the files changed since `ref`, tracked or not, deleted ones included. */
export async function changedFiles(ref: string | undefined, cwd = process.cwd()): Promise<Set<string>> {
  const base = ref ?? 'HEAD';
  const git = async (args: string[]) => {
    try {
      return (await run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 })).stdout;
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') throw new ChangedFilesError('--only-changed needs git, and git is not installed (or not on PATH)');
      throw new ChangedFilesError(`--only-changed: git ${args.join(' ')} failed: ${(e.stderr ?? e.message).trim()}`);
    }
  };
  const top = await git(['rev-parse', '--show-toplevel']).catch((err: Error) => {
    throw new ChangedFilesError(/not a git repository/i.test(err.message) ? `--only-changed compares with git, and ${cwd} is not in a git repository` : err.message);
  });
  const root = top.trim();
  // The ref first, alone: "unknown revision" is then said as such, not inside diff's usage text.
  await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`]).catch(async () => {
    const shallow = (await git(['rev-parse', '--is-shallow-repository']).catch(() => '')).trim() === 'true';
    throw new ChangedFilesError(
      `--only-changed: '${base}' is not a commit in this repository${shallow ? ' (it is a shallow clone: fetch more history, e.g. fetch-depth: 0)' : ''}` +
        (ref !== undefined ? '; paths to run go before --only-changed, or write --only-changed=REF' : ''),
    );
  });
  // -z: names as they are, however unusual; both lists relative to the repository's top.
  const diffed = await git(['diff', '--name-only', '--no-renames', '-z', base, '--']);
  const untracked = await git(['ls-files', '--others', '--exclude-standard', '--full-name', '-z', '--', root]);
  const files = new Set<string>();
  for (const name of [...diffed.split('\0'), ...untracked.split('\0')]) if (name) files.add(join(root, name));
  return files;
}

/**
 * Whether `ref` names a commit here. `--only-changed` takes an optional ref, so `--only-changed tests/`
 * would read a folder as the ref: the CLI asks this before taking a value that is also a path as a ref.
 */
export function isCommit(ref: string, cwd = process.cwd()): boolean {
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { cwd, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** What a scenario depends on: files (compared exactly) and folders (any file under them). */
export interface Dependencies {
  files: string[];
  dirs: string[];
}

/**
 * The files a scenario depends on: the ones the loader compiled it from (its file, included parts, rows,
 * imported modules) and the paths its plan uses when it runs (a `serve:` folder, route and upload files,
 * screenshot baselines, secret files), plus `shared` (the suite config, which applies to every scenario).
 */
export async function dependenciesOf(c: CompiledScenario, shared: string[] = []): Promise<Dependencies> {
  const files = new Set<string>([...(c.sources ?? [resolve(c.plan.scenario.file)]), ...shared].map(realPath));
  const named = new Set<string>();
  JSON.stringify(c.plan, (_key, value) => {
    if (typeof value === 'string' && isAbsolute(value)) named.add(value);
    return value;
  });
  const dirs: string[] = [];
  for (const path of named) {
    const st = await stat(path).catch(() => undefined);
    if (st?.isDirectory()) dirs.push(realPath(path));
    else if (st) files.add(realPath(path));
  }
  return { files: [...files], dirs };
}

/** Whether any of `changed` is one of the files, or under one of the folders, of `deps`. */
export function touches(deps: Dependencies, changed: Set<string>): boolean {
  if (deps.files.some((f) => changed.has(f))) return true;
  if (!deps.dirs.length) return false;
  for (const f of changed) if (deps.dirs.some((d) => f.startsWith(`${d}${sep}`))) return true;
  return false;
}

/** The scenarios that depend on a changed file. */
export async function changedScenarios<T extends CompiledScenario>(scenarios: T[], changed: Set<string>, shared: string[] = []): Promise<T[]> {
  const kept: T[] = [];
  for (const c of scenarios) if (touches(await dependenciesOf(c, shared), changed)) kept.push(c);
  return kept;
}

/** The path with its links resolved: git names files by their real path, a scenario may be reached through a symlink (macOS's /tmp, say). As given if it is gone. */
export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path); // a file that no longer exists: as written
  }
}
