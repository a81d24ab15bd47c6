// What package.json promises about installing: `engines` is a Node every runtime dependency supports (it
// said >=20 while four of them wanted 22, and npm ci warned EBADENGINE), the Node lines CI runs are inside
// it, and `allowScripts` decides for every dependency that runs an install script (npm 11 warns about each
// one it does not name; npm 12 skips them).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; engines?: { node?: string } | string[]; hasInstallScript?: boolean }>;
};
/** What a user's install gets: every package in the lock but the development ones. */
const installed = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && !entry.dev);
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('package.json on installing', () => {
  it("names in engines a Node floor that every runtime dependency supports, and CI's Node lines inside it", () => {
    const floor = semver.minVersion(pkg.engines.node)!.version;
    const unsupported = installed.flatMap(([path, entry]) => {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      return range && !semver.satisfies(floor, range) ? [`${nameOf(path)} wants node ${range}`] : [];
    });
    expect(unsupported, `engines.node ${pkg.engines.node}`).toEqual([]);
    // .ci/run runs both commands on these lines' newest releases; their first releases must be allowed too.
    for (const line of ['22.12.0', '24.0.0']) expect(semver.satisfies(line, pkg.engines.node), line).toBe(true);
  });

  it('decides in allowScripts for every runtime dependency with an install script', () => {
    // npm runs `node-gyp rebuild` for a package with a binding.gyp and no install script of its own.
    const withScripts = installed
      .filter(([path, entry]) => entry.hasInstallScript || existsSync(join(ROOT, path, 'binding.gyp')))
      .map(([path]) => nameOf(path));
    expect(withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== 'boolean')).toEqual([]);
    // A decision for a package the project no longer has is a stale line.
    expect(Object.keys(pkg.allowScripts ?? {}).filter((name) => !withScripts.includes(name))).toEqual([]);
  });
});
