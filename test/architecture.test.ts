// The two halves meet only at the wire: these import rules keep it that way.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.(tsx?|mjs|js)$/.test(entry.name) && !entry.parentPath.includes('/generated')) out.push(relative(ROOT, join(entry.parentPath, entry.name)));
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

const HOST = 'src/service/host';
/**
 * The domain folders of the service's host code and the folders each may import (as Playwright's DEPS.list
 * files say it per folder). Files directly in host/ (data dir, project lookups, SessionScope) are open to
 * all. The order is the layering, lowest first; a new folder gets a line here.
 */
const HOST_DEPS: Record<string, string[]> = {
  fs: [],
  process: ['fs'],
  network: ['fs', 'process'],
  proxy: ['network'],
  browser: ['fs', 'network', 'process', 'proxy'],
  session: ['browser', 'fs', 'network', 'process', 'proxy'],
  input: ['browser'],
  live: ['input', 'session'],
  recording: ['browser', 'session'],
  telemetry: ['browser', 'live', 'proxy', 'session'],
  playwright: ['fs', 'input', 'process', 'session'],
  codegen: ['session'],
  profiles: ['browser', 'fs', 'session'],
  extensions: ['browser', 'fs', 'profiles', 'session'],
  sites: ['proxy'],
  browsers: ['browser', 'extensions', 'live', 'network', 'profiles', 'proxy', 'session', 'sites', 'telemetry'],
  pools: ['browser', 'browsers', 'extensions', 'fs', 'network', 'profiles', 'proxy', 'session'],
  apps: ['fs', 'process'],
  credentials: [],
  runs: [],
  auth: ['browser', 'browsers', 'credentials', 'fs', 'process', 'profiles', 'proxy', 'session', 'sites'],
  monitors: ['apps', 'credentials', 'fs', 'network', 'process', 'runs'],
};
/**
 * The runner's layers, lowest first: results and reporters; executing one plan; running suites of them
 * (workers, retries, browsers prepared ahead, targets); the commands.
 */
const RUNNER_DEPS: Record<string, string[]> = {
  reporters: [],
  exec: ['reporters'],
  suite: ['exec', 'reporters'],
  cli: ['exec', 'reporters', 'suite'],
};
/** The folder directly under `root` that `target` lies in, if it lies in one. */
const folderUnder = (root: string, target: string) => (inside(target, root) ? /^[^/]+(?=\/)/.exec(relative(root, target))?.[0] : undefined);
const hostFolder = (target: string) => folderUnder(HOST, target);

/**
 * The imports in `root`'s folders against `deps` (folder -> the folders it may import), the table's own
 * order checked as a layering (lowest first), and folders missing from the table. Files directly in `root`
 * are open to all.
 */
async function layeringViolations(root: string, deps: Record<string, string[]>): Promise<string[]> {
  const order = Object.keys(deps);
  const bad = Object.entries(deps).flatMap(([folder, uses]) =>
    uses.filter((dep) => !(order.indexOf(dep) >= 0 && order.indexOf(dep) < order.indexOf(folder))).map((dep) => `table: ${folder} -> ${dep}`),
  );
  const folders = (await readdir(join(ROOT, root), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  bad.push(...folders.filter((f) => !(f in deps)).map((f) => `not in the table: ${f}`));
  const allowed = (t: string, file: string) => {
    const from = folderUnder(root, file);
    const to = folderUnder(root, t);
    return from === undefined || to === undefined || to === from || deps[from]!.includes(to);
  };
  return [...bad, ...(await violations(root, allowed))];
}

/**
 * The import cycles among `dir`'s files, type-only imports included (a type cycle still means two modules
 * that cannot be understood apart): each as the files of one strongly connected component.
 */
async function cycles(dir: string): Promise<string[][]> {
  const files = await sources(dir);
  const edges = new Map<string, string[]>();
  // `./x.js` names x.ts, or x.tsx in the console.
  const source = (t: string) => [t.replace(/\.js$/, '.ts'), t.replace(/\.js$/, '.tsx')].find((f) => files.includes(f));
  for (const file of files) edges.set(file, (await importsOf(file)).map(source).filter((t): t is string => t !== undefined));
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

  it('src/service never imports the console (it serves the built bundle as files)', async () => {
    expect(await violations('src/service', (t) => !inside(t, 'src/console'))).toEqual([]);
  });

  it('the console (browser code) imports only itself and, as types only, the wire types of src/api', async () => {
    expect(await violations('src/console', (t) => inside(t, 'src/console') || t === 'src/api/types.js')).toEqual([]);
    const valueImports: string[] = [];
    for (const file of await sources('src/console')) {
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/^import\s+(?!type\b)[^;]*from\s*'(\.[^']*\/api\/[^']*)'/gm)) valueImports.push(`${file}: ${m[1]}`);
    }
    expect(valueImports).toEqual([]);
  });

  it('src/api never imports the service, the scenario code or the runner', async () => {
    expect(await violations('src/api', (t) => inside(t, 'src/api'))).toEqual([]);
  });

  it('src/scenario uses at most the wire types of src/api', async () => {
    expect(await violations('src/scenario', (t) => inside(t, 'src/scenario') || t === 'src/api/types.js')).toEqual([]);
  });

  it("src/recorder (the recorder's actions as steps, shared by `bcs codegen` and the service) uses nothing of ours but the wire types", async () => {
    expect(await violations('src/recorder', (t) => inside(t, 'src/recorder') || t === 'src/api/types.js')).toEqual([]);
  });

  it('the runner reaches the service only to start it', async () => {
    // embedded-service.ts and service-thread.ts start the embedded default; serve.ts starts it standalone (`bcs
    // serve`, a role of a cluster); probe.ts reads the cluster key the way the service does.
    const starters = ['runner/suite/embedded-service.ts', 'runner/suite/service-thread.ts', 'runner/cli/serve.ts', 'runner/cli/probe.ts'];
    const allowed = (t: string, file: string) => !inside(t, 'src/service') || (t === 'src/service/index.js' && starters.includes(file));
    expect(await violations('runner', allowed)).toEqual([]);
  });

  it('each host folder imports only the folders listed for it, lower in the layering', async () => {
    expect(await layeringViolations(HOST, HOST_DEPS)).toEqual([]);
  });

  it("docs/architecture.md's host table is HOST_DEPS: every folder, in its order, with the same dependencies", async () => {
    // The table is what a reader trusts for where new code goes; HOST_DEPS is what the imports are held to.
    const doc = await readFile(join(ROOT, 'docs/architecture.md'), 'utf8');
    const section = /^## The service's host folders\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(doc)?.[1] ?? '';
    const rows = [...section.matchAll(/^\| `([^`/]+)\/` \|[^|]*\|([^|]*)\|$/gm)].map((m) => [
      m[1]!,
      m[2]!
        .split(',')
        .map((d) => d.trim())
        .filter(Boolean),
    ]);
    expect(rows).toEqual(Object.entries(HOST_DEPS));
  });

  it('host code speaks no HTTP: it uses wire shapes, the store, ids and secrets, and throws domain errors', async () => {
    const allowed = (t: string) =>
      inside(t, HOST) ||
      t === 'src/api/types.js' ||
      inside(t, 'src/api/schemas') ||
      // The markers' WebVTT track is a wire format too: the runner writes it as the service does.
      t === 'src/api/marker-track.js' ||
      inside(t, 'src/service/store') ||
      // Playwright's recorded actions as steps: the same translation `bcs codegen` uses, HTTP-free.
      inside(t, 'src/recorder') ||
      ['src/service/ids.js', 'src/service/secrets-box.js'].includes(t);
    expect(await violations(HOST, allowed)).toEqual([]);
  });

  it("the store alone knows its database: nothing outside src/service/store imports the driver or names SQLite's error codes", async () => {
    // A second store (PostgreSQL) must be a change inside the store; callers catch the store's UniqueViolation.
    const named: string[] = [];
    for (const file of [...(await sources('src')), ...(await sources('runner'))]) {
      // The build lists the driver among the packages Node loads rather than the bundle: it uses nothing of it.
      if (inside(file, 'src/service/store') || file === 'runner/build.mjs') continue;
      const code = (await readFile(join(ROOT, file), 'utf8')).replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, '');
      for (const m of code.matchAll(/SQLITE_\w*|['"]better-sqlite3['"]|from ['"]pg['"]|['"]23505['"]/g)) named.push(`${file}: ${m[0]}`);
    }
    expect(named).toEqual([]);
  });

  it('the repositories are written once: none imports a driver or a database of its own', async () => {
    // SQLite and PostgreSQL differ inside store/sqlite and store/pg; a repository that reached past
    // database.ts would work on one of them only.
    const bad: string[] = [];
    for (const file of await sources('src/service/store')) {
      if (!file.endsWith('-repo.ts')) continue;
      const code = await readFile(join(ROOT, file), 'utf8');
      for (const m of code.matchAll(/from '([^']+)'/g)) {
        if (/^(better-sqlite3|pg)$|\/(sqlite|pg)\//.test(m[1]!)) bad.push(`${file}: ${m[1]}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("a route module takes from another route module only its register function: shared logic lives in a helper or in host code", async () => {
    // Creating and presenting a browser was once reached through routes/browsers.ts by pools and apps.
    const ROUTES = 'src/service/routes';
    const files = await sources(ROUTES);
    const registers = new Set<string>();
    for (const file of files) if (/^export (async )?function register/m.test(await readFile(join(ROOT, file), 'utf8'))) registers.add(file.replace(/\.ts$/, '.js'));
    const bad: string[] = [];
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/^import (type )?\{([^}]*)\} from '(\.\/[^']+)'/gm)) {
        const target = relative(ROOT, resolve(ROOT, file, '..', m[3]!));
        if (m[1] || !registers.has(target)) continue;
        const values = m[2]!.split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type '));
        for (const name of values) if (!name.startsWith('register')) bad.push(`${file} -> ${target}: ${name}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('host code names no request part: the route that hands input over names its fields', async () => {
    const named: string[] = [];
    for (const file of await sources(HOST)) {
      const code = (await readFile(join(ROOT, file), 'utf8')).replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, '');
      for (const m of code.matchAll(/['`](body|querystring|params|headers)[.'`]/g)) named.push(`${file}: ${m[0]}`);
    }
    expect(named).toEqual([]);
  });

  it('each runner folder imports only the layers below it', async () => {
    expect(await layeringViolations('runner', RUNNER_DEPS)).toEqual([]);
  });

  it("code outside a host folder reaches it through the folder's index.ts", async () => {
    const allowed = (t: string, file: string) => {
      const to = hostFolder(t);
      return to === undefined || to === hostFolder(file) || t === `${HOST}/${to}/index.js`;
    };
    expect(await violations('src', allowed)).toEqual([]);
  });

  it.each(['runner', 'src/api', 'src/scenario', 'src/service', 'src/console', 'src/recorder'])('no import cycles in %s', async (dir) => {
    expect(await cycles(dir)).toEqual([]);
  });
});
