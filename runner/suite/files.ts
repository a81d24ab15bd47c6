// Turns the paths given on the command line into scenario files: files as given, folders searched.
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { DEFAULTS_FILES, DEFAULTS_FILE, PART_FILE } from '../../src/scenario/index.js';

/** What a folder search picks up: YAML scenarios and TypeScript ones. A file named explicitly is always taken. */
const SCENARIO_FILE = /(\.ya?ml|\.scenario\.ts)$/;
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist']);
/** The suite config and folder defaults are YAML too, but never scenarios. */
const NOT_SCENARIOS = new Set(['bcs.config.yaml', 'bcs.config.yml', ...DEFAULTS_FILES]);

/**
 * Scenario files under `paths`. Parts (`*.part.yaml`) are steps for other scenarios to include: a folder
 * search skips them and naming one to run is an error, unless `parts` (what `bcs validate` checks) is set;
 * so are defaults files (`bcs.defaults.yaml`).
 */
export async function findScenarioFiles(paths: string[], cwd = process.cwd(), opts: { parts?: boolean } = {}): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    const info = await stat(resolve(cwd, path)).catch(() => undefined);
    if (!info) throw new Error(`no such file or folder: ${path}`);
    if (info.isDirectory()) found.push(...(await walk(path, cwd, Boolean(opts.parts))).filter((f) => opts.parts || !PART_FILE.test(f)).sort());
    else if (DEFAULTS_FILE.test(path) && !opts.parts) throw new Error(`${path} holds defaults for the scenarios in its folder and below; run those (bcs run ${dirname(path) || '.'}); bcs validate checks it`);
    else if (PART_FILE.test(path) && !opts.parts) throw new Error(`${path} is a part: its steps run where a scenario includes it (include: { file: ... }); bcs validate checks it`);
    else found.push(path);
  }
  // Paths stay as the user wrote them (they appear in every message); duplicates are found by real path.
  const seen = new Set<string>();
  return found.filter((f) => {
    const key = resolve(cwd, f);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** `checked`: what `bcs validate` looks at, defaults files included. */
async function walk(dir: string, cwd: string, checked: boolean): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(resolve(cwd, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) files.push(...(await walk(path, cwd, checked)));
    else if (entry.isFile() && SCENARIO_FILE.test(entry.name) && (!NOT_SCENARIOS.has(entry.name) || (checked && DEFAULTS_FILE.test(entry.name)))) files.push(path);
  }
  return files;
}

/** A scenario file's path without its scenario extension, for naming its artifact folder. */
export function stripScenarioExtension(file: string): string {
  return file.replace(SCENARIO_FILE, '');
}
