// `--retries N` (every attempt's artifacts kept, flaky reported) and `--last-failed`.
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startTitleSite, type TitleSite } from '../helpers/title-site.js';

const project = await inlineFiles({});
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

/** A scenario that opens `path` on the test site, screenshots it and expects the title `ok`. */
async function titleCheck(file: string, name: string, path: string): Promise<string> {
  await project.write({
    [file]: `name: ${name}\nsteps:\n  - goto: "{{ site }}${path}"\n  - screenshot: page\n  - expect: { title: ok, timeout: 300ms }\n`,
  });
  return project.path(file);
}

async function run(args: string[], out: string) {
  const res = await runCli(['run', ...args, '--var', `site=${siteUrl}`, '--reporter', 'json', '--output-dir', out], remote());
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  return { res, results };
}

const screenshotOf = (attempt: { steps: { kind: string; artifacts: { path: string }[] }[] }) =>
  attempt.steps.find((s) => s.kind === 'screenshot')!.artifacts[0]!.path;

// Each test starts `bcs` (and browsers) several times: seconds apiece on a busy two-core machine.
describe('bcs run --retries', { timeout: 180_000 }, () => {
  it('re-runs a failed scenario; passing on a retry is flaky, and every attempt keeps its own artifacts', async () => {
    titles.set('/flaky', ['nope', 'ok']);
    const file = await titleCheck('flaky.yaml', 'flaky page', '/flaky');
    const out = project.path('flaky-out');
    const { res, results } = await run([file, '--retries', '2'], out);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain("retrying 'flaky page' (attempt 2 of 3)");
    const [scenario] = results.scenarios;
    expect(scenario).toMatchObject({ status: 'passed', attempt: 2, flaky: true });
    expect(scenario.previous_attempts).toHaveLength(1);
    expect(scenario.previous_attempts[0]).toMatchObject({ status: 'failed', attempt: 1 });
    expect(results.summary).toMatchObject({ total: 1, passed: 0, failed: 0, flaky: 1 });
    const first = screenshotOf(scenario.previous_attempts[0]);
    const second = screenshotOf(scenario);
    expect(first).toMatch(/^flaky-page\/[^/]+\.png$/);
    expect(second).toMatch(/^flaky-page\/attempt-2\/[^/]+\.png$/);
    for (const shot of [first, second]) expect((await stat(join(out, shot))).size).toBeGreaterThan(0);
  });

  it('counts a flaky scenario one way in the list, results.json and the HTML report; names only folders that exist', async () => {
    titles.set('/flaky-once', ['nope', 'ok']);
    // The passing attempt writes nothing, so its attempt-2/ folder never exists.
    await project.write({ 'flaky-once.yaml': `name: flaky once\nsteps:\n  - goto: "{{ site }}/flaky-once"\n  - expect: { title: ok, timeout: 300ms }\n` });
    const full = project.path('flaky-once.yaml');
    const out = project.path('flaky-once-out');
    const res = await runCli(['run', full, '--retries', '1', '--var', `site=${siteUrl}`, '--reporter', 'list,json,html', '--output-dir', out], remote());
    expect(res.code, res.stderr).toBe(0);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(results.summary).toMatchObject({ total: 1, passed: 0, flaky: 1, failed: 0 });
    expect(res.stdout).toMatch(/0 passed, 0 failed, 1 flaky/);
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<h1>bcs: 0 passed, 1 flaky, 0 failed</h1>');
    expect(html).toContain('<span class="stat passed">0 passed</span>');
    expect(html).toContain('<span class="stat flaky">1 flaky</span>');
    expect(html).not.toContain('attempt-2/');
    await expect(stat(join(out, 'flaky-once', 'attempt-2'))).rejects.toThrow();
  });

  it('stops after the last retry: the scenario fails with every attempt reported', async () => {
    titles.set('/broken', ['nope']);
    const file = await titleCheck('broken.yaml', 'broken page', '/broken');
    const { res, results } = await run([file, '--retries', '1'], project.path('broken-out'));
    expect(res.code).toBe(1);
    const [scenario] = results.scenarios;
    expect(scenario).toMatchObject({ status: 'failed', attempt: 2 });
    expect(scenario.flaky).toBeUndefined();
    expect(scenario.previous_attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1]);
  });
});

describe('bcs run --last-failed', { timeout: 180_000 }, () => {
  it('re-runs only what failed in the last run in the same output dir, until nothing is left to re-run', async () => {
    titles.set('/good', ['ok']);
    titles.set('/bad', ['nope']);
    const good = await titleCheck('good.yaml', 'good page', '/good');
    const bad = await titleCheck('bad.yaml', 'bad page', '/bad');
    const out = project.path('last-failed-out');

    const first = await run([good, bad], out);
    expect(first.res.code).toBe(1);
    const recorded = JSON.parse(await readFile(join(out, '.last-run.json'), 'utf8'));
    expect(recorded.failed).toEqual([{ file: bad, name: 'bad page' }]);

    titles.set('/bad', ['ok']);
    const second = await run([good, bad, '--last-failed'], out);
    expect(second.res.code, second.res.stderr).toBe(0);
    expect(second.results.scenarios.map((s: { name: string }) => s.name)).toEqual(['bad page']);

    const third = await runCli(['run', good, bad, '--last-failed', '--var', `site=${siteUrl}`, '--output-dir', out], remote());
    expect(third.code).toBe(0);
    expect(third.stderr).toContain('no scenario failed in the last run; nothing to re-run');
  });
});

describe('re-running into the same --output-dir', { timeout: 120_000 }, () => {
  it("starts each scenario's folder empty and leaves what bcs did not write alone", async () => {
    titles.set('/rerun', ['ok']);
    const full = project.path('rerun.yaml');
    const out = project.path('rerun-out');
    const shoot = (name: string) => project.write({ 'rerun.yaml': `name: rerun\nsteps:\n  - goto: "{{ site }}/rerun"\n  - screenshot: ${name}\n` });
    await shoot('first');
    expect((await run([full], out)).res.code).toBe(0);
    await project.write({ 'rerun-out/notes.txt': 'mine' });
    await shoot('second');
    const { res, results } = await run([full], out);
    expect(res.code, res.stderr).toBe(0);
    const files = (await readdir(join(out, 'rerun'))).filter((f) => !f.startsWith('.'));
    expect(files).toEqual([screenshotOf(results.scenarios[0]).split('/').pop()]);
    expect(files[0]).toContain('second');
    expect(await readFile(join(out, 'notes.txt'), 'utf8')).toBe('mine');
  });
});
