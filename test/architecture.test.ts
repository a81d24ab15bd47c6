// The two halves meet only at the wire: these import rules keep it that way.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.(ts|mjs|js)$/.test(entry.name)) out.push(relative(ROOT, join(entry.parentPath, entry.name)));
  }
  return out;
}

/** Project-relative targets of every relative import in `file`. */
async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => relative(ROOT, resolve(ROOT, file, '..', s)));
}

async function violations(dir: string, allowed: (target: string, file: string) => boolean): Promise<string[]> {
  const bad: string[] = [];
  for (const file of await sources(dir)) {
    for (const target of await importsOf(file)) if (!allowed(target, file)) bad.push(`${file} -> ${target}`);
  }
  return bad;
}

const inside = (target: string, dir: string) => target === dir || target.startsWith(`${dir}/`);

describe('dependency rules', () => {
  it('src/service never imports the runner or the scenario code', async () => {
    expect(await violations('src/service', (t) => !inside(t, 'runner') && !inside(t, 'src/scenario'))).toEqual([]);
  });

  it('src/api never imports the service, the scenario code or the runner', async () => {
    expect(await violations('src/api', (t) => inside(t, 'src/api'))).toEqual([]);
  });

  it('src/scenario uses at most the wire types of src/api', async () => {
    expect(await violations('src/scenario', (t) => inside(t, 'src/scenario') || t === 'src/api/types.js')).toEqual([]);
  });

  it('the runner reaches the service only to start it', async () => {
    // target.ts starts the embedded default; cli.ts starts it standalone for `bcs serve`.
    const allowed = (t: string, file: string) =>
      !inside(t, 'src/service') || (t === 'src/service/index.js' && ['runner/target.ts', 'runner/cli.ts'].includes(file));
    expect(await violations('runner', allowed)).toEqual([]);
  });
});
