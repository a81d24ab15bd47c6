// Finds the Chromium to launch: the configured path, else a system Chromium or Chrome, else the headless
// shell shipped in the npm package @sparticuz/chromium (so a fresh machine needs no apt and no download).
import { access, chmod, constants, lchown, lstat, mkdir, open, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';

export type ChromiumSource = 'configured' | 'system' | 'npm';

export interface ChromiumExecutable {
  path: string;
  source: ChromiumSource;
  /** The headless shell cannot run headful sessions or load extensions. */
  headlessShell: boolean;
}

/** Files @sparticuz/chromium unpacks beside the shell, which the shell loads from its own folder. */
export const PACKAGED_SHELL_SIBLINGS = ['libEGL.so', 'libGLESv2.so', 'libvk_swiftshader.so', 'libvulkan.so.1', 'vk_swiftshader_icd.json'];

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome', 'chrome'];

export async function findChromium(configured?: string, env: NodeJS.ProcessEnv = process.env): Promise<ChromiumExecutable> {
  if (configured) {
    if (!(await isExecutable(configured))) throw new Error(`configured Chromium '${configured}' is not an executable file`);
    // The package's own unpacked shell, named directly (tests do): made runnable by sessions the same way.
    if (configured === join(tmpdir(), 'chromium')) await securePackagedShell(configured);
    return { path: await launchedBinary(configured), source: 'configured', headlessShell: isHeadlessShell(configured) };
  }
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of SYSTEM_NAMES) {
      const candidate = join(dir, name);
      if (await isExecutable(candidate)) return { path: await launchedBinary(candidate), source: 'system', headlessShell: false };
    }
  }
  return { path: await extractPackagedShell(), source: 'npm', headlessShell: true };
}

/**
 * The headless shell to run plain headless sessions on, beside a full Chromium that runs the rest (headful
 * sessions, extensions, enterprise policies): Chromium's old headless mode, which Playwright also runs
 * headless tests on, starts in a third of the time and makes a context and its page in under half. `setting`
 * is a path, `off`, or unset: then a system shell is used only when it was installed beside the system
 * Chromium found (the same folder, so the same package version reads the same profiles).
 */
export async function findHeadlessShell(full: ChromiumExecutable, setting?: string, env: NodeJS.ProcessEnv = process.env): Promise<ChromiumExecutable | undefined> {
  if (full.headlessShell || setting === 'off') return undefined;
  if (setting) {
    if (!(await isExecutable(setting))) throw new Error(`configured headless shell '${setting}' is not an executable file`);
    return { path: await launchedBinary(setting), source: 'configured', headlessShell: true };
  }
  if (full.source !== 'system') return undefined;
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'chromium-headless-shell');
    if (!(await isExecutable(candidate))) continue;
    const path = await launchedBinary(candidate);
    return dirname(path) === dirname(full.path) ? { path, source: 'system', headlessShell: true } : undefined;
  }
  return undefined;
}

/**
 * Distributions install a shell launcher as `chromium` or `google-chrome` that execs the real binary,
 * after a dozen helper processes (uname, grep, findmnt, expr... on Debian) and flags of its own
 * (/etc/chromium.d), which the service, setting every flag itself, does not want. On two busy cores the
 * launcher alone cost 0.3-1 s of every launch. When the name found is such a script and its package's
 * binary is where that package puts it, the binary is launched directly; anything else as it is.
 */
const LAUNCHED_BINARIES: Record<string, string> = {
  chromium: '/usr/lib/chromium/chromium',
  'chromium-headless-shell': '/usr/lib/chromium/chromium-headless-shell',
  'chromium-browser': '/usr/lib/chromium-browser/chromium-browser',
  'google-chrome': '/opt/google/chrome/chrome',
  'google-chrome-stable': '/opt/google/chrome/chrome',
};

async function launchedBinary(launcher: string): Promise<string> {
  const binary = LAUNCHED_BINARIES[basename(launcher)];
  if (!binary || !(await readHead(launcher)).startsWith('#!')) return launcher;
  const head = await readHead(binary);
  // An ELF executable, not another script (snap's chromium-browser is one).
  return head.startsWith('\x7fELF') && (await isExecutable(binary)) ? realpath(binary) : launcher;
}

/** A file's first bytes (enough to tell a script from an ELF binary), or '' when unreadable. */
async function readHead(path: string): Promise<string> {
  try {
    const file = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(4);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead).toString('latin1');
    } finally {
      await file.close();
    }
  } catch {
    return '';
  }
}

/** The headless shell calls itself so, or is the binary @sparticuz/chromium unpacks into the temp dir. */
function isHeadlessShell(path: string): boolean {
  return /headless[-_]shell|sparticuz/.test(path) || path === join(tmpdir(), 'chromium');
}

let extraction: Promise<string> | undefined;

/** The package inflates its brotli archive into the temp dir on first use; do that once per process. */
function extractPackagedShell(): Promise<string> {
  extraction ??= (async () => {
    try {
      const { default: chromium } = await import('@sparticuz/chromium');
      const path = await chromium.executablePath();
      await securePackagedShell(path);
      return path;
    } catch (err) {
      extraction = undefined;
      throw new Error(
        `no Chromium found: set --chromium or BCS_CHROMIUM, install chromium, or reinstall @sparticuz/chromium (${(err as Error).message})`,
      );
    }
  })();
  return extraction;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The package unpacks into the world-writable temp dir, 0700 for the shell and with the archive's own
 * owner (some uid of the build machine) for the rest. Sessions run it as an unprivileged user (and a
 * file someone else could replace would run inside every session), so: a shell someone else created is
 * refused, and the unpacked files become the service's, readable and executable by all, writable by it.
 */
async function securePackagedShell(path: string): Promise<void> {
  const me = process.getuid?.() ?? 0;
  const info = await lstat(path);
  if (!info.isFile() || info.uid !== me || (info.mode & 0o022) !== 0) {
    throw new Error(`${path} was not unpacked by this user or others may change it; remove it and start again`);
  }
  await chmod(path, 0o755);
  if (me !== 0) return;
  const dir = dirname(path);
  for (const name of PACKAGED_SHELL_SIBLINGS) await lchown(join(dir, name), 0, 0).catch(() => undefined);
  await chownTree(join(dir, 'fonts'));
  // The packaged fonts.conf caches into <tmp>/fonts-cache. Unsandboxed, every session's uid would use that
  // one folder, and whoever made it first could plant caches the others' browsers load: it is root's,
  // read-only to sessions (four fonts scan quickly). Sandboxed, /tmp is the session's own.
  const cache = join(dir, 'fonts-cache');
  const cached = await lstat(cache).catch(() => null);
  if (cached && (!cached.isDirectory() || cached.uid !== 0 || (cached.mode & 0o022) !== 0)) await rm(cache, { recursive: true, force: true });
  await mkdir(cache, { mode: 0o755 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
}

async function chownTree(path: string): Promise<void> {
  const info = await lstat(path).catch(() => null);
  if (!info) return;
  await lchown(path, 0, 0);
  if (!info.isDirectory()) return;
  for (const entry of await readdir(path)) await chownTree(join(path, entry));
}
