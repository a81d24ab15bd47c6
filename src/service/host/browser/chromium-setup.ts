// What a session's Chromium needs around its launch (launch.ts): how it runs in the sandbox or on the host,
// the display it draws on, its policies, where its downloads go, and the service's own DevTools connection
// that lets the headless shell download at all.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxLaunch } from '../process/index.js';
import type { BrowserSandbox } from './sandbox.js';
import { CdpConnection } from './cdp-connection.js';
import type { ChromiumExecutable } from './chromium-path.js';
import { DOWNLOADS_DIR, HOME_DIR, type HostView, TMP_DIR } from '../fs/index.js';
import { policyDir, policyMountArgs, policyRoot, writePolicyDir, type ChromePolicy } from './chrome-policy.js';

/**
 * Chromium runs as `kernel` in the sandbox, without capabilities, with its home at the view's
 * /home/kernel, like the hosted VM's; the executable is at its path inside (sandbox.ts).
 */
export function browserLaunch(view: HostView, browser: BrowserSandbox, args: string[], env: Record<string, string>): SandboxLaunch {
  const { FONTCONFIG_PATH: _hostFonts, ...rest } = env;
  return {
    view,
    cwd: HOME_DIR,
    env: { HOME: HOME_DIR, PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', USER: browser.sandbox.kernel.name, ...rest, ...browser.env },
    identity: browser.sandbox.kernel,
    newSession: true,
    command: browser.path,
    args,
  };
}

/**
 * X clients reach a local display through its abstract socket first, which belongs to a network namespace:
 * in a namespace of its own Chromium needs the display's socket file, shown at its usual path.
 */
export function displaySocketArgs(display: string | undefined): string[] {
  const number = display && /^:(\d+)(?:\.\d+)?$/.exec(display)?.[1];
  if (!number) return [];
  const socket = `/tmp/.X11-unix/X${number}`;
  if (!existsSync(socket)) return [];
  return ['--perms', '0755', '--dir', '/tmp/.X11-unix', '--bind', socket, socket];
}

/**
 * The session's policies, written into its folder and mounted where its Chromium reads them. Without a
 * sandbox there is nowhere to mount them: creates refuse chrome_policy before it comes to this.
 */
export async function policyArgs(exe: ChromiumExecutable, sessionDir: string, policy: ChromePolicy | null, browser: BrowserSandbox | null): Promise<string[]> {
  if (!policy) return [];
  if (!browser) throw new Error('chrome_policy needs the sandbox, and there is none');
  const root = policyRoot(exe);
  await writePolicyDir(policyDir(sessionDir), root, policy);
  return policyMountArgs(root, policyDir(sessionDir));
}

/** Copies the display's X authority file into the session's home; returns its path in the view. */
export async function copyXAuthority(file: string, view: HostView): Promise<string> {
  const inView = `${HOME_DIR}/.Xauthority`;
  await copyFile(file, view.hostPath(inView));
  return inView;
}

/** Chromium's environment on the host: its home and temp dir are the view's. */
export function unsandboxedEnv(view: HostView): Record<string, string> {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: view.hostPath(HOME_DIR), TMPDIR: view.hostPath(TMP_DIR), LANG: 'C.UTF-8', USER: 'kernel' };
}

/** See LiveSession.restoreDownloads: only the headless shell, which denies downloads by default, needs it. */
export async function restoreDownloads(warm: { downloads: Promise<CdpConnection | undefined>; browserPath: (viewPath: string) => string }): Promise<void> {
  const cdp = await warm.downloads;
  await cdp?.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: warm.browserPath(DOWNLOADS_DIR) }).catch(() => undefined);
}

export async function allowDownloads(wsEndpoint: string, downloadsDir: string): Promise<CdpConnection> {
  const cdp = await CdpConnection.connect(wsEndpoint);
  try {
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloadsDir });
    return cdp;
  } catch (err) {
    cdp.close();
    throw err;
  }
}

/**
 * Downloads go to the view's Downloads folder without asking, as on the hosted service. Merged into the
 * preferences a loaded profile brings (its download folder was another session's), which are also marked
 * as cleanly exited, so a profile saved from a crashed browser does not offer to restore its tabs.
 * `userDataDir` is a host path no session process can reach or change (a new view, or a staging folder).
 */
export async function writeDownloadPreferences(userDataDir: string, downloadsDir: string): Promise<void> {
  const file = join(userDataDir, 'Default', 'Preferences');
  let prefs: Record<string, any> = {};
  try {
    const saved: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (saved && typeof saved === 'object' && !Array.isArray(saved)) prefs = saved as Record<string, any>;
  } catch {
    // No profile loaded, or its preferences are unreadable: Chromium starts from defaults either way.
  }
  prefs.download = { ...prefs.download, default_directory: downloadsDir, prompt_for_download: false, directory_upgrade: true };
  prefs.savefile = { ...prefs.savefile, default_directory: downloadsDir };
  if (prefs.profile) prefs.profile = { ...prefs.profile, exit_type: 'Normal', exited_cleanly: true };
  await mkdir(join(userDataDir, 'Default'), { recursive: true });
  await writeFile(file, JSON.stringify(prefs));
}
