// The per-session forwarding proxy. A session with a custom proxy runs Chromium with
// `--proxy-server=http://127.0.0.1:<port>` pointing here, and this adds the proxy's Basic credentials on
// the way to the upstream proxy. Why not answer Chromium's 407 challenges over CDP (Fetch.authRequired)
// instead: that only covers targets a CDP connection is attached to and enabled on before their first
// request (every tab, popup, worker and context a client opens, raced against our attach), pauses every
// request of the session, and collides with clients that use the Fetch domain themselves (Playwright's
// routing). Here the credentials apply to all of Chromium's traffic whatever opened it, the password never
// reaches Chromium or its command line, and the upstream can be switched while the session runs (PATCH).
//
// It is also the session's egress: every session's browser traffic goes through its forwarder, which holds
// each destination to the egress policy (host/network/policy.ts) before connecting to the very address it
// checked (no second lookup for a rebinding DNS answer to change). A session with a network namespace of
// its own reaches it through a unix socket (host/network/namespace.ts); without one, on a loopback port
// that is registered as the service's, so no session can proxy through another's forwarder.
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { chmod } from 'node:fs/promises';
import { bypassMatcher, type BypassMatcher } from './bypass.js';
import { EgressRefused, isLoopback, parseAddress, PrivateHosts, type EgressPolicy, type ServicePorts } from '../network/index.js';
import { explainStatus, openTunnel, proxyAuthorization, proxyTarget, requestModule, type Upstream } from './upstream.js';

const CONNECT_TIMEOUT_MS = 30_000;
/** A failing upstream is reported once, then at most this often. */
const REPORT_EVERY_MS = 60_000;

/** Headers that belong to one hop (RFC 9110 §7.6.1) and are not passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** A destination the policy refused, as the forwarder saw it. */
export interface EgressRefusal {
  method: string;
  host: string;
  port: number;
  code: EgressRefused['code'];
  message: string;
}

export interface ForwarderOptions {
  policy: EgressPolicy;
  /** Told of each refused destination (the session's log and telemetry). */
  refused?: (refusal: EgressRefusal) => void;
  /** Listen on this unix socket (a session's network namespace) instead of a loopback port. */
  socketPath?: string;
  /** Where a loopback port is registered as the service's own. */
  servicePorts?: ServicePorts;
}

/** The forwarder's listening address: a unix socket or a loopback port. */
export type ForwarderEndpoint = { socketPath: string } | { host: string; port: number };

/**
 * Set on the answers the forwarder makes up itself when it could not reach a destination (a 502), so a
 * client of ours can tell them from a 502 the destination sent.
 */
export const FORWARDER_ERROR_HEADER = 'x-bcs-proxy-error';
/** Names the egress rule that refused a destination (policy.ts EgressRefused codes) on the 403. */
export const EGRESS_REFUSED_HEADER = 'x-bcs-egress-refused';

export class ProxyForwarder {
  private upstream: Upstream | null;
  private privateHosts = new PrivateHosts();
  private releasePort = () => {};
  /** The route it was started with (a pool browser goes back to it when its lease ends). */
  readonly launchedWith: Upstream | null;
  /** Switched away from `launchedWith` (a PATCH of the session's proxy): a pool lease's release switches it back. */
  switched = false;
  private bypass: BypassMatcher;
  private agent: http.Agent;
  /** Bypassed destinations are plain HTTP straight to them, whatever the upstream's protocol. */
  private direct = new http.Agent({ keepAlive: true, maxSockets: 256 });
  /** Client connections and the tunnels behind them, dropped when the upstream changes or on close. */
  private readonly sockets = new Set<Socket>();
  private generation = 0;
  private lastReport = 0;
  private closed = false;

  private constructor(
    private readonly server: http.Server,
    upstream: Upstream | null,
    private readonly report: (message: string) => void,
    private readonly egress: ForwarderOptions,
  ) {
    this.upstream = upstream;
    this.launchedWith = upstream;
    this.bypass = bypassMatcher(upstream?.bypass ?? []);
    this.agent = agentFor(upstream);
    server.on('connection', (socket: Socket) => this.track(socket));
    server.on('request', (req, res) => this.onRequest(req, res));
    server.on('connect', (req: http.IncomingMessage, socket: Socket, head: Buffer) => this.onConnect(req, socket, head));
    server.on('clientError', (_err, socket) => socket.destroy());
  }

  /** Starts listening (a unix socket, or a free loopback port). `report` hears about upstream failures (rate-limited). */
  static async start(upstream: Upstream | null, report: (message: string) => void, egress: ForwarderOptions): Promise<ProxyForwarder> {
    // No request timeout: a long upload through a proxy is fine; idle keep-alive sockets still time out.
    const server = http.createServer({ requestTimeout: 0 });
    const forwarder = new ProxyForwarder(server, upstream, report, egress);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const listening = () => {
        server.off('error', reject);
        resolve();
      };
      if (egress.socketPath) server.listen(egress.socketPath, listening);
      else server.listen(0, '127.0.0.1', listening);
    });
    // The namespace's bridge runs as the session's user, not as the service.
    if (egress.socketPath) await chmod(egress.socketPath, 0o666);
    else if (egress.servicePorts) forwarder.releasePort = egress.servicePorts.add((server.address() as AddressInfo).port);
    return forwarder;
  }

  /** Where to connect to use it as an HTTP proxy from this process (the service's own requests, curl). */
  get endpoint(): ForwarderEndpoint {
    if (this.egress.socketPath) return { socketPath: this.egress.socketPath };
    return { host: '127.0.0.1', port: (this.server.address() as AddressInfo).port };
  }

  /** The value for Chromium's --proxy-server when it shares the host's network. */
  get proxyServer(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The session's `network.private_hosts`: private destinations it may reach. */
  allow(privateHosts: PrivateHosts): void {
    this.privateHosts = privateHosts;
  }

  get current(): Upstream | null {
    return this.upstream;
  }

  /**
   * Routes through `upstream` from now on (null: straight to the destination). Open connections are
   * dropped, so Chromium reconnects and no tunnel keeps using the old route.
   */
  use(upstream: Upstream | null): void {
    this.switched = upstream !== this.launchedWith;
    this.upstream = upstream;
    this.bypass = bypassMatcher(upstream?.bypass ?? []);
    this.generation++;
    this.agent.destroy();
    this.agent = agentFor(upstream);
    this.direct.destroy();
    this.direct = new http.Agent({ keepAlive: true, maxSockets: 256 });
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.releasePort();
    this.agent.destroy();
    this.direct.destroy();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    // A reset from either side is an ordinary end of a proxied connection.
    socket.on('error', () => socket.destroy());
  }

  /**
   * The upstream for a destination: none when there is no proxy, the proxy's bypass_hosts name it, or it is
   * this host's loopback or one of the session's private hosts (reached directly, never through a proxy).
   */
  private routeFor(host: string, port: number): Upstream | null {
    if (!this.upstream || this.bypass(host, port)) return null;
    const literal = parseAddress(host);
    if (/^localhost\.?$/i.test(host) || (literal && isLoopback(literal))) return null;
    if (this.privateHosts.hasName(host) || (literal && this.privateHosts.hasAddress(literal))) return null;
    return this.upstream;
  }

  private fail(message: string): void {
    const now = Date.now();
    if (now - this.lastReport < REPORT_EVERY_MS) return;
    this.lastReport = now;
    this.report(message);
  }

  /** A plain http:// request, in absolute form (`GET http://host/path`). */
  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('this is a forward proxy: absolute http:// URLs only\n');
      return;
    }
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(target.port || 80);
    const up = this.routeFor(host, port);
    this.destination(up, req.method ?? 'GET', host, port).then(
      (address) => this.forwardRequest(req, res, target, up, address, port),
      (err: Error) => {
        req.resume();
        if (err instanceof EgressRefused) res.writeHead(403, refusalHeaders(err)).end(`${err.message}\n`);
        else this.badGateway(res, err.message);
      },
    );
  }

  private forwardRequest(req: http.IncomingMessage, res: http.ServerResponse, target: URL, up: Upstream | null, address: string, port: number): void {
    const headers = passOn(req.rawHeaders);
    let out: http.ClientRequest;
    if (up) {
      const auth = proxyAuthorization(up);
      if (auth) headers.push('Proxy-Authorization', auth);
      out = requestModule(up).request({ ...proxyTarget(up), method: req.method, path: req.url, headers, agent: this.agent });
    } else {
      out = http.request({ host: address, port, method: req.method, path: `${target.pathname}${target.search}`, headers, agent: this.direct });
    }
    out.on('response', (upstreamRes) => {
      // Chromium would take a 407 as this forwarder asking for credentials it does not have.
      if (up && upstreamRes.statusCode === 407) {
        upstreamRes.resume();
        this.badGateway(res, explainStatus(up, 407));
        return;
      }
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, passOn(upstreamRes.rawHeaders));
      upstreamRes.pipe(res);
    });
    out.on('error', (err) => this.badGateway(res, up ? `the proxy failed: ${err.message}` : `could not reach ${target.host}: ${err.message}`));
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  }

  /**
   * Holds a destination to the egress policy and returns the address to connect to: the checked address
   * itself when going direct; the name as given when an upstream proxy resolves it (only the port and
   * literal addresses can be judged here then). Refusals are reported before they are thrown.
   */
  private async destination(up: Upstream | null, method: string, host: string, port: number): Promise<string> {
    const { policy } = this.egress;
    try {
      policy.checkDestination(host, port, this.privateHosts);
      if (up) return host;
      const addresses = await lookup(host, { all: true, verbatim: true }).catch((err: NodeJS.ErrnoException) => {
        throw new Error(`could not resolve ${host}: ${err.code ?? err.message}`);
      });
      let refusal: EgressRefused | undefined;
      for (const { address } of addresses) {
        try {
          policy.checkAddress(host, address, port, this.privateHosts);
          return address;
        } catch (err) {
          refusal ??= err as EgressRefused;
        }
      }
      throw refusal ?? new Error(`could not resolve ${host}`);
    } catch (err) {
      if (err instanceof EgressRefused) this.egress.refused?.({ method, host, port, code: err.code, message: err.message });
      throw err;
    }
  }

  private badGateway(res: http.ServerResponse, message: string): void {
    this.fail(message);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(502, { 'content-type': 'text/plain', connection: 'close', [FORWARDER_ERROR_HEADER]: 'unreachable' }).end(`${message}\n`);
  }

  /** A tunnel (https://, wss://): CONNECT host:port, opened through the upstream, then bytes both ways. */
  private onConnect(req: http.IncomingMessage, client: Socket, head: Buffer): void {
    this.track(client);
    const authority = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(req.url ?? '');
    if (!authority) {
      client.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
      return;
    }
    const generation = this.generation;
    const [host, port] = [authority[1]!, Number(authority[2])];
    const up = this.routeFor(host, port);
    this.destination(up, 'CONNECT', host, port)
      .then((address) => openTunnel(up, address, port, CONNECT_TIMEOUT_MS))
      .then(
        ({ socket, head: early }) => {
          if (client.destroyed || this.closed || generation !== this.generation) {
            socket.destroy();
            return;
          }
          this.track(socket);
          socket.once('close', () => client.destroy());
          client.once('close', () => socket.destroy());
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (early.length) client.write(early);
          if (head.length) socket.write(head);
          socket.pipe(client);
          client.pipe(socket);
        },
        (err: Error) => {
          if (client.destroyed) return;
          if (err instanceof EgressRefused) {
            const headers = Object.entries(refusalHeaders(err)).map(([k, v]) => `${k}: ${v}\r\n`).join('');
            client.end(`HTTP/1.1 403 Forbidden\r\n${headers}\r\n${err.message}\n`);
            return;
          }
          this.fail(err.message);
          client.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${err.message}\n`);
        },
      );
  }
}

/** A refusal names itself: the page's network log shows the status, this header and the reason. */
function refusalHeaders(err: EgressRefused): Record<string, string> {
  return { 'content-type': 'text/plain', connection: 'close', [EGRESS_REFUSED_HEADER]: err.code };
}

function agentFor(upstream: Upstream | null): http.Agent {
  const options = { keepAlive: true, maxSockets: 256 };
  return upstream?.protocol === 'https' ? new https.Agent(options) : new http.Agent(options);
}

/** Raw header pairs minus the hop-by-hop ones, as a flat list (keeps repeated headers and their case). */
function passOn(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
