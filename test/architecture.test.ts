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

/**
 * The import cycles among `dir`'s files, type-only imports included (a type cycle still means two modules
 * that cannot be understood apart): each as the files of one strongly connected component.
 */
async function cycles(dir: string): Promise<string[][]> {
  const files = await sources(dir);
  const edges = new Map<string, string[]>();
  for (const file of files) edges.set(file, (await importsOf(file)).map((t) => t.replace(/\.js$/, '.ts')).filter((t) => files.includes(t)));
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

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

  it.each(['runner', 'src/api', 'src/scenario', 'src/service'])('no import cycles in %s', async (dir) => {
    expect(await cycles(dir)).toEqual([]);
  });
});
