// Which Chromium runs a session: the headless shell for plain headless browsers when one sits beside the
// system Chromium (or is named), the full Chromium for a screen, extensions and enterprise policies.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHeadlessShell, type ChromiumExecutable } from '../../src/service/host/browser/chromium-path.js';
import { executableFor } from '../../src/service/host/browser/executables.js';
import { launchSpecOf } from '../../src/service/host/browser/launch-spec.js';

let root: string;
const binary = async (dir: string, name: string) => {
  await mkdir(dir, { recursive: true });
  const path = join(dir, name);
  // An ELF header: a binary, not a launcher script to look behind.
  await writeFile(path, '\x7fELF');
  await chmod(path, 0o755);
  return path;
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bcs-executables-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('executableFor', () => {
  const full: ChromiumExecutable = { path: '/usr/lib/chromium/chromium', source: 'system', headlessShell: false };
  const shell: ChromiumExecutable = { path: '/usr/lib/chromium/chromium-headless-shell', source: 'system', headlessShell: true };

  it('runs plain headless browsers on the shell, and what needs more on the full Chromium', () => {
    const exes = { full, headlessShell: shell };
    expect(executableFor(exes, launchSpecOf({}))).toBe(shell);
    expect(executableFor(exes, launchSpecOf({ stealth: true, viewport: { width: 800, height: 600 }, profile: { id: 'p1' } }))).toBe(shell);
    expect(executableFor(exes, launchSpecOf({ headless: false }))).toBe(full);
    expect(executableFor(exes, launchSpecOf({ extensions: [{ id: 'e1' }] }))).toBe(full);
    expect(executableFor(exes, { ...launchSpecOf({}), extensionDirs: ['loaded'] })).toBe(full);
    expect(executableFor(exes, launchSpecOf({ chrome_policy: { DefaultJavaScriptSetting: 2 } }))).toBe(full);
    expect(executableFor({ full }, launchSpecOf({}))).toBe(full);
  });
});

describe('findHeadlessShell', () => {
  it('takes the shell installed beside the system Chromium, and none from another folder', async () => {
    const lib = join(root, 'lib');
    const full: ChromiumExecutable = { path: await binary(lib, 'chromium'), source: 'system', headlessShell: false };
    const shellPath = await binary(lib, 'chromium-headless-shell');
    expect(await findHeadlessShell(full, undefined, { PATH: `${join(root, 'empty')}:${lib}` })).toEqual({ path: shellPath, source: 'system', headlessShell: true });
    const elsewhere: ChromiumExecutable = { ...full, path: join(root, 'other', 'chromium') };
    expect(await findHeadlessShell(elsewhere, undefined, { PATH: lib })).toBeUndefined();
    expect(await findHeadlessShell(full, undefined, { PATH: join(root, 'empty') })).toBeUndefined();
  });

  it('pairs none with a configured Chromium or a shell, and none when turned off; a named one must run', async () => {
    const lib = join(root, 'lib2');
    const full: ChromiumExecutable = { path: await binary(lib, 'chromium'), source: 'system', headlessShell: false };
    const named = await binary(join(root, 'named'), 'my-shell');
    await binary(lib, 'chromium-headless-shell');
    expect(await findHeadlessShell({ ...full, source: 'configured' }, undefined, { PATH: lib })).toBeUndefined();
    expect(await findHeadlessShell({ ...full, headlessShell: true }, named, { PATH: lib })).toBeUndefined();
    expect(await findHeadlessShell(full, 'off', { PATH: lib })).toBeUndefined();
    expect(await findHeadlessShell(full, named, { PATH: '' })).toEqual({ path: named, source: 'configured', headlessShell: true });
    await expect(findHeadlessShell(full, join(root, 'missing'), {})).rejects.toThrow(/configured headless shell '.*missing' is not an executable file/);
  });
});
