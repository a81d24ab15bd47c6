// Launching a session's browser, apart from recording the session: a cold create launches into the folder
// of the session it has just recorded, while the standby (session/standby.ts) launches ahead of time into the
// folder of a session id that has no record yet, and a later create adopts that browser under that id. A
// running session's Chromium can be launched again into the same folder, network and screen (relaunch).
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Account, sandboxCommand, type Sandbox, hostSessionUsers } from '../process/index.js';
import { browserSandbox, type BrowserSandbox } from './sandbox.js';
import type { CdpConnection } from './cdp-connection.js';
import { sessionUsersPossible } from '../data-dir.js';
import { launchChromium, type LaunchedChromium } from './chromium.js';
import type { ChromiumExecutable } from './chromium-path.js';
import { executableFor, type Executables } from './executables.js';
import { DOWNLOADS_DIR, HostView, USER_DATA_DIR, handOverView } from '../fs/index.js';
import { ProxyForwarder, type EgressRefusal } from '../proxy/index.js';
import { SessionNetwork, DEVTOOLS_PORT, sessionNetDir, type EgressPolicy, type ServicePorts } from '../network/index.js';
import { existingDisplay, startXvfb, type ExistingDisplay, type XDisplay } from './xvfb.js';
import type { LaunchSpec } from './launch-spec.js';
import { launchContext, type LaunchContext, type LaunchPreparer } from './launch-context.js';
import { allowDownloads, browserLaunch, copyXAuthority, displaySocketArgs, policyArgs, unsandboxedEnv, writeDownloadPreferences } from './chromium-setup.js';

/** A running Chromium that is, or is about to become, the browser of session `id`. */
export interface WarmBrowser {
  readonly id: string;
  readonly spec: LaunchSpec;
  /** The executable it runs (executables.ts): the headless shell or the full Chromium. */
  readonly exe: ChromiumExecutable;
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
  /** The session's folder (its view's root, with the service's own files beside the view). */
  readonly dir: string;
  /** Who the view's files belong to (see sessionIdentity); null: the service's own user. */
  readonly owner: Account | null;
  /** The display's X authority file, as a path of the view, when the browser uses the user's display. */
  readonly xauthority?: string;
}

export interface LaunchEnv {
  executables: Executables;
  sandbox: Sandbox | null;
  sessionsDir: string;
  /** The window frame to add to `exe`'s headless windows (measured once per executable). */
  frame(exe: ChromiumExecutable): Promise<{ width: number; height: number }>;
  warn(obj: object, msg: string): void;
  /** Run in order on every launch, after the view's layout is created (see LaunchPreparer). */
  preparers: LaunchPreparer[];
  /** Headful browsers go here rather than onto an Xvfb of their own. */
  display?: ExistingDisplay;
  /** Whether Chromium keeps a spare renderer warm (ServiceOptions.spareRenderers). */
  spareRenderers: boolean;
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
  return { dir, view, sandbox: env.sandbox, userDataDir: view.hostPath(USER_DATA_DIR) };
}

/** The sandbox `exe` runs in (with its own files shown where they are outside the system's), or none. */
function sandboxFor(env: LaunchEnv, exe: ChromiumExecutable): BrowserSandbox | null {
  return env.sandbox ? browserSandbox(env.sandbox, exe) : null;
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
  const { dir, view, sandbox } = sessionLayout(env, id);
  const exe = executableFor(env.executables, spec);
  const browser = sandboxFor(env, exe);
  const inView = (viewPath: string) => (sandbox ? viewPath : view.hostPath(viewPath));
  let screen: XDisplay | undefined;
  let forwarder: ProxyForwarder | undefined;
  let network: SessionNetwork | undefined;
  let warm: WarmBrowser;
  try {
    const owner = await sessionIdentity(env, dir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await view.createLayout();
    ({ forwarder, network } = await openEgress(env, id, spec, sandbox, view, sessionNetDir(dir)));
    const extraArgs = await prepare(env, { dir, view, inView, owner, previous: null }, spec);
    await writeDownloadPreferences(view.hostPath(USER_DATA_DIR), inView(DOWNLOADS_DIR));
    // The display's cookie, where the browser (maybe another uid, maybe in the sandbox) can read it.
    const xauthority = !spec.headless && env.display?.xauthority ? await copyXAuthority(env.display.xauthority, view) : undefined;
    if (owner) await handOverView(view, { owner, sandboxed: sandbox !== null });
    // A headful browser fills its own screen, toolbar included, as on the hosted service.
    if (!spec.headless) {
      screen = env.display ? existingDisplay(env.display, spec.viewport.width, spec.viewport.height) : await startXvfb(spec.viewport.width, spec.viewport.height);
    }
    const parts = { id, dir, view, screen, forwarder, network, owner, xauthority, browserPath: inView };
    const chromium = await startChromium(env, parts, exe, browser, spec, extraArgs);
    // The namespace's bridges came up beside Chromium's start; the service reaches Chromium through them.
    await network?.ready().catch(async (err: Error) => {
      await chromium.kill();
      throw err;
    });
    warm = { ...parts, spec, exe, chromium, downloads: downloadsConnection(env, exe, id, chromium, inView) };
  } catch (err) {
    await screen?.stop();
    await network?.close();
    await forwarder?.close();
    throw err;
  }
  return warm;
}

/**
 * Launches a running session's Chromium again, with `spec`, into what it had: its folder and view, network,
 * egress proxy and screen. The Chromium of `warm` must be gone. `change` runs first, with the launch's
 * context (what the restart puts into the view); the preparers then put in what the spec adds.
 */
export async function relaunchBrowser(env: LaunchEnv, warm: WarmBrowser, spec: LaunchSpec, change?: (ctx: LaunchContext) => Promise<void>): Promise<WarmBrowser> {
  const exe = executableFor(env.executables, spec);
  const browser = sandboxFor(env, exe);
  const ctx = launchContext({ dir: warm.dir, view: warm.view, inView: warm.browserPath, owner: warm.owner, previous: warm.spec });
  try {
    await change?.(ctx);
    const extraArgs = await runPreparers(env, ctx, spec);
    const chromium = await startChromium(env, warm, exe, browser, spec, extraArgs);
    return { ...warm, spec, exe, chromium, downloads: downloadsConnection(env, exe, warm.id, chromium, warm.browserPath) };
  } finally {
    await ctx.close();
  }
}

/** The launch preparers' arguments for a new browser (see LaunchPreparer). */
async function prepare(env: LaunchEnv, opts: Parameters<typeof launchContext>[0], spec: LaunchSpec): Promise<string[]> {
  const ctx = launchContext(opts);
  try {
    return await runPreparers(env, ctx, spec);
  } finally {
    await ctx.close();
  }
}

async function runPreparers(env: LaunchEnv, ctx: LaunchContext, spec: LaunchSpec): Promise<string[]> {
  const args: string[] = [];
  for (const preparer of env.preparers) args.push(...(await preparer(spec, ctx)));
  return args;
}

type BrowserParts = Pick<WarmBrowser, 'dir' | 'view' | 'screen' | 'forwarder' | 'network' | 'owner' | 'xauthority' | 'browserPath'>;

/** Starts Chromium itself into a session's prepared folder, network and screen. */
async function startChromium(
  env: LaunchEnv,
  parts: BrowserParts,
  exe: ChromiumExecutable,
  browser: BrowserSandbox | null,
  spec: LaunchSpec,
  extraArgs: string[],
): Promise<LaunchedChromium> {
  const { view, screen, network, forwarder, owner } = parts;
  // Unsandboxed, under its own uid, Chromium gets a clean environment: the service's may hold its key.
  const user = !browser && owner ? owner : undefined;
  const netns = network?.nsPath;
  const sandboxArgs = [...(netns ? displaySocketArgs(screen?.display) : []), ...(await policyArgs(exe, parts.dir, spec.chromePolicy, browser))];
  const chromium = await launchChromium(exe, {
    userDataDir: parts.browserPath(USER_DATA_DIR),
    wrap: browser ? (_file, args, e) => sandboxCommand(browser.sandbox, { ...browserLaunch(view, browser, args, e), netns, extraArgs: sandboxArgs }) : undefined,
    user,
    env: user ? unsandboxedEnv(view) : undefined,
    headless: spec.headless,
    viewport: spec.viewport,
    display: screen?.display,
    xauthority: parts.xauthority && parts.browserPath(parts.xauthority),
    frame: spec.headless ? await env.frame(exe) : undefined,
    startUrl: spec.startUrl ?? undefined,
    kioskMode: spec.kioskMode,
    stealth: spec.stealth,
    spareRenderer: env.spareRenderers,
    proxyServer: network?.proxyServer ?? forwarder.proxyServer,
    debuggingPort: network ? DEVTOOLS_PORT : 0,
    extraArgs,
  });
  return reachableFromService(chromium, env.egress.servicePorts, network);
}

/**
 * The headless shell ignores the profile's download preference and refuses downloads unless a CDP
 * client allows them, for as long as that client stays connected: the service stays connected. This
 * runs beside the create; CDP clients and input wait for it (the session's `ready`).
 */
function downloadsConnection(
  env: LaunchEnv,
  exe: ChromiumExecutable,
  id: string,
  chromium: LaunchedChromium,
  inView: (viewPath: string) => string,
): Promise<CdpConnection | undefined> {
  if (!exe.headlessShell) return Promise.resolve(undefined);
  return allowDownloads(chromium.wsEndpoint, inView(DOWNLOADS_DIR)).catch((err: Error) => {
    env.warn({ session_id: id, err: err.message }, 'could not enable downloads');
    return undefined;
  });
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
 * The service's CDP clients reach Chromium on the host's loopback: through the namespace's bridge (which
 * outlives the Chromium: a relaunch uses it again; stopBrowser closes it), or at Chromium's own port,
 * registered as the service's so no session's egress is let through to it, and released once it is gone.
 */
function reachableFromService(chromium: LaunchedChromium, servicePorts: ServicePorts, network: SessionNetwork | undefined): LaunchedChromium {
  const inside = chromium.wsEndpoint;
  if (network) return { ...chromium, wsEndpoint: network.hostEndpoint(inside), insideWsEndpoint: inside, devtoolsSocket: network.devtoolsSocket };
  const release = servicePorts.add(Number(new URL(inside).port));
  const kill = chromium.kill;
  return {
    ...chromium,
    kill: async () => {
      const info = await kill();
      release();
      return info;
    },
  };
}

/** Stops a browser that never became a session, or whose session is gone: Chromium, then what it ran in. */
export async function stopBrowser(warm: WarmBrowser): Promise<void> {
  (await warm.downloads)?.close();
  await warm.chromium.kill();
  await warm.network?.close();
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
