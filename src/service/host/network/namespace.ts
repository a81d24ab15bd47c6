// A session's own network namespace: inside, only a loopback. Nothing of the host's network is there, so
// a session reaches neither the service's ports nor another session's DevTools, and its only way out is
// the session's egress proxy (policy.ts, proxy/forwarder.ts), which the service runs on a unix socket.
//
// One small sandboxed holder per session keeps the namespace and bridges it, with socat, both ways:
// 127.0.0.1:3128 inside -> the egress proxy's socket (Chromium's --proxy-server, processes' HTTP(S)_PROXY),
// and a DevTools socket -> 127.0.0.1:9222 inside, which the service exposes to its own CDP clients on a
// loopback port of the host (registered as a service port, so the egress policy never lets a session
// back in through it). The service keeps the namespace open by a file descriptor; processes join it with
// nsenter on /proc/<service pid>/fd/<fd>, a path that stays valid whatever happens to the holder's pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { chown, mkdir } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { HostView } from '../fs/index.js';
import { HOME_DIR } from '../fs/index.js';
import { sandboxCommand, type Sandbox } from '../process/index.js';
import type { ServicePorts } from './policy.js';
import { DEVTOOLS_PORT, EGRESS_PORT } from './ports.js';

/** The sockets' folder as the holder sees it. */
const INSIDE_DIR = '/run/bcs';
export const EGRESS_SOCKET = 'egress.sock';
const DEVTOOLS_SOCKET = 'devtools.sock';
/** The sockets' folder in a session's folder (beside its view, never inside it). */
const NET_DIR = 'net';

export function sessionNetDir(sessionDir: string): string {
  return join(sessionDir, NET_DIR);
}

/** Where a session's DevTools is reachable from the host while its network's holder runs (a restart's recovery). */
export function devtoolsSocketOf(sessionDir: string): string {
  return join(sessionNetDir(sessionDir), DEVTOOLS_SOCKET);
}
const READY_TIMEOUT_MS = 15_000;
/**
 * socat's read and write size (its default is 8 KiB), with Nagle off on its TCP ends (`nodelay`). CDP
 * messages run to hundreds of KiB (Playwright sends its half-megabyte injected script to every new page):
 * written in 8 KiB pieces under Nagle, such a message often waited out a delayed ACK, 40-55 ms more than
 * it takes Chromium to answer, so every new page's first locator took ~80 ms instead of ~30.
 */
const BRIDGE_BLOCK_BYTES = 1 << 20;

export interface SessionNetworkOptions {
  sandbox: Sandbox & { network: NonNullable<Sandbox['network']> };
  view: HostView;
  /** A folder of the service's (not in the view) for the two sockets; the egress proxy listens in it already. */
  dir: string;
  servicePorts: ServicePorts;
}

export class SessionNetwork {
  private closed = false;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly holder: ChildProcess,
    private readonly nsFd: number,
    private readonly bridge: net.Server,
    private readonly releasePort: () => void,
    /** The DevTools socket on the host: the service's own shortest way to Chromium inside. */
    readonly devtoolsSocket: string,
    private readonly bridgesUp: Promise<void>,
  ) {}

  /**
   * Resolves once both bridges answer (the egress port inside, the DevTools socket outside); a namespace is
   * usable by processes joining it before, its ways in and out only after.
   */
  ready(): Promise<void> {
    return this.bridgesUp;
  }

  /** The folder for the sockets (made here); the egress proxy must listen on `socketPath(dir)` before start. */
  static async prepareDir(dir: string, sandbox: Sandbox): Promise<string> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // The holder runs as `kernel` and creates the DevTools socket here.
    await chown(dir, sandbox.kernel.uid, sandbox.kernel.gid);
    return join(dir, EGRESS_SOCKET);
  }

  static async start(opts: SessionNetworkOptions): Promise<SessionNetwork> {
    const { sandbox, dir } = opts;
    const socat = sandbox.network.socat;
    const inside = (name: string) => `${INSIDE_DIR}/${name}`;
    // The DevTools socket appears once the egress listener answers, so its existence means both bridges are up.
    const script = [
      `${socat} -b ${BRIDGE_BLOCK_BYTES} TCP-LISTEN:${EGRESS_PORT},bind=127.0.0.1,fork,reuseaddr,nodelay UNIX-CONNECT:${inside(EGRESS_SOCKET)} &`,
      `until ${socat} -u OPEN:/dev/null TCP:127.0.0.1:${EGRESS_PORT} 2>/dev/null; do sleep 0.005; done`,
      `exec ${socat} -b ${BRIDGE_BLOCK_BYTES} UNIX-LISTEN:${inside(DEVTOOLS_SOCKET)},fork,mode=600 TCP:127.0.0.1:${DEVTOOLS_PORT},nodelay`,
    ].join('\n');
    const cmd = sandboxCommand(sandbox, {
      view: opts.view,
      cwd: HOME_DIR,
      env: { PATH: '/usr/bin:/bin' },
      identity: sandbox.kernel,
      newSession: true,
      command: '/bin/sh',
      args: ['-c', script],
      extraArgs: ['--unshare-net', '--perms', '0755', '--dir', '/run', '--bind', dir, INSIDE_DIR, '--info-fd', '3'],
    });
    const holder = spawn(cmd.file, cmd.args, { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
    let stderr = '';
    holder.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-2000)));
    const exited = new Promise<void>((resolve) => holder.once('exit', () => resolve()));
    // What the holder said on its way out is the useful part of the error.
    const fail = async (message: string) => {
      killGroup(holder);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1000))]);
      return new Error(`${message}${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
    };
    let nsFd: number;
    try {
      const pid = await childPid(holder);
      nsFd = openSync(`/proc/${pid}/ns/net`, 'r');
    } catch (err) {
      throw await fail(`could not create the session's network namespace (${(err as Error).message})`);
    }
    const bridge = net.createServer();
    await new Promise<void>((resolve, reject) => {
      bridge.once('error', reject);
      bridge.listen(0, '127.0.0.1', () => resolve());
    }).catch(async (err: Error) => {
      closeSync(nsFd);
      throw await fail(`could not open the DevTools bridge (${err.message})`);
    });
    // Registered before anyone learns the port.
    const release = opts.servicePorts.add((bridge.address() as AddressInfo).port);
    // Chromium can start in the namespace while socat brings the bridges up (both take tens of ms).
    const bridgesUp = waitForFile(join(dir, DEVTOOLS_SOCKET), holder, READY_TIMEOUT_MS).catch(async (err: Error) => {
      throw await fail(`the session's network bridge did not start (${err.message})`);
    });
    bridgesUp.catch(() => {}); // awaited by ready()
    const network = new SessionNetwork(holder, nsFd, bridge, release, join(dir, DEVTOOLS_SOCKET), bridgesUp);
    bridge.on('connection', (client) => network.pipeToDevtools(client, network.devtoolsSocket));
    return network;
  }

  /** What processes of the session pass to nsenter --net=. */
  get nsPath(): string {
    return `/proc/${process.pid}/fd/${this.nsFd}`;
  }

  /** Chromium's --proxy-server, as seen inside. */
  get proxyServer(): string {
    return `http://127.0.0.1:${EGRESS_PORT}`;
  }

  /** The host's loopback port that reaches Chromium's DevTools inside. */
  get devtoolsPort(): number {
    return (this.bridge.address() as AddressInfo).port;
  }

  /** The DevTools URL Chromium printed (inside) as the service reaches it from the host. */
  hostEndpoint(insideEndpoint: string): string {
    const url = new URL(insideEndpoint);
    url.host = `127.0.0.1:${this.devtoolsPort}`;
    return url.toString();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.releasePort();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.bridge.close(() => resolve()));
    killGroup(this.holder);
    closeSync(this.nsFd);
  }

  private pipeToDevtools(client: net.Socket, path: string): void {
    const upstream = net.connect(path);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  }
}

/** bwrap's --info-fd names the sandbox's first process (as the host numbers it), whose namespace we want. */
function childPid(holder: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let info = '';
    const pipe = holder.stdio[3] as NodeJS.ReadableStream;
    pipe.setEncoding('utf8');
    pipe.on('data', (s: string) => (info += s));
    pipe.once('end', () => {
      const pid = Number((/"child-pid"\s*:\s*(\d+)/.exec(info) ?? [])[1]);
      if (pid > 0) resolve(pid);
      else reject(new Error('bwrap did not report its child'));
    });
    holder.once('error', reject);
  });
}

async function waitForFile(path: string, holder: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (holder.exitCode !== null || holder.signalCode !== null) throw new Error(`the holder exited (${holder.signalCode ?? `code ${holder.exitCode}`})`);
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
