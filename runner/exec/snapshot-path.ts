// Where a screenshot baseline lives: `snapshot_path_template` (bcs.config.yaml), Playwright's
// snapshotPathTemplate with its tokens in snake_case, plus `{browser}`, the build that renders (a baseline
// written by one Chromium build fails on another for the same page). The default keys baselines by build,
// beside the scenario as Playwright keeps them beside the spec.
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

export const DEFAULT_SNAPSHOT_PATH_TEMPLATE = '{test_dir}/{test_file_path}-snapshots/{arg}-{browser}{ext}';

/** The tokens a template may use; `{arg}` is required (else every baseline of a scenario is one file). */
export const SNAPSHOT_TOKENS = ['test_dir', 'test_file_dir', 'test_file_name', 'test_file_path', 'arg', 'ext', 'platform', 'browser'] as const;
type Token = (typeof SNAPSHOT_TOKENS)[number];

/** What the run gives the template: the template itself and the folder relative paths are taken from. */
export interface SnapshotPaths {
  template: string;
  /** `{test_dir}`: the folder of bcs.config.yaml, else the working directory. */
  testDir: string;
}

/** Why `template` cannot name baselines, or undefined when it can. */
export function templateProblem(template: string): string | undefined {
  const unknown = [...template.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!).filter((t) => !(SNAPSHOT_TOKENS as readonly string[]).includes(t));
  if (unknown.length) return `unknown token {${unknown[0]}}; expected ${SNAPSHOT_TOKENS.map((t) => `{${t}}`).join(', ')}`;
  if (!template.includes('{arg}')) return 'needs {arg} (the baseline name), or every screenshot of a scenario would share one file';
  return undefined;
}

export interface BaselineVars {
  scenarioFile: string;
  name: string;
  browser: string;
  platform: string;
}

function values(paths: SnapshotPaths, v: BaselineVars): Record<Token, string> {
  const rel = relative(paths.testDir, v.scenarioFile);
  return {
    test_dir: paths.testDir,
    test_file_dir: dirname(rel),
    test_file_name: basename(v.scenarioFile),
    test_file_path: rel,
    arg: v.name,
    ext: '.png',
    platform: v.platform,
    browser: v.browser,
  };
}

function fill(template: string, vals: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, t: string) => vals[t] ?? `{${t}}`);
}

/** The baseline's file (absolute) for this build. */
export function baselinePath(paths: SnapshotPaths, v: BaselineVars): string {
  return resolve(paths.testDir, fill(paths.template, values(paths, v)));
}

export interface OtherBaseline {
  file: string;
  /** The build that wrote it, when the path says (`{browser}` in the template). */
  build?: string;
}

/** A build id's shape (browser-build.ts), so that `home-{browser}` does not take `home-dark-…` for a build. */
const BUILD_ID = '(?<b>[a-z]+-\\d+-(?:shell|full)-[a-z0-9]+)';
const BROWSER = '\u0000b\u0000';
const PLATFORM = '\u0000p\u0000';

/**
 * The baselines of the same screenshot written by other builds (or for other platforms): the files the
 * template names for any `{browser}` and `{platform}`, found by listing only the folders those tokens
 * fall in.
 */
export async function otherBaselines(paths: SnapshotPaths, v: BaselineVars): Promise<OtherBaseline[]> {
  if (!/\{(browser|platform)\}/.test(paths.template)) return [];
  const mine = baselinePath(paths, v);
  const pattern = baselinePath(paths, { ...v, browser: BROWSER, platform: PLATFORM });
  const parts = pattern.split(sep);
  const found: OtherBaseline[] = [];
  const walk = async (dir: string, i: number, build: string | undefined): Promise<void> => {
    if (i === parts.length) {
      if (dir !== mine) found.push({ file: dir, ...(build !== undefined ? { build } : {}) });
      return;
    }
    const part = parts[i]!;
    if (!part.includes(BROWSER) && !part.includes(PLATFORM)) return walk(join(dir, part), i + 1, build);
    const re = new RegExp(`^${part.split(/(\u0000[bp]\u0000)/).map((s) => (s === BROWSER ? BUILD_ID : s === PLATFORM ? '[a-z0-9]+' : escape(s))).join('')}$`);
    const entries = await readdir(dir).catch(() => [] as string[]);
    for (const entry of entries.sort()) {
      const m = re.exec(entry);
      if (m) await walk(join(dir, entry), i + 1, m.groups?.b ?? build);
    }
  };
  await walk(parts[0] === '' ? sep : parts[0]!, 1, undefined);
  return found;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
