// Launches one Chromium process for a session and watches it. The DevTools URL is read from stderr
// (`--remote-debugging-port=0` lets Chromium pick a free port, so launches never race for ports).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chown, mkdir } from 'node:fs/promises';
import { CdpConnection } from './cdp-connection.js';
import type { ChromiumExecutable } from './chromium-path.js';
import { asUser, hostSessionUsers } from '../process/index.js';

export interface LaunchOptions {
  userDataDir: string;
  headless: boolean;
  viewport: { width: number; height: number };
  startUrl?: string;
  kioskMode?: boolean;
  /** Browser UI that Chromium counts inside --window-size; added so the page gets the whole viewport. */
  frame?: { width: number; height: number };
  /** The X display of a headful session. */
  display?: string;
  /** Its X authority file, as Chromium sees the path (a display of the user's own). */
  xauthority?: string;
  /** Runs Chromium through another command (the session's sandbox); it gets `env` and nothing else. */
  wrap?: (file: string, args: string[], env: Record<string, string>) => { file: string; args: string[] };
  /** Hides the automation flag (`navigator.webdriver`) that bot checks look for. */
  stealth?: boolean;
  /**
   * false: no spare renderer kept warm for the next page or site (Chromium keeps one with site isolation,
   * for the context it was made for). For a client that opens a context per test it is a process started
   * and killed unused each time: ~8 ms and a renderer's start-up CPU per context (bench/BENCHMARKS.md).
   */
  spareRenderer?: boolean;
  /**
   * The session's egress proxy (proxy/forwarder.ts), `http://127.0.0.1:PORT`. Loopback goes through it too:
   * in a network namespace the browser's own loopback is empty, and the policy decides about the host's.
   */
  proxyServer?: string;
  /** DevTools' port: 0 (Chromium picks) on the host's network, fixed inside a namespace of the session's own. */
  debuggingPort?: number;
  /** Runs Chromium as this user (a root service without a sandbox: the session's own uid). */
  user?: { uid: number; gid: number };
  /** Killed when the service dies (a probe: no session's state to save later, nothing to recover). */
  dieWithService?: boolean;
  /** Chromium's whole environment, instead of the service's own (which may hold its secrets). */
  env?: Record<string, string>;
  /** Arguments of launch preparers (launch.ts): extensions to load. */
  extraArgs?: string[];
  timeoutMs?: number;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LaunchedChromium {
  pid: number;
  /** ws://127.0.0.1:PORT/devtools/browser/UUID — never leaves the host; clients go through the CDP proxy. */
  wsEndpoint: string;
  /** The DevTools URL as the session's own processes reach it, when the session has a network of its own. */
  insideWsEndpoint?: string;
  /**
   * A unix socket that reaches DevTools, when the session has a network of its own: the CDP proxy's hot
   * path connects there rather than through the loopback bridge that `wsEndpoint` names (one hop fewer).
   */
  devtoolsSocket?: string;
  /** Resolves once the process (group leader) has exited, however that happened. */
  exited: Promise<ExitInfo>;
  /** The last lines Chromium wrote to stderr, for crash reports. */
  stderrTail(): string;
  /** Calls `listener` with each later chunk of stderr (the session's log stream); returns the unsubscribe. */
  onStderr(listener: (chunk: string) => void): () => void;
  /** Kills the whole process group (browser, renderers, GPU process) and waits for the leader to exit. */
  kill(): Promise<ExitInfo>;
}

const STDERR_TAIL_BYTES = 16 * 1024;

function disabledFeatures(opts: LaunchOptions): string[] {
  // Branded Chrome 137+ ignores --load-extension unless DisableLoadExtensionCommandLineSwitch is off.
  const features = ['Translate', 'MediaRouter', 'OptimizationHints', 'DialMediaRouteProvider', 'DisableLoadExtensionCommandLineSwitch'];
  if (opts.spareRenderer === false) features.push('SpareRendererForSitePerProcess');
  return features;
}

export function chromiumArgs(exe: ChromiumExecutable, opts: LaunchOptions): string[] {
  const args = [
    `--remote-debugging-port=${opts.debuggingPort ?? 0}`,
    '--remote-debugging-address=127.0.0.1',
    `--user-data-dir=${opts.userDataDir}`,
    `--window-size=${opts.viewport.width + (opts.frame?.width ?? 0)},${opts.viewport.height + (opts.frame?.height ?? 0)}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--password-store=basic',
    '--use-mock-keychain',
    // This host has no route to Google's services; without these Chromium retries them forever.
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-domain-reliability',
    '--disable-breakpad',
    `--disable-features=${disabledFeatures(opts).join(',')}`,
    '--metrics-recording-only',
    '--mute-audio',
    '--disable-gpu',
    // A session's pages all run at full speed, whichever window is in front: in new headless a window a
    // later context opened occludes the one before, whose renderer would otherwise be backgrounded, its
    // timers throttled and its animation frames (which actionability checks wait for) stopped.
    '--disable-backgrounding-occluded-windows',
    '--disable-renderer-backgrounding',
    '--disable-background-timer-throttling',
    // Shared memory in a sandbox is a small tmpfs; Chromium then uses /tmp instead of failing renderers.
    '--disable-dev-shm-usage',
  ];
  // Chromium's sandbox refuses to start as root; as any other user it stays on.
  // As root the sandbox must go; --test-type keeps Chromium from adding a warning bar about it, which
  // would shrink the page by its height some time after start.
  if (process.getuid?.() === 0) args.push('--no-sandbox', '--test-type');
  if (opts.headless) args.push(exe.headlessShell ? '--headless=shell' : '--headless=new', '--hide-scrollbars');
  // The shell keeps a cross-site iframe in its page's process; full Chromium gives every site its own. A
  // session gets full Chromium's process model (and its isolation) whichever of the two runs it.
  if (exe.headlessShell) args.push('--site-per-process');
  if (opts.headless && !exe.headlessShell) {
    // New headless clamps the window to an 800x600 screen, and a window that fills its screen is drawn
    // maximized with a different frame: so the screen is always larger than the window.
    const w = Math.max(3840, opts.viewport.width + (opts.frame?.width ?? 0) + 200);
    const h = Math.max(2160, opts.viewport.height + (opts.frame?.height ?? 0) + 200);
    args.push(`--screen-info={0,0 ${w}x${h}}`);
  }
  if (!opts.headless) args.push('--window-position=0,0');
  if (opts.kioskMode) args.push('--kiosk');
  if (opts.stealth) args.push('--disable-blink-features=AutomationControlled');
  // WebRTC's UDP would leave beside the proxy and show the host's own address.
  if (opts.proxyServer) {
    args.push(`--proxy-server=${opts.proxyServer}`, '--proxy-bypass-list=<-loopback>', '--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
  }
  if (opts.extraArgs) args.push(...opts.extraArgs);
  args.push(opts.startUrl ?? 'about:blank');
  return args;
}

export function launchChromium(exe: ChromiumExecutable, opts: LaunchOptions): Promise<LaunchedChromium> {
  const extraEnv: Record<string, string> = {
    ...(exe.source === 'npm' ? { FONTCONFIG_PATH: '/tmp/fonts' } : {}),
    ...(opts.display ? { DISPLAY: opts.display } : {}),
    ...(opts.xauthority ? { XAUTHORITY: opts.xauthority } : {}),
  };
  const args = chromiumArgs(exe, opts);
  // A user of its own goes through setpriv (no groups, no_new_privs); exec keeps the pid, so kills still reach it.
  const cmd: { file: string; args: string[]; spawnAs?: { uid: number; gid: number } } = opts.wrap
    ? opts.wrap(exe.path, args, extraEnv)
    : opts.user
      ? asUser(opts.user, exe.path, args, { dieWithParent: opts.dieWithService })
      : { file: exe.path, args };
  // bwrap passes Chromium only what `wrap` names; bwrap itself needs nothing of the service's environment.
  const env = opts.wrap ? { PATH: process.env.PATH ?? '/usr/bin:/bin' } : { ...(opts.env ?? process.env), ...extraEnv };
  const child = spawn(cmd.file, cmd.args, {
    // Its own process group, so one kill reaches every helper process it forks.
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
    uid: cmd.spawnAs?.uid,
    gid: cmd.spawnAs?.gid,
  });
  let tail = '';
  const stderrListeners = new Set<(chunk: string) => void>();
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

  return new Promise<LaunchedChromium>((resolve, reject) => {
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child);
      reject(new Error(`${message}${tail ? `; chromium said: ${lastLines(tail, 5)}` : ''}`));
    };
    const timer = setTimeout(() => fail(`chromium did not report a DevTools URL within ${opts.timeoutMs ?? 30_000} ms`), opts.timeoutMs ?? 30_000);
    child.once('error', (err) => fail(`could not start chromium at ${exe.path}: ${err.message}`));
    void exited.then(({ code, signal }) => fail(`chromium exited during start (${signal ?? `code ${code}`})`));
    // stderr must be drained for the whole life of the process, or Chromium blocks once the pipe fills.
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
      for (const listener of stderrListeners) listener(chunk);
      if (settled) return;
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(tail);
      if (!match) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        pid: child.pid!,
        wsEndpoint: match[1]!,
        exited,
        stderrTail: () => tail,
        onStderr: (listener) => {
          stderrListeners.add(listener);
          return () => stderrListeners.delete(listener);
        },
        kill: async () => {
          // Under bubblewrap the browser runs below a second bwrap in its own session (the pid namespace's
          // init), which the group kill does not reach: it dies with its parent a moment later. Killed and
          // waited for here, so nothing of the session outlives its end.
          const inner = childrenOf(child.pid!);
          killGroup(child);
          for (const pid of inner) killProcessGroup(pid);
          const info = await exited;
          await allGone(inner, 3000);
          return info;
        },
      });
    });
  });
}

/** Kills the group even after the leader died: orphaned renderers keep the group alive. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  killProcessGroup(child.pid);
}

/** Direct children of `pid`, from /proc (empty where the kernel does not list them). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Waits until none of `pids` is running (a zombie waiting to be reaped counts as gone). */
async function allGone(pids: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const running = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  while (pids.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

export function killProcessGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join(' | ');
}

/** How long the measurement waits for the window to have a size. */
const FRAME_SETTLE_MS = 5_000;

/**
 * New-headless (and headful) Chromium keeps room for its toolbar inside --window-size, so the page
 * is smaller than asked. Measured once per executable by launching it and comparing outer and inner size;
 * the headless shell has no such frame.
 */
export async function measureWindowFrame(exe: ChromiumExecutable, userDataDir: string): Promise<{ width: number; height: number }> {
  if (exe.headlessShell) return { width: 0, height: 0 };
  return withProbeBrowser(exe, userDataDir, async (_browser, cdp) => {
    const { targetInfos } = await cdp.send<{ targetInfos: { targetId: string; type: string }[] }>('Target.getTargets');
    const page = targetInfos.find((t) => t.type === 'page');
    if (!page) return { width: 0, height: 0 };
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: page.targetId, flatten: true });
    // Right after start some builds (Chromium 150) report an outer size of 0 until the window is sized.
    const deadline = Date.now() + FRAME_SETTLE_MS;
    for (;;) {
      const { result } = await cdp.send<{ result: { value: [number, number, number, number] } }>(
        'Runtime.evaluate',
        { expression: '[outerWidth, outerHeight, innerWidth, innerHeight]', returnByValue: true },
        sessionId,
      );
      const [outerW, outerH, innerW, innerH] = result.value;
      if ((outerW > 0 && outerH > 0) || Date.now() > deadline) return { width: Math.max(0, outerW - innerW), height: Math.max(0, outerH - innerH) };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
}

/**
 * The DevTools protocol descriptor (`/json/protocol`) of `exe` and its version (`/json/version`'s
 * `Browser`), read from a browser launched for that alone.
 */
export async function readProtocolDescriptor(exe: ChromiumExecutable, userDataDir: string): Promise<{ browser: string; protocol: string }> {
  return withProbeBrowser(exe, userDataDir, async (browser) => {
    const server = `http://${new URL(browser.wsEndpoint).host}`;
    const read = async (path: string) => {
      const res = await fetch(server + path, { signal: AbortSignal.timeout(15_000) });
      if (!res.ok) throw new Error(`${exe.path} answered ${path} with ${res.status}`);
      return res.text();
    };
    const version = JSON.parse(await read('/json/version')) as { Browser?: string };
    return { browser: version.Browser ?? '', protocol: await read('/json/protocol') };
  });
}

/** Runs `use` on a headless browser of `exe` launched for it, then ends that browser. */
async function withProbeBrowser<T>(exe: ChromiumExecutable, userDataDir: string, use: (browser: LaunchedChromium, cdp: CdpConnection) => Promise<T>): Promise<T> {
  // Chromium never runs as root: a root service launches it as an identity of its own, as sessions run.
  const users = process.getuid?.() === 0 ? hostSessionUsers() : undefined;
  let user: { uid: number; gid: number } | undefined;
  if (users) {
    user = await users.allocate(userDataDir);
    await mkdir(userDataDir, { recursive: true, mode: 0o700 });
    await chown(userDataDir, user.uid, user.gid);
  }
  const env = user ? { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: userDataDir, LANG: 'C.UTF-8' } : undefined;
  let browser: LaunchedChromium;
  try {
    browser = await launchChromium(exe, { userDataDir, headless: true, viewport: { width: 800, height: 600 }, user, env, dieWithService: true });
  } catch (err) {
    await users?.release(userDataDir);
    throw err;
  }
  const cdp = await CdpConnection.connect(browser.wsEndpoint).catch(async (err: Error) => {
    await browser.kill();
    await users?.release(userDataDir);
    throw err;
  });
  try {
    return await use(browser, cdp);
  } finally {
    cdp.close();
    await browser.kill();
    await users?.release(userDataDir);
  }
}
