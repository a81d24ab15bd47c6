// The flags a Playwright Test user reaches for: --repeat-each, --max-failures/-x, --fail-on-flaky-tests,
// --only-changed [REF] and --list, and their names in bcs.config.yaml. Real CLI runs on a real service.
import { execFileSync } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { inlineFiles, type InlineProject } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startTitleSite, type TitleSite } from '../helpers/title-site.js';

let svc: TestService;
let site: TitleSite;
let siteUrl: string;
let titles: TitleSite['titles'];

beforeAll(async () => {
  svc = await startTestService();
  site = await startTitleSite();
  ({ url: siteUrl, titles } = site);
});
afterAll(async () => {
  await site.close();
  await svc.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

const passing = (name: string) => `name: ${name}\nserve: ./site\nsteps:\n  - goto: "{{ serve.url }}/index.html"\n  - expect: { title: ok }\n`;
const failing = (name: string) => `name: ${name}\nsteps:\n  - goto: "data:text/html,<title>no</title>"\n  - expect: { title: ok, timeout: 200ms }\n`;
const SITE = { 'site/index.html': '<!doctype html><title>ok</title><h1>ok</h1>' };

interface Result {
  summary: Record<string, number>;
  scenarios: { name: string; status: string; repeat?: number; interrupted: boolean; flaky?: boolean; artifact_dir: string }[];
  skipped?: { name: string; reason: string }[];
}

async function run(project: InlineProject, args: string[]) {
  const out = project.path(`out-${Math.random().toString(36).slice(2)}`);
  const res = await project.run(['run', ...args, '--reporter', 'json,junit', '--output-dir', out], remote());
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8').catch(() => 'null')) as Result | null;
  return { res, results, out };
}

interface Listed {
  total: number;
  scenarios: { name: string; file: string; repeat?: number; artifact_dir: string }[];
}

async function listed(project: InlineProject, args: string[]): Promise<Listed> {
  const res = await project.run(['list', '--json', ...args]);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout) as Listed;
}

describe('--repeat-each', { timeout: 120_000 }, () => {
  it('runs each scenario N times, each repetition a result with its index and its own artifacts, in every report', async () => {
    const project = await inlineFiles({ ...SITE, 'a.yaml': passing('alpha'), 'b.yaml': passing('beta') });
    const { res, results, out } = await run(project, ['a.yaml', 'b.yaml', '--repeat-each', '3', '--workers', '2']);
    expect(res.code, res.stderr).toBe(0);
    expect(results!.summary).toMatchObject({ total: 6, passed: 6 });
    expect(results!.scenarios.map((s) => [s.name, s.repeat])).toEqual([
      ['alpha', 1], ['alpha (repeat 2)', 2], ['alpha (repeat 3)', 3], ['beta', 1], ['beta (repeat 2)', 2], ['beta (repeat 3)', 3],
    ]);
    expect(new Set(results!.scenarios.map((s) => s.artifact_dir)).size).toBe(6);
    expect(results!.scenarios[1]!.artifact_dir).toBe('alpha-repeat-2');
    const junit = await readFile(join(out, 'junit.xml'), 'utf8');
    expect(junit.match(/<testsuite /g)).toHaveLength(6);
    expect(junit).toContain('name="alpha (repeat 3)"');
  });

  it('repetitions split by --shard come back together in bcs merge-reports (html, json)', async () => {
    const project = await inlineFiles({ ...SITE, 'a.yaml': passing('alpha'), 'b.yaml': passing('beta') });
    const env = { ...remote(), BCS_RUN_ID: 'repeat-run' };
    const shards = await Promise.all([1, 2].map((i) => project.run(['run', '.', '--repeat-each', '2', '--shard', `${i}/2`, '--reporter', 'blob', '--output-dir', `shard-${i}`], env)));
    for (const shard of shards) expect(shard.code, shard.stderr).toBe(0);
    const merged = await project.run(['merge-reports', 'shard-1', 'shard-2', '--reporter', 'json,html', '--output-dir', 'merged']);
    expect(merged.code, merged.stderr).toBe(0);
    const results = JSON.parse(await readFile(project.path('merged/results.json'), 'utf8')) as Result;
    expect(results.scenarios.map((s) => [s.name, s.repeat])).toEqual([['alpha', 1], ['alpha (repeat 2)', 2], ['beta', 1], ['beta (repeat 2)', 2]]);
    expect(await readFile(project.path('merged/report.html'), 'utf8')).toContain('beta (repeat 2)');
  });

  it('spreads repetitions over shards, takes repeat_each from the config (the flag wins) and rejects nonsense', async () => {
    const project = await inlineFiles({ 'a.yaml': failing('alpha'), 'b.yaml': failing('beta'), 'bcs.config.yaml': 'paths: .\nrepeat_each: 2\n' });
    const whole = await listed(project, []);
    expect(whole.scenarios.map((s) => s.name)).toEqual(['alpha', 'alpha (repeat 2)', 'beta', 'beta (repeat 2)']);
    const [one, two] = [await listed(project, ['--shard', '1/2']), await listed(project, ['--shard', '2/2'])];
    expect([...one.scenarios, ...two.scenarios].map((s) => s.name).sort()).toEqual(whole.scenarios.map((s) => s.name).sort());
    expect(one.total).toBe(2);
    expect((await listed(project, ['--repeat-each', '1'])).total).toBe(2);
    for (const bad of ['0', 'abc', '1001']) {
      const res = await project.run(['list', '--repeat-each', bad]);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`--repeat-each must be a whole number from 1 to 1000, got '${bad}'`);
    }
    await project.write({ 'bcs.config.yaml': 'paths: .\nrepeat_each: 0\n' });
    const res = await project.run(['list']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/bcs\.config\.yaml:2:\d+ repeat_each must be >= 1/);
  });
});

describe('--max-failures and -x', { timeout: 120_000 }, () => {
  it('stops after N failed scenarios: the rest not started with the reason, exit 1', async () => {
    const project = await inlineFiles({
      ...SITE,
      '1.yaml': passing('one passes'), '2.yaml': failing('two fails'), '3.yaml': failing('three fails'),
      '4.yaml': failing('four fails'), '5.yaml': passing('five passes'),
    });
    const { res, results } = await run(project, ['.', '--max-failures', '2']);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toContain("--max-failures 2: 2 scenarios failed ('three fails' last); stopping the run");
    expect(results!.scenarios.map((s) => `${s.name}: ${s.status}`)).toEqual(['one passes: passed', 'two fails: failed', 'three fails: failed']);
    expect(results!.skipped).toEqual([
      { name: 'four fails', file: '4.yaml', reason: 'max failures' },
      { name: 'five passes', file: '5.yaml', reason: 'max failures' },
    ]);
    expect(results!.summary).toMatchObject({ total: 3, failed: 2, skipped: 2 });
  });

  it('-x is --max-failures 1, counts failures after retries, interrupts what runs and releases its browser', async () => {
    titles.set('/x-flaky', ['nope', 'ok']);
    const project = await inlineFiles({
      ...SITE,
      'a.yaml': `name: flaky first\nsteps:\n  - goto: "${siteUrl}/x-flaky"\n  - expect: { title: ok, timeout: 300ms }\n`,
      'b.yaml': failing('fails'),
      // Still running when `fails` fails: on a second worker, waiting for a title that never comes.
      'c.yaml': `name: slow\nsteps:\n  - goto: "data:text/html,<title>no</title>"\n  - expect: { title: never, timeout: 60s }\n`,
      'd.yaml': passing('never started'),
    });
    const { res, results } = await run(project, ['a.yaml', 'c.yaml', 'b.yaml', 'd.yaml', '-x', '--retries', '1', '--workers', '2']);
    expect(res.code, res.stderr).toBe(1);
    const by = Object.fromEntries(results!.scenarios.map((s) => [s.name, s]));
    // Flaky is no failure: the run went on after it.
    expect(by['flaky first']).toMatchObject({ status: 'passed', flaky: true });
    expect(by.fails).toMatchObject({ status: 'failed', interrupted: false });
    expect(by.slow).toMatchObject({ interrupted: true });
    expect(results!.skipped).toEqual([{ name: 'never started', file: 'd.yaml', reason: 'max failures' }]);
    expect(res.stderr).toMatch(/stopped after 1 failed scenario; 1 interrupted, 1 not started/);
    // Every session the run created is gone: none left running on the service.
    const running = (await svc.call('GET', '/browsers?limit=100')).body as unknown[];
    expect(running).toEqual([]);

    const both = await project.run(['run', 'b.yaml', '-x', '--max-failures', '3']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('-x is --max-failures 1');
  });
});

describe('--fail-on-flaky-tests', { timeout: 120_000 }, () => {
  it('fails a run whose only trouble is a scenario that passed on a retry, naming it; from the config too', async () => {
    const project = await inlineFiles({});
    const write = (path: string) => project.write({ 'flaky.yaml': `name: flaky page\nsteps:\n  - goto: "${siteUrl}${path}"\n  - expect: { title: ok, timeout: 300ms }\n` });
    titles.set('/f1', ['nope', 'ok']);
    await write('/f1');
    const plain = await run(project, ['flaky.yaml', '--retries', '1']);
    expect(plain.res.code, plain.res.stderr).toBe(0);
    expect(plain.results!.summary).toMatchObject({ flaky: 1 });

    titles.set('/f2', ['nope', 'ok']);
    await write('/f2');
    const strict = await run(project, ['flaky.yaml', '--retries', '1', '--fail-on-flaky-tests']);
    expect(strict.res.code).toBe(1);
    expect(strict.res.stderr).toContain("--fail-on-flaky-tests: 1 scenario was flaky (passed only on a retry): 'flaky page' (flaky.yaml)");

    titles.set('/f3', ['nope', 'ok']);
    await write('/f3');
    await project.write({ 'bcs.config.yaml': 'retries: 1\nfail_on_flaky_tests: true\n' });
    const configured = await run(project, ['flaky.yaml']);
    expect(configured.res.code).toBe(1);
    expect(configured.res.stderr).toContain('--fail-on-flaky-tests: 1 scenario was flaky');
  });
});

const hasGit = (() => {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasGit)('--only-changed (needs git)', { timeout: 120_000 }, () => {
  let project: InlineProject;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.test', '-c', 'user.name=t', ...args], { cwd: project.dir, stdio: 'pipe' }).toString();
  const names = async (args: string[]) => (await listed(project, ['.', ...args])).scenarios.map((s) => s.name);

  beforeAll(async () => {
    project = await inlineFiles({
      ...SITE,
      'served.yaml': passing('served'),
      'login.yaml': 'name: login\nsteps:\n  - include: parts/open.part.yaml\n',
      'parts/open.part.yaml': 'steps:\n  - goto: "data:text/html,<title>ok</title>"\n',
      'rows.yaml': 'name: "row {{ who }}"\neach: data/people.csv\nsteps:\n  - goto: "data:text/html,{{ who }}"\n',
      'data/people.csv': 'who\nann\nbob\n',
      'plain.yaml': 'name: plain\nsteps:\n  - goto: "data:text/html,plain"\n',
    });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'suite');
  });

  it('picks the scenarios whose file, part, rows or served folder changed; untouched ones and a clean tree run nothing', async () => {
    expect(await names(['--only-changed'])).toEqual([]);
    const clean = await project.run(['run', '.', '--only-changed'], remote());
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stderr).toContain('no scenario depends on the uncommitted changes; nothing to run');

    await project.write({ 'parts/open.part.yaml': 'steps:\n  - goto: "data:text/html,<title>ok!</title>"\n' });
    expect(await names(['--only-changed'])).toEqual(['login']);
    await project.write({ 'data/people.csv': 'who\nann\ncy\n' });
    expect(await names(['--only-changed'])).toEqual(['login', 'row ann', 'row cy']);
    git('commit', '-qam', 'part and rows');
    expect(await names(['--only-changed'])).toEqual([]);
    expect(await names(['--only-changed', 'HEAD~1'])).toEqual(['login', 'row ann', 'row cy']);

    // A new file in the served folder, untracked: the scenario serving it.
    await project.write({ 'site/more.html': 'more' });
    expect(await names(['--only-changed'])).toEqual(['served']);
    // The suite config applies to every scenario.
    await project.write({ 'bcs.config.yaml': 'workers: 1\n' });
    expect(await names(['--only-changed'])).toHaveLength(5);
  });

  it('runs what changed, as --list says; a path after the flag is a path; an unknown ref or no repository is exit 2', async () => {
    const { res, results } = await run(project, ['--only-changed', '.', '--grep', 'served']);
    expect(res.code, res.stderr).toBe(0);
    expect(results!.scenarios.map((s) => s.name)).toEqual(['served']);
    const viaRun = await project.run(['run', '.', '--only-changed', '--grep', 'served', '--list']);
    expect(viaRun.stdout).toBe('served.yaml  served\n1 scenario\n');

    const unknown = await project.run(['list', '.', '--only-changed', 'no-such-branch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--only-changed: 'no-such-branch' is not a commit in this repository");
    const elsewhere = await inlineFiles({ 'a.yaml': 'name: a\nsteps:\n  - goto: "data:text/html,a"\n' });
    const outside = await elsewhere.run(['list', '.', '--only-changed']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('is not in a git repository');
  });
});

describe('bcs run --list', () => {
  it('is bcs list: the same lines for the same flags, with repetitions and shards, and runs nothing', async () => {
    const project = await inlineFiles({ 'a.yaml': failing('alpha'), 'b.yaml': failing('beta'), 'c.yaml': failing('gamma') });
    const flags = ['.', '--repeat-each', '2', '--shard', '1/2', '--grep-invert', 'gamma'];
    const viaRun = await project.run(['run', ...flags, '--list', '--workers', '4', '--reporter', 'html']);
    const viaList = await project.run(['list', ...flags]);
    expect(viaRun.code, viaRun.stderr).toBe(0);
    expect(viaRun.stdout).toBe(viaList.stdout);
    expect(viaRun.stdout).toBe('a.yaml  alpha\na.yaml  alpha (repeat 2)\n2 scenarios\n');
    // Nothing ran: no report folder written.
    expect(await readdir(project.dir)).not.toContain('bcs-results');
    const json = JSON.parse((await project.run(['run', ...flags, '--list', '--json'])).stdout) as Listed;
    expect(json.scenarios.map((s) => [s.name, s.repeat, s.artifact_dir])).toEqual([['alpha', 1, 'alpha'], ['alpha (repeat 2)', 2, 'alpha-repeat-2']]);
  });
});
