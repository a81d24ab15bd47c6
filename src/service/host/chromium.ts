// Launches one Chromium process for a session and watches it. The DevTools URL is read from stderr
// (`--remote-debugging-port=0` lets Chromium pick a free port, so launches never race for ports).
import { spawn, type ChildProcess } from 'node:child_process';
import type { ChromiumExecutable } from './chromium-path.js';

export interface LaunchOptions {
  userDataDir: string;
  headless: boolean;
  viewport: { width: number; height: number };
  startUrl?: string;
  kioskMode?: boolean;
  /** Hides the automation flag (`navigator.webdriver`) that bot checks look for. */
  stealth?: boolean;
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
  /** Resolves once the process (group leader) has exited, however that happened. */
  exited: Promise<ExitInfo>;
  /** The last lines Chromium wrote to stderr, for crash reports. */
  stderrTail(): string;
  /** Kills the whole process group (browser, renderers, GPU process) and waits for the leader to exit. */
  kill(): Promise<ExitInfo>;
}

const STDERR_TAIL_BYTES = 16 * 1024;

export function chromiumArgs(exe: ChromiumExecutable, opts: LaunchOptions): string[] {
  const args = [
    '--remote-debugging-port=0',
    '--remote-debugging-address=127.0.0.1',
    `--user-data-dir=${opts.userDataDir}`,
    `--window-size=${opts.viewport.width},${opts.viewport.height}`,
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
    '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider',
    '--metrics-recording-only',
    '--mute-audio',
    '--disable-gpu',
  ];
  // Chromium's sandbox refuses to start as root; as any other user it stays on.
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  if (opts.headless) args.push(exe.headlessShell ? '--headless=shell' : '--headless=new', '--hide-scrollbars');
  if (opts.kioskMode) args.push('--kiosk');
  if (opts.stealth) args.push('--disable-blink-features=AutomationControlled');
  args.push(opts.startUrl ?? 'about:blank');
  return args;
}

export function launchChromium(exe: ChromiumExecutable, opts: LaunchOptions): Promise<LaunchedChromium> {
  const child = spawn(exe.path, chromiumArgs(exe, opts), {
    // Its own process group, so one kill reaches every helper process it forks.
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...(exe.source === 'npm' ? { FONTCONFIG_PATH: '/tmp/fonts' } : {}) },
  });
  let tail = '';
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
        kill: () => {
          killGroup(child);
          return exited;
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
