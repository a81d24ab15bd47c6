// What an address is, for the egress policy: public or not (ipaddr.js knows the special-purpose ranges),
// loopback or not, and whether a destination is one of a session's `network.private_hosts` (host names,
// `*.` wildcards, addresses and CIDRs).
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { invalidField } from '../errors.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** An address with IPv4-mapped IPv6 (::ffff:10.0.0.1) read as the IPv4 it carries, or null if not an address. */
export function parseAddress(text: string): Address | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  if (!isIP(bare)) return null;
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

/** Globally routable unicast: everything else (private, loopback, link-local, CGNAT, ULA, reserved, ...) is not. */
export function isPublic(address: Address): boolean {
  return address.range() === 'unicast';
}

/** Loopback, or the unspecified address, which a connect on Linux also delivers to this host. */
export function isLoopback(address: Address): boolean {
  const range = address.range();
  return range === 'loopback' || range === 'unspecified';
}

/** Why a `network.private_hosts` entry is not usable, or null when it is. */
export function privateHostProblem(entry: string): string | null {
  if (entry.includes('/')) return ipaddr.isValidCIDR(entry) ? null : `'${entry}' is not a valid CIDR`;
  if (parseAddress(entry)) return null;
  const name = entry.startsWith('*.') ? entry.slice(2) : entry;
  return /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i.test(name)
    ? null
    : `'${entry}' is neither a host name, an address nor a CIDR`;
}

/** Refuses a `network` whose private_hosts has an entry that is not usable, naming it (`body.network.private_hosts[2]`). */
export function checkNetwork(network: { private_hosts?: readonly string[] } | undefined, input: string): void {
  network?.private_hosts?.forEach((entry, i) => {
    const problem = privateHostProblem(entry);
    if (problem) throw invalidField(`${input}.network.private_hosts[${i}]`, problem);
  });
}

/** A session's `network.private_hosts`, compiled once. Entries are assumed valid (see privateHostProblem). */
export class PrivateHosts {
  private readonly names = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly ranges: Array<[Address, number]> = [];

  constructor(readonly entries: readonly string[] = []) {
    for (const entry of entries) {
      if (entry.includes('/')) this.ranges.push(ipaddr.parseCIDR(entry));
      else if (parseAddress(entry)) this.ranges.push(hostRange(parseAddress(entry)!));
      else if (entry.startsWith('*.')) this.suffixes.push(normalName(entry.slice(1)));
      else this.names.add(normalName(entry));
    }
  }

  get empty(): boolean {
    return this.entries.length === 0;
  }

  /** The destination's name is listed (exactly, or below a `*.` entry). */
  hasName(host: string): boolean {
    const name = normalName(host);
    return this.names.has(name) || this.suffixes.some((suffix) => name.endsWith(suffix));
  }

  hasAddress(address: Address): boolean {
    return this.ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
  }
}

function hostRange(address: Address): [Address, number] {
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

function normalName(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}
