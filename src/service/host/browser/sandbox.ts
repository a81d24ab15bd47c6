// The sandbox a session's Chromium runs in: the process sandbox, plus (read-only) the browser's own files
// when they live where the sandbox shows nothing. A system Chromium is under /usr and needs nothing more;
// the packaged headless shell is unpacked into the host's temp dir, which the view's /tmp hides, so it
// and the files it loads beside itself (SwiftShader's GL libraries, its fonts) are bound under /opt.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { ChromiumExecutable } from './chromium-path.js';
import { PACKAGED_SHELL_SIBLINGS } from './chromium-path.js';
import type { Sandbox } from '../process/index.js';

/** Host paths every sandbox shows read-only. */
const SYSTEM_PREFIXES = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/'];
/** Where a browser outside those appears inside; the Playwright worker's files use /opt/bcs. */
const BROWSER_DIR = '/opt/bcs-browser';
/** The packaged fonts' folder, at a path its own fonts.conf lists. */
const FONTS_DIR = '/opt/fonts';

export interface BrowserSandbox {
  sandbox: Sandbox;
  /** The executable's path inside. */
  path: string;
  /** Environment the browser needs inside (where the packaged fonts are). */
  env: Record<string, string>;
}

const cache = new WeakMap<Sandbox, Map<string, BrowserSandbox>>();

export function browserSandbox(sandbox: Sandbox, exe: ChromiumExecutable): BrowserSandbox {
  let byPath = cache.get(sandbox);
  if (!byPath) cache.set(sandbox, (byPath = new Map()));
  let found = byPath.get(exe.path);
  if (!found) byPath.set(exe.path, (found = build(sandbox, exe)));
  return found;
}

function build(sandbox: Sandbox, exe: ChromiumExecutable): BrowserSandbox {
  if (SYSTEM_PREFIXES.some((prefix) => exe.path.startsWith(prefix))) return { sandbox, path: exe.path, env: {} };
  // bwrap would create the folders above a mount point with mode 0700, which `kernel` could not pass.
  const args = ['--perms', '0755', '--dir', '/opt', '--perms', '0755', '--dir', BROWSER_DIR];
  const env: Record<string, string> = {};
  const dir = dirname(exe.path);
  const path = join(BROWSER_DIR, basename(exe.path));
  if (dir === tmpdir()) {
    // The packaged shell: only its own files, never the rest of the temp dir.
    args.push('--ro-bind', exe.path, path);
    for (const name of PACKAGED_SHELL_SIBLINGS) {
      const file = join(dir, name);
      if (existsSync(file)) args.push('--ro-bind', file, join(BROWSER_DIR, name));
    }
    const fonts = join(dir, 'fonts');
    if (existsSync(join(fonts, 'fonts.conf'))) {
      args.push('--perms', '0755', '--dir', FONTS_DIR, '--ro-bind', fonts, FONTS_DIR);
      env.FONTCONFIG_PATH = FONTS_DIR;
    }
  } else {
    // A configured browser elsewhere: its folder holds its resources (paks, locales, libraries).
    args.push('--ro-bind', dir, BROWSER_DIR);
  }
  return { sandbox: { ...sandbox, systemArgs: [...sandbox.systemArgs, ...args] }, path, env };
}
