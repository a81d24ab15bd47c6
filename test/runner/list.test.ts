// `bcs list`: which scenarios a run would pick (grep, tags, shards, config), without starting a browser.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';

let work: string;

interface Listed {
  total: number;
  shard?: { index: number; total: number };
  scenarios: { name: string; file: string; tags: string[]; pool?: string; artifact_dir: string }[];
  before: { name: string }[];
  after: { name: string }[];
}

const scenario = (name: string, tags: string[] = [], extra = '') =>
  `name: ${name}\ntags: [${tags.join(', ')}]\n${extra}steps:\n  - goto: "data:text/html,x"\n`;

beforeAll(async () => {
  const project = await inlineFiles({
    'suite/login.yaml': scenario('login works', ['smoke', 'auth']),
    'suite/logout.yml': scenario('logout works', ['auth']),
    'suite/search.yaml': scenario('search finds things', ['smoke']),
    'suite/checkout/pay.yaml': scenario('pay by card', ['slow'], 'browser: { pool: shoppers }\n'),
    'suite/checkout/refund.yaml': scenario('refund', []),
    'suite/checkout/login.yaml': scenario('login works', ['checkout']),
    // Not scenarios: the suite config, a file of another kind, anything under node_modules.
    'suite/bcs.config.yaml': 'workers: 2\n',
    'suite/notes.txt': 'not a scenario',
    'suite/node_modules/dep.yaml': 'not: a scenario',
  });
  work = project.dir;
});

async function list(...args: string[]): Promise<Listed> {
  const res = await runCli(['list', join(work, 'suite'), '--json', ...args]);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout) as Listed;
}
const names = (l: Listed) => l.scenarios.map((s) => s.name);

// Each test starts `bcs` (and browsers) several times: seconds apiece on a busy two-core machine.
describe('bcs list', { timeout: 180_000 }, () => {
  it('finds .yaml and .yml scenarios in folders, skipping the config, other files and node_modules', async () => {
    const all = await list();
    expect(all.total).toBe(6);
    expect(all.scenarios.map((s) => s.file.slice(work.length + 1)).sort()).toEqual(
      ['suite/checkout/login.yaml', 'suite/checkout/pay.yaml', 'suite/checkout/refund.yaml', 'suite/login.yaml', 'suite/logout.yml', 'suite/search.yaml'].sort(),
    );
    expect(all.scenarios.find((s) => s.name === 'pay by card')?.pool).toBe('shoppers');
  });

  it('gives two scenarios of the same name distinct artifact folders, and a unique name its own plain folder', async () => {
    const all = await list();
    const dirs = all.scenarios.filter((s) => s.name === 'login works').map((s) => s.artifact_dir);
    expect(new Set(dirs).size).toBe(2);
    for (const d of dirs) expect(d).toMatch(/--login-works$/);
    expect(all.scenarios.find((s) => s.name === 'refund')?.artifact_dir).toBe('refund');
  });

  it('filters by --grep on names and paths, --grep-invert, --tag and --exclude-tag', async () => {
    expect(names(await list('--grep', '^log')).sort()).toEqual(['login works', 'login works', 'logout works']);
    expect(names(await list('--grep', 'checkout/')).sort()).toEqual(['login works', 'pay by card', 'refund']);
    expect(names(await list('--grep', 'works', '--grep-invert', 'checkout'))).toEqual(['login works', 'logout works']);
    expect(names(await list('--tag', 'smoke')).sort()).toEqual(['login works', 'search finds things']);
    expect(names(await list('--tag', 'smoke', '--tag', 'slow')).sort()).toEqual(['login works', 'pay by card', 'search finds things']);
    expect(names(await list('--tag', 'auth', '--exclude-tag', 'smoke'))).toEqual(['logout works']);
  });

  it('splits the selection into balanced, disjoint shards that together are the whole', async () => {
    const all = await list();
    const shards = await Promise.all([1, 2, 3, 4].map((i) => list('--shard', `${i}/4`)));
    expect(shards.map((s) => s.total)).toEqual([2, 2, 1, 1]);
    expect(shards[0]!.shard).toEqual({ index: 1, total: 4 });
    const files = shards.flatMap((s) => s.scenarios.map((x) => x.file));
    expect(new Set(files).size).toBe(6);
    expect(files.sort()).toEqual(all.scenarios.map((s) => s.file).sort());
    // Same split whatever order the paths come in.
    const reordered = await runCli(['list', join(work, 'suite', 'search.yaml'), join(work, 'suite'), '--json', '--shard', '1/4']);
    expect(JSON.parse(reordered.stdout).scenarios).toEqual(shards[0]!.scenarios);
    // Shards apply after the filters.
    const smoke = await Promise.all([1, 2].map((i) => list('--tag', 'smoke', '--shard', `${i}/2`)));
    expect(smoke.map((s) => s.total)).toEqual([1, 1]);
  });

  it('prints a readable list with tags and pools', async () => {
    const res = await runCli(['list', join(work, 'suite'), '--tag', 'slow']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('pay by card  [slow]  pool shoppers');
    expect(res.stdout).toMatch(/^1 scenario$/m);
  });

  it('exits 2 for bad selections: an invalid regex, a bad shard, nothing matching', async () => {
    const badRegex = await runCli(['list', join(work, 'suite'), '--grep', '(']);
    expect(badRegex.code).toBe(2);
    expect(badRegex.stderr).toContain('--grep: invalid regular expression');
    for (const shard of ['0/3', '4/3']) {
      const res = await runCli(['list', join(work, 'suite'), '--shard', shard]);
      expect(res.code, shard).toBe(2);
      expect(res.stderr).toContain('--shard expects i/n');
    }
    const none = await runCli(['list', join(work, 'suite'), '--tag', 'nope']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no scenario matches the selection (--tag nope) among 6 found');
  });

  it('an empty shard is not an error', async () => {
    const res = await runCli(['list', join(work, 'suite', 'checkout', 'refund.yaml'), '--shard', '2/2', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).total).toBe(0);
  });
});

describe('parts (*.part.yaml)', () => {
  it('are skipped by folder scans, refused when named to run, and checked by validate at file:line:col', async () => {
    const project = await inlineFiles({
      // A part has no name and a parameter only its includer sets well: on its own it is not a scenario.
      'steps/open.part.yaml': 'vars:\n  path: ""\nsteps:\n  - goto: "data:text/html,{{ path }}"\n',
      'uses.yaml': 'name: uses a part\nsteps:\n  - include: { file: steps/open.part.yaml, with: { path: hi } }\n',
    });
    const dir = project.dir;
    const res = await project.run(['list', '.', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(names(JSON.parse(res.stdout) as Listed)).toEqual(['uses a part']);

    const run = await runCli(['run', join(dir, 'steps', 'open.part.yaml')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('open.part.yaml is a part: its steps run where a scenario includes it');

    const valid = await runCli(['validate', dir]);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toContain('1 scenario file and 1 part valid');

    await project.write({ 'steps/bad.part.yaml': 'steps:\n  - clik: x\n' });
    const invalid = await runCli(['validate', dir]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`${join(dir, 'steps', 'bad.part.yaml')}:2:5 unknown step kind 'clik'`);
  });
});
