// expect_screenshot against a real page: a missing baseline is written and fails, a matching page passes
// with the changing part masked, a changed page fails with Playwright's message and the expected, actual
// and diff images (in the HTML report too), and --update-snapshots rewrites the baseline. Baselines are
// keyed by the browser build that wrote them: another build's (or an unkeyed one of before) fails naming both.
import { copyFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenarioYaml } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { appSuite } from '../helpers/app-suite.js';
import { withBuild } from '../../runner/exec/png-text.js';

// The clock changes every run and the spinner never stops: the mask and Playwright's stopped animations
// keep both out of the comparison. The clock keeps one line of one length, so nothing below it moves.
const page = (color: string) => `<!doctype html><body style="margin:0;font:16px sans-serif">
<div data-testid=card style="width:200px;height:120px;background:${color}">card</div>
<p data-testid=clock style="white-space:nowrap">${new Date().toISOString()} ${Math.random().toFixed(6)}</p>
<div style="width:40px;height:40px;background:navy;animation:spin 1s linear infinite"></div>
<style>@keyframes spin { to { transform: rotate(360deg) } }</style></body>`;

const project = await inlineFiles({});
const web = appSuite((req, res) => {
  const color = new URL(req.url ?? '/', 'http://x').searchParams.get('color') ?? 'teal';
  res.writeHead(200, { 'content-type': 'text/html' }).end(page(color));
});

const scenario = (color: string) => `name: looks
base_url: ${web.url()}
browser: { viewport: { width: 400, height: 300 } }
steps:
  - goto: /?color=${color}
  - expect_screenshot: { name: home, mask: [{ test_id: clock }] }
  - expect_screenshot: { name: card, element: { test_id: card }, max_diff_pixel_ratio: 0.01 }
`;

describe('expect_screenshot', { timeout: 180_000 }, () => {
  it('writes a missing baseline and fails, then passes, fails on a change with the diff, and updates on request', async () => {
    const first = await runScenarioYaml(project.dir, 'looks', scenario('teal'), web.env());
    expect(first.res.code).toBe(1);
    // The build is what the service runs (Debian's headless shell here, @sparticuz/chromium's on a fresh machine).
    const build = (first.main[1]!.output as { build: string }).build;
    expect(build).toMatch(/^chromium-\d+-(shell|full)-linux$/);
    const baseline = project.path(`looks.yaml-snapshots/home-${build}.png`);
    expect(first.main[1]!.error?.message).toContain(`no baseline yet: wrote this screenshot (${build}) to ${baseline}`);
    expect(first.main[1]!.artifacts.map((a) => a.path)).toContain('looks/home-actual.png');
    expect((await readdir(project.path('looks.yaml-snapshots'))).sort()).toEqual([`card-${build}.png`, `home-${build}.png`]);

    const second = await runScenarioYaml(project.dir, 'looks', scenario('teal'), web.env());
    expect(second.res.code, second.res.stdout).toBe(0);

    const changed = await runScenarioYaml(project.dir, 'looks', scenario('crimson'), web.env(), ['--reporter', 'list,json,html']);
    expect(changed.res.code).toBe(1);
    const step = changed.main[1]!;
    expect(step.error?.message).toMatch(/\d+ pixels \(ratio [\d.]+ of all image pixels\) are different\. \(baseline .*home-chromium-[\w-]+\.png\)/);
    expect(step.artifacts.map((a) => a.path)).toEqual(['looks/home-expected.png', 'looks/home-actual.png', 'looks/home-diff.png', expect.stringMatching(/failure-/)]);
    expect(changed.main[2]!.status).toBe('skipped');
    const html = await readFile(join(changed.out, 'report.html'), 'utf8');
    expect(html).toContain('looks/home-diff.png');

    const before = await readFile(baseline);
    const updated = await runScenarioYaml(project.dir, 'looks', scenario('crimson'), web.env(), ['--update-snapshots']);
    expect(updated.res.code, updated.res.stdout).toBe(0);
    expect(updated.main[1]!.output).toEqual({ baseline, build, written: 'changed' });
    expect((await readFile(baseline)).equals(before)).toBe(false);
    const again = await runScenarioYaml(project.dir, 'looks', scenario('crimson'), web.env());
    expect(again.res.code).toBe(0);
  });

  it('an unkeyed baseline of before fails, naming this build and the migration; --update-snapshots missing writes the keyed one', async () => {
    const legacy = await inlineFiles({});
    const first = await runScenarioYaml(legacy.dir, 'looks', scenario('teal'), web.env(), ['--update-snapshots', 'missing']);
    expect(first.res.code, first.res.stdout).toBe(0);
    const build = (first.main[1]!.output as { build: string }).build;
    // As bcs wrote it before baselines were keyed by build: where it is now unkeyed, and without the chunk naming its build.
    await rm(legacy.path(`looks.yaml-snapshots/home-${build}.png`));
    await copyFile(join(first.out, 'looks/home-actual.png'), legacy.path('looks.yaml-snapshots/home.png'));

    const unkeyed = await runScenarioYaml(legacy.dir, 'looks', scenario('teal'), web.env());
    expect(unkeyed.res.code).toBe(1);
    const message = unkeyed.main[1]!.error?.message ?? '';
    expect(message).toContain(`no baseline for this browser build, ${build} (`);
    expect(message).toContain(`the one at ${legacy.path('looks.yaml-snapshots/home.png')} was written by an unknown build`);
    expect(message).toContain('`bcs run --update-snapshots missing` writes the missing baseline for this build');
    expect(unkeyed.main[1]!.artifacts.map((a) => a.path)).toEqual(expect.arrayContaining(['looks/home-expected.png', 'looks/home-actual.png']));
    expect(existsSync(legacy.path(`looks.yaml-snapshots/home-${build}.png`))).toBe(false);

    const migrated = await runScenarioYaml(legacy.dir, 'looks', scenario('teal'), web.env(), ['--update-snapshots', 'missing']);
    expect(migrated.res.code, migrated.res.stdout).toBe(0);
    expect(migrated.main[1]!.output).toEqual({ baseline: legacy.path(`looks.yaml-snapshots/home-${build}.png`), build, written: 'missing' });
    expect(migrated.main[2]!.output).toBeUndefined(); // card's keyed baseline was there: left alone
  });

  it('snapshot_path_template puts baselines where the config says; a difference names the build that wrote the baseline', async () => {
    const suite = await inlineFiles({ 'bcs.config.yaml': 'snapshot_path_template: "shots/{platform}/{test_file_name}/{arg}{ext}"\n' });
    const config = ['--config', suite.path('bcs.config.yaml')];
    const first = await runScenarioYaml(suite.dir, 'looks', scenario('teal'), web.env(), [...config, '--update-snapshots', 'missing']);
    expect(first.res.code, first.res.stdout).toBe(0);
    const build = (first.main[1]!.output as { build: string }).build;
    const baseline = suite.path('shots/linux/looks.yaml/home.png');
    expect(first.main[1]!.output).toEqual({ baseline, build, written: 'missing' });
    expect(existsSync(suite.path('looks.yaml-snapshots'))).toBe(false);

    // Without {browser} builds share the baseline: one another build wrote (as its text chunk says) fails naming it.
    await writeFile(baseline, withBuild(await readFile(join(first.out, 'looks/home-actual.png')), 'chromium-99-full-linux'));
    const changed = await runScenarioYaml(suite.dir, 'looks', scenario('crimson'), web.env(), config);
    expect(changed.res.code).toBe(1);
    expect(changed.main[1]!.error?.message).toMatch(new RegExp(`are different\\. \\(baseline ${baseline}; written by chromium-99-full-linux, this run ${build}\\)$`));
  });
});
