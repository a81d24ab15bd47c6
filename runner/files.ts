// Turns the paths given on the command line into scenario files: files as given, folders searched.
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const SCENARIO_FILE = /\.ya?ml$/;
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist']);

export async function findScenarioFiles(paths: string[], cwd = process.cwd()): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new Error(`no such file or folder: ${path}`);
    if (info.isDirectory()) found.push(...(await walk(path)).sort());
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

async function walk(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) files.push(...(await walk(path)));
    else if (entry.isFile() && SCENARIO_FILE.test(entry.name)) files.push(path);
  }
  return files;
}
