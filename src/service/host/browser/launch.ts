// Launching a session's browser, apart from recording the session: a cold create launches into the folder
// of the session it has just recorded, while the standby (session/standby.ts) launches ahead of time into the
// folder of a session id that has no record yet, and a later create adopts that browser under that id.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserCreateParams } from '../../../api/types.js';
import { type Account, sandboxCommand, type Sandbox, type SandboxLaunch, hostSessionUsers } from '../process/index.js';
import { browserSandbox, type BrowserSandbox } from './sandbox.js';
import { CdpConnection } from './cdp-connection.js';
import { sessionUsersPossible } from '../data-dir.js';
import { launchChromium, type LaunchedChromium } from './chromium.js';
import type { ChromiumExecutable } from './chromium-path.js';
import { DOWNLOADS_DIR, HOME_DIR, HostView, TMP_DIR, USER_DATA_DIR, handOverView } from '../fs/index.js';
import { ProxyForwarder, type EgressRefusal, type Upstream } from '../proxy/index.js';
import { SessionNetwork, DEVTOOLS_PORT, sessionNetDir, type EgressPolicy, type ServicePorts } from '../network/index.js';
import { existingDisplay, startXvfb, type ExistingDisplay, type XDisplay } from './xvfb.js';
import { canonicalJson, effectivePolicy, policyDir, policyMountArgs, policyRoot, writePolicyDir, type ChromePolicy } from './chrome-policy.js';

export const DEFAULT_VIEWPORT = { width: 1920, height: 1080 };

/**
 * Everything that decides how Chromium is started. Two creates with equal specs get interchangeable
 * browsers, which is what lets a create adopt a pre-launched one. A new create option that changes the
 * command line or the profile (extensions, proxies, policies) must be added here.
 */
export interface LaunchSpec {
  headless: boolean;
  viewport: { width: number; height: number };
  kioskMode: boolean;
  stealth: boolean;
  startUrl: string | null;
  /** A custom proxy to route through (resolved by host/proxy/proxies.ts); null is direct egress. */
  proxy: Upstream | null;
  /** The profile whose saved state the browser starts from (a copy; host/profiles/profiles.ts), or null. */
  profileId: string | null;
  /** Uploaded extensions to load, by id (host/extensions/extensions.ts). */
  extensionIds: string[];
  /** Chrome Enterprise policies the browser runs with (chrome-policy.ts), or null. */
  chromePolicy: ChromePolicy | null;
}

/**
 * Puts what a spec names into a new session's view before Chromium starts (a profile's user data, the
 * unpacked extensions), and returns the Chromium arguments that need, with paths as Chromium sees them.
 */
export type LaunchPreparer = (spec: LaunchSpec, view: HostView, inView: (viewPath: string) => string) => Promise<string[]>;

export function launchSpecOf(params: BrowserCreateParams, proxy: Upstream | null = null): LaunchSpec {
  const viewport = params.viewport ? { width: params.viewport.width, height: params.viewport.height } : DEFAULT_VIEWPORT;
  return {
    headless: params.headless ?? true,
    viewport,
    kioskMode: params.kiosk_mode ?? false,
    stealth: params.stealth ?? false,
    startUrl: params.start_url ?? null,
    proxy,
    // Callers pass resolved ids here (routes/browsers.ts, host/pools/pool.ts), never names.
    profileId: params.profile?.id ?? null,
    extensionIds: (params.extensions ?? []).flatMap((e) => (e.id ? [e.id] : [])),
    chromePolicy: effectivePolicy(params.chrome_policy),
  };
}

export function specKey(spec: LaunchSpec): string {
  const policy = spec.chromePolicy && canonicalJson(spec.chromePolicy);
  return JSON.stringify([spec.headless, spec.viewport.width, spec.viewport.height, spec.kioskMode, spec.stealth, spec.startUrl, spec.proxy?.proxyId ?? null, spec.profileId, spec.extensionIds, policy]);
}

/** A running Chromium that is, or is about to become, the browser of session `id`. */
export interface WarmBrowser {
  readonly id: string;
  readonly spec: LaunchSpec;
  readonly view: HostView;
  readonly chromium: LaunchedChromium;
  readonly screen?: XDisplay;
  /** The service's own connection that lets the headless shell download; resolves undefined elsewhere. */
  readonly downloads: Promise<CdpConnection | undefined>;
  /** The session's egress proxy: the policy, and the custom proxy it chains to (PATCH switches it). */
  readonly forwarder: ProxyForwarder;
  /** The session's own network namespace; none where the sandbox cannot give it one (isolation.ts says). */
  readonly network?: SessionNetwork;
  /** The path Chromium sees for a path of the view: itself in the sandbox, the view's host folder without. */
  readonly browserPath: (viewPath: string) => string;
}

export interface LaunchEnv {
  chromium: ChromiumExecutable;
  sandbox: Sandbox | null;
  sessionsDir: string;
  /** The window frame to add to headless windows (measured once per executable). */
  frame(): Promise<{ width: number; height: number }>;
  warn(obj: object, msg: string): void;
  /** Run in order on every launch, after the view's layout is created (see LaunchPreparer). */
  preparers: LaunchPreparer[];
  /** Headful browsers go here rather than onto an Xvfb of their own. */
  display?: ExistingDisplay;
  /** The egress rules, the service's own ports, and who hears of a refused destination. */
  egress: { policy: EgressPolicy; servicePorts: ServicePorts; refused(sessionId: string, refusal: EgressRefusal): void };
}

/**
 * Where session `id` lives, and whether its browser runs in the sandbox. Inside the sandbox Chromium sees
 * the view, so its paths are the hosted service's paths; whatever browser it is (the packaged headless
 * shell too) runs in there whenever there is a sandbox.
 */
export function sessionLayout(env: LaunchEnv, id: string) {
  const dir = join(env.sessionsDir, id);
  const view = new HostView(dir);
  const sandbox = env.sandbox ? browserSandbox(env.sandbox, env.chromium) : null;
  return { dir, view, sandbox: sandbox?.sandbox ?? null, browser: sandbox, userDataDir: view.hostPath(USER_DATA_DIR) };
}

/**
 * Who the session's Chromium (and its processes, by default) run as: `kernel` in the sandbox; without
 * one, under a root service, a uid of the session's own; otherwise the service's user, as it cannot
 * switch. Never root.
 */
async function sessionIdentity(env: LaunchEnv, dir: string): Promise<Account | null> {
  if (env.sandbox) return env.sandbox.kernel;
  return sessionUsersPossible() ? hostSessionUsers().allocate(dir) : null;
}

/**
 * Marks a folder whose browser has no session record (the standby's), so a restart after a hard stop can
 * kill it. Removed when the browser becomes a session, whose record holds the pid instead.
 */
export const PID_FILE = 'browser.pid';

/** Launches Chromium for session `id`; on failure nothing is left running (the folder is the caller's). */
export async function launchBrowser(env: LaunchEnv, id: string, spec: LaunchSpec): Promise<WarmBrowser> {
  const { dir, view, sandbox, browser } = sessionLayout(env, id);
  const inView = (viewPath: string) => (sandbox ? viewPath : view.hostPath(viewPath));
  let screen: XDisplay | undefined;
  let chromium: LaunchedChromium;
  let forwarder: ProxyForwarder | undefined;
  let network: SessionNetwork | undefined;
  try {
    const identity = await sessionIdentity(env, dir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await view.createLayout();
    ({ forwarder, network } = await openEgress(env, id, spec, sandbox, view, sessionNetDir(dir)));
    const extraArgs: string[] = [];
    for (const prepare of env.preparers) extraArgs.push(...(await prepare(spec, view, inView)));
    await writeDownloadPreferences(view.hostPath(USER_DATA_DIR), inView(DOWNLOADS_DIR));
    // The display's cookie, where the browser (maybe another uid, maybe in the sandbox) can read it.
    const xauthority = !spec.headless && env.display?.xauthority ? await copyXAuthority(env.display.xauthority, view) : undefined;
    if (identity) await handOverView(view, { owner: identity, sandboxed: sandbox !== null });
    // Unsandboxed, under its own uid, Chromium gets a clean environment: the service's may hold its key.
    const user = !sandbox && identity ? identity : undefined;
    // A headful browser fills its own screen, toolbar included, as on the hosted service.
    if (!spec.headless) {
      screen = env.display ? existingDisplay(env.display, spec.viewport.width, spec.viewport.height) : await startXvfb(spec.viewport.width, spec.viewport.height);
    }
    const netns = network?.nsPath;
    const sandboxArgs = [...(netns ? displaySocketArgs(screen?.display) : []), ...(await policyArgs(env, dir, spec, browser))];
    chromium = await launchChromium(env.chromium, {
      userDataDir: inView(USER_DATA_DIR),
      wrap: browser ? (_file, args, e) => sandboxCommand(browser.sandbox, { ...browserLaunch(view, browser, args, e), netns, extraArgs: sandboxArgs }) : undefined,
      user,
      env: user ? unsandboxedEnv(view) : undefined,
      headless: spec.headless,
      viewport: spec.viewport,
      display: screen?.display,
      xauthority: xauthority && inView(xauthority),
      frame: spec.headless ? await env.frame() : undefined,
      startUrl: spec.startUrl ?? undefined,
      kioskMode: spec.kioskMode,
      stealth: spec.stealth,
      proxyServer: network?.proxyServer ?? forwarder.proxyServer,
      debuggingPort: network ? DEVTOOLS_PORT : 0,
      extraArgs,
    });
    chromium = reachableFromService(chromium, env.egress.servicePorts, network);
  } catch (err) {
    await screen?.stop();
    await network?.close();
    await forwarder?.close();
    throw err;
  }
  // The headless shell ignores the profile's download preference and refuses downloads unless a CDP
  // client allows them, for as long as that client stays connected: the service stays connected. This
  // runs beside the create; CDP clients and input wait for it (the session's `ready`).
  const downloads = env.chromium.headlessShell
    ? allowDownloads(chromium.wsEndpoint, inView(DOWNLOADS_DIR)).catch((err: Error) => {
        env.warn({ session_id: id, err: err.message }, 'could not enable downloads');
        return undefined;
      })
    : Promise.resolve(undefined);
  return { id, spec, view, chromium, screen, downloads, forwarder, network, browserPath: inView };
}

/**
 * The session's egress proxy, and its network namespace where the sandbox can make one (the proxy then
 * listens on a socket only that namespace's bridge reaches).
 */
async function openEgress(env: LaunchEnv, id: string, spec: LaunchSpec, sandbox: Sandbox | null, view: HostView, netDir: string) {
  const proxyId = spec.proxy?.proxyId;
  const report = (message: string) => env.warn({ session_id: id, proxy_id: proxyId, err: message }, 'the session proxy failed');
  const egress = { policy: env.egress.policy, servicePorts: env.egress.servicePorts, refused: (r: EgressRefusal) => env.egress.refused(id, r) };
  if (!sandbox?.network) return { forwarder: await ProxyForwarder.start(spec.proxy, report, egress), network: undefined };
  const socketPath = await SessionNetwork.prepareDir(netDir, sandbox);
  const forwarder = await ProxyForwarder.start(spec.proxy, report, { ...egress, socketPath });
  try {
    const network = await SessionNetwork.start({ sandbox: { ...sandbox, network: sandbox.network }, view, dir: netDir, servicePorts: env.egress.servicePorts });
    return { forwarder, network };
  } catch (err) {
    await forwarder.close();
    throw err;
  }
}

/**
 * The service's CDP clients reach Chromium on the host's loopback: through the namespace's bridge, or at
 * Chromium's own port, registered as the service's so no session's egress is let through to it. Both are
 * released once Chromium is gone.
 */
function reachableFromService(chromium: LaunchedChromium, servicePorts: ServicePorts, network: SessionNetwork | undefined): LaunchedChromium {
  const inside = chromium.wsEndpoint;
  const release = network ? () => network.close() : servicePorts.add(Number(new URL(inside).port));
  const kill = chromium.kill;
  return {
    ...chromium,
    wsEndpoint: network ? network.hostEndpoint(inside) : inside,
    insideWsEndpoint: network ? inside : undefined,
    kill: async () => {
      const info = await kill();
      await release();
      return info;
    },
  };
}

/** Stops a browser that never became a session, or whose session is gone. */
export async function stopBrowser(warm: WarmBrowser): Promise<void> {
  (await warm.downloads)?.close();
  await warm.chromium.kill();
  await warm.screen?.stop();
  await warm.forwarder.close();
}

/**
 * Chromium's helpers can still be writing for a moment after the group is killed; retry the removal.
 * A session with a uid of its own frees it first, once nothing runs as that uid any more.
 */
export async function removeDir(dir: string): Promise<void> {
  await hostSessionUsers().release(dir);
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}

/**
 * Chromium runs as `kernel` in the sandbox, without capabilities, with its home at the view's
 * /home/kernel, like the hosted VM's; the executable is at its path inside (sandbox.ts).
 */
function browserLaunch(view: HostView, browser: BrowserSandbox, args: string[], env: Record<string, string>): SandboxLaunch {
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
function displaySocketArgs(display: string | undefined): string[] {
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
async function policyArgs(env: LaunchEnv, dir: string, spec: LaunchSpec, browser: BrowserSandbox | null): Promise<string[]> {
  if (!spec.chromePolicy) return [];
  if (!browser) throw new Error('chrome_policy needs the sandbox, and there is none');
  const root = policyRoot(env.chromium);
  await writePolicyDir(policyDir(dir), root, spec.chromePolicy);
  return policyMountArgs(root, policyDir(dir));
}

/** Copies the display's X authority file into the session's home; returns its path in the view. */
async function copyXAuthority(file: string, view: HostView): Promise<string> {
  const inView = `${HOME_DIR}/.Xauthority`;
  await copyFile(file, view.hostPath(inView));
  return inView;
}

/** Chromium's environment on the host: its home and temp dir are the view's. */
function unsandboxedEnv(view: HostView): Record<string, string> {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: view.hostPath(HOME_DIR), TMPDIR: view.hostPath(TMP_DIR), LANG: 'C.UTF-8', USER: 'kernel' };
}

/** See LiveSession.restoreDownloads: only the headless shell, which denies downloads by default, needs it. */
export async function restoreDownloads(warm: WarmBrowser): Promise<void> {
  const cdp = await warm.downloads;
  await cdp?.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: warm.browserPath(DOWNLOADS_DIR) }).catch(() => undefined);
}

async function allowDownloads(wsEndpoint: string, downloadsDir: string): Promise<CdpConnection> {
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
 */
async function writeDownloadPreferences(userDataDir: string, downloadsDir: string): Promise<void> {
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
