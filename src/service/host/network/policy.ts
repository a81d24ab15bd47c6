// The egress rules every session's traffic is held to (the seed's Limits table): SMTP's port 25 is
// refused; private and other non-public addresses are refused unless the session lists them in
// `network.private_hosts` (or, under the local-development policy, they are this host's loopback);
// public destinations are allowed on any port. Whatever the policy and the lists say, a session never
// reaches a port of the service itself on this host (its API, its DevTools bridges, the egress proxies).
import { networkInterfaces } from 'node:os';
import { isLoopback, isPublic, parseAddress, PrivateHosts } from './addresses.js';

/** `hosted`: as the hosted service; `local`: this host's loopback is reachable too (local development). */
export type EgressMode = 'hosted' | 'local';

export type EgressRefusalCode = 'smtp_blocked' | 'private_address' | 'service_port';

export class EgressRefused extends Error {
  override name = 'EgressRefused';
  constructor(
    readonly code: EgressRefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** Ports of the service's own listeners on this host; added as each starts listening, removed when it stops. */
export class ServicePorts {
  private readonly ports = new Map<number, number>();

  add(port: number): () => void {
    this.ports.set(port, (this.ports.get(port) ?? 0) + 1);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const left = (this.ports.get(port) ?? 1) - 1;
      if (left > 0) this.ports.set(port, left);
      else this.ports.delete(port);
    };
  }

  has(port: number): boolean {
    return this.ports.has(port);
  }
}

/** This host's own interface addresses: a listener on 0.0.0.0 is reachable on each of them. */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const info of list ?? []) own.add(parseAddress(info.address)?.toString() ?? info.address);
  return own;
}

const OWN_ADDRESSES_TTL_MS = 10_000;

export class EgressPolicy {
  private own: { at: number; set: Set<string> } | undefined;

  constructor(
    readonly mode: EgressMode,
    private readonly servicePorts: ServicePorts,
  ) {}

  /** Refusals that need no address: the port alone, or a name or literal the rules refuse outright. */
  checkDestination(host: string, port: number, allowed: PrivateHosts): void {
    if (port === 25) throw new EgressRefused('smtp_blocked', `${authority(host, port)}: SMTP (port 25) is blocked`);
    const literal = parseAddress(host);
    if (literal) this.checkAddress(host, literal.toString(), port, allowed);
  }

  /** The address `host` resolved to (or is); throws EgressRefused when the session may not connect to it. */
  checkAddress(host: string, address: string, port: number, allowed: PrivateHosts): void {
    const parsed = parseAddress(address);
    if (!parsed) throw new EgressRefused('private_address', `${authority(host, port)}: '${address}' is not an address`);
    const normal = parsed.toString();
    if (this.servicePorts.has(port) && (isLoopback(parsed) || this.ownAddresses().has(normal))) {
      throw new EgressRefused('service_port', `${authority(host, port)}: port ${port} of this host belongs to the browser service`);
    }
    if (isPublic(parsed)) return;
    if (allowed.hasName(host) || allowed.hasAddress(parsed)) return;
    if (this.mode === 'local' && isLoopback(parsed)) return;
    const what = isLoopback(parsed) ? 'a loopback address' : 'a private or non-public address';
    throw new EgressRefused(
      'private_address',
      `${authority(host, port)}: ${normal} is ${what}; list it in the browser's network.private_hosts to reach it`,
    );
  }

  private ownAddresses(): Set<string> {
    const now = Date.now();
    if (!this.own || now - this.own.at > OWN_ADDRESSES_TTL_MS) this.own = { at: now, set: ownAddresses() };
    return this.own.set;
  }
}

function authority(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
