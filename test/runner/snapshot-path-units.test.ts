// Baseline paths keyed by the browser build: the build id from Browser.getVersion, the template's tokens,
// the other builds' baselines found beside, the build a baseline records, and the config option's checks.
import { readFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildOf } from '../../runner/exec/browser-build.js';
import { buildOfPng, withBuild } from '../../runner/exec/png-text.js';
import { DEFAULT_SNAPSHOT_PATH_TEMPLATE, baselinePath, otherBaselines, templateProblem } from '../../runner/exec/snapshot-path.js';
import { parseConfig } from '../../runner/suite/config.js';
import { dependenciesOf, realPath, touches } from '../../runner/suite/changed.js';
import { loadScenario } from '../../src/scenario/index.js';
import { ScenarioError } from '../../src/scenario/index.js';
import { inlineFiles } from '../helpers/inline-files.js';

const linuxUa = (product: string) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) ${product} Safari/537.36`;

describe('browser build', () => {
  it('tells the headless shell from a full Chromium, with the major version and platform', () => {
    // As Debian's chromium-headless-shell, Debian's chromium --headless=new and @sparticuz/chromium answer.
    expect(buildOf({ product: 'HeadlessChrome/156.0.8078.108', userAgent: linuxUa('HeadlessChrome/156.0.8078.108') })).toEqual({ id: 'chromium-156-shell-linux', platform: 'linux', version: '156.0.8078.108' });
    expect(buildOf({ product: 'Chrome/156.0.8078.108', userAgent: linuxUa('HeadlessChrome/156.0.0.0') }).id).toBe('chromium-156-full-linux');
    expect(buildOf({ product: 'HeadlessChrome/147.0.7727.0', userAgent: linuxUa('HeadlessChrome/147.0.7727.0') }).id).toBe('chromium-147-shell-linux');
    expect(buildOf({ product: 'Chrome/131.0.1', userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Chrome/131.0.1' }).id).toBe('chromium-131-full-darwin');
    expect(() => buildOf({ product: '', userAgent: '' })).toThrow(/cannot tell the browser build/);
  });
});

describe('snapshot_path_template', () => {
  const vars = { scenarioFile: '/suite/flows/looks.yaml', name: 'home', browser: 'chromium-156-shell-linux', platform: 'linux' };

  it('keys baselines by build beside the scenario by default; tokens as Playwright names them, in snake_case', () => {
    expect(baselinePath({ template: DEFAULT_SNAPSHOT_PATH_TEMPLATE, testDir: '/suite' }, vars)).toBe('/suite/flows/looks.yaml-snapshots/home-chromium-156-shell-linux.png');
    // A scenario outside the test dir still lands beside itself.
    expect(baselinePath({ template: DEFAULT_SNAPSHOT_PATH_TEMPLATE, testDir: '/elsewhere/x' }, vars)).toBe('/suite/flows/looks.yaml-snapshots/home-chromium-156-shell-linux.png');
    const template = '__screenshots__/{platform}/{test_file_dir}/{test_file_name}/{arg}{ext}';
    expect(baselinePath({ template, testDir: '/suite' }, vars)).toBe('/suite/__screenshots__/linux/flows/looks.yaml/home.png');
    expect(baselinePath({ template: '{test_dir}/b/{browser}/{test_file_path}/{arg}{ext}', testDir: '/suite' }, vars)).toBe('/suite/b/chromium-156-shell-linux/flows/looks.yaml/home.png');
  });

  it('refuses unknown tokens and a template without {arg}', () => {
    expect(templateProblem(DEFAULT_SNAPSHOT_PATH_TEMPLATE)).toBeUndefined();
    expect(templateProblem('{testDir}/{arg}{ext}')).toMatch(/^unknown token \{testDir\}; expected \{test_dir\}, /);
    expect(templateProblem('{test_dir}/x.png')).toMatch(/needs \{arg\}/);
    const bad = () => parseConfig('bcs.config.yaml', 'workers: 1\nsnapshot_path_template: "{test_dir}/{name}{ext}"\n', '/suite', '/suite');
    expect(bad).toThrow(ScenarioError);
    try {
      bad();
    } catch (err) {
      const [d] = (err as ScenarioError).diagnostics;
      expect(`${d!.line}:${d!.col} ${d!.message}`).toMatch(/^2:25 snapshot_path_template: unknown token \{name\}/);
    }
    expect(parseConfig('bcs.config.yaml', 'snapshot_path_template: "shots/{browser}/{arg}{ext}"\n', '/suite', '/suite').snapshotPathTemplate).toBe('shots/{browser}/{arg}{ext}');
  });

  it('finds the same screenshot written by other builds, in the folder or the folders {browser} makes', async () => {
    const dir = await inlineFiles({
      'looks.yaml-snapshots/home-chromium-147-shell-linux.png': 'x',
      'looks.yaml-snapshots/home-chromium-156-shell-linux.png': 'x',
      'looks.yaml-snapshots/home-dark-chromium-147-shell-linux.png': 'x',
      'looks.yaml-snapshots/home.png': 'x',
      'by-build/chromium-147-full-linux/looks.yaml/home.png': 'x',
      'by-build/chromium-147-full-linux/looks.yaml/card.png': 'x',
    });
    const v = { ...vars, scenarioFile: dir.path('looks.yaml') };
    // Not this build's, not `home-dark`'s, not the unkeyed one (the runner points at that one itself).
    expect(await otherBaselines({ template: DEFAULT_SNAPSHOT_PATH_TEMPLATE, testDir: dir.dir }, v)).toEqual([
      { file: dir.path('looks.yaml-snapshots/home-chromium-147-shell-linux.png'), build: 'chromium-147-shell-linux' },
    ]);
    expect(await otherBaselines({ template: 'by-build/{browser}/{test_file_name}/{arg}{ext}', testDir: dir.dir }, v)).toEqual([
      { file: dir.path('by-build/chromium-147-full-linux/looks.yaml/home.png'), build: 'chromium-147-full-linux' },
    ]);
    expect(await otherBaselines({ template: 'flat/{arg}{ext}', testDir: dir.dir }, v)).toEqual([]);
    expect(await otherBaselines({ template: 'nowhere/{browser}/{arg}{ext}', testDir: dir.dir }, v)).toEqual([]);
  });
});

describe('--only-changed', () => {
  it("reruns a scenario when a baseline in its snapshots folder changes, whatever build wrote it", async () => {
    const dir = await inlineFiles({
      'looks.yaml': 'name: looks\nsteps:\n  - goto: https://example.test/\n  - expect_screenshot: home\n',
      'looks.yaml-snapshots/home-chromium-147-shell-linux.png': 'x',
    });
    const deps = await dependenciesOf(await loadScenario(dir.path('looks.yaml')));
    expect(touches(deps, new Set([realPath(dir.path('looks.yaml-snapshots/home-chromium-156-shell-linux.png'))]))).toBe(true);
    expect(touches(deps, new Set([realPath(dir.path('other.yaml-snapshots/home.png'))]))).toBe(false);
  });
});

describe('the build a baseline records', () => {
  /** Each chunk's type and whether its CRC holds. */
  const chunks = (png: Buffer) => {
    const out: string[] = [];
    for (let at = 8; at < png.length; ) {
      const length = png.readUInt32BE(at);
      const ok = crc32(png.subarray(at + 4, at + 8 + length)) === png.readUInt32BE(at + 8 + length);
      out.push(`${png.toString('latin1', at + 4, at + 8)}${ok ? '' : ' (bad CRC)'}`);
      at += 12 + length;
    }
    return out;
  };

  it('is a PNG text chunk before the end, the image chunks left as they were', async () => {
    const png = await readFile(new URL('../../scenarios/shop/browse.yaml-snapshots/logo-chromium-156-shell-linux.png', import.meta.url));
    expect(buildOfPng(png)).toBeUndefined();
    const tagged = withBuild(png, 'chromium-156-shell-linux');
    expect(buildOfPng(tagged)).toBe('chromium-156-shell-linux');
    expect(chunks(tagged)).toEqual([...chunks(png).slice(0, -1), 'tEXt', 'IEND']);
    expect(tagged.subarray(0, png.length - 12).equals(png.subarray(0, png.length - 12))).toBe(true);
  });
});
