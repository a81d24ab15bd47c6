// Alert channels reach destinations a deployer names, from inside the service, so the egress policy that
// holds sessions' traffic decides here too: on the address actually connected to. A name is resolved at
// connect time by the lookup below (http/https) or once before connecting to the checked address (SMTP),
// never checked first and resolved again, so a DNS answer that changes in between (rebinding) cannot lead
// a delivery to a private or loopback address.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { EgressPolicy, EgressRefused, PrivateHosts } from '../../network/index.js';
import { DestinationRefused } from './errors.js';

/** Whether an alert may connect to `ip` (already resolved) on `port`. */
export type AllowAddress = (ip: string, port: number) => boolean;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a name resolves to, in the resolver's order (injected by tests to map made-up names). */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolve = async (host) =>
  (await dnsLookup(host, { all: true, order: 'verbatim' })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * The service's egress policy as an AllowAddress: public addresses pass, private and loopback ones only as
 * the policy's mode lets them (`local` lets this host's loopback through), and never a port of the service
 * itself. `privateNetworks` are the private addresses and ranges the operator lets alerts reach (an internal
 * Alertmanager or mail relay: `bcs serve --alert-private-networks`); only addresses, since the check is on
 * the address connected to.
 */
export function allowAddressUnder(policy: EgressPolicy, privateNetworks: PrivateHosts = new PrivateHosts()): AllowAddress {
  return (ip, port) => {
    try {
      policy.checkAddress(ip, ip, port, privateNetworks);
      return true;
    } catch (err) {
      if (err instanceof EgressRefused) return false;
      throw err;
    }
  };
}

/**
 * The addresses of `host` (a name or a literal, IPv6 with or without brackets) the policy allows, in the
 * resolver's order. Throws DestinationRefused, naming the first address, when it allows none: an answer
 * mixing public and private addresses is narrowed to the public ones rather than refused.
 */
export async function allowedAddresses(host: string, port: number, allow: AllowAddress, resolve: Resolve): Promise<ResolvedAddress[]> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  const all: ResolvedAddress[] = family ? [{ address: bare, family: family === 6 ? 6 : 4 }] : await resolve(bare);
  if (all.length === 0) throw Object.assign(new Error(`${bare} did not resolve to any address`), { code: 'ENOTFOUND' });
  const allowed = all.filter((a) => allow(a.address, port));
  if (allowed.length === 0) throw new DestinationRefused(all[0]!.address);
  return allowed;
}

/** A `lookup` for net/http/https that answers only with addresses the policy allows for `port`. */
export function guardedLookup(port: number, allow: AllowAddress, resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    allowedAddresses(hostname, port, allow, resolve).then(
      (list) => {
        const wanted = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const fitting = wanted ? list.filter((a) => a.family === wanted) : list;
        if (fitting.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no allowed IPv${wanted} address`), { code: 'ENOTFOUND' }), '', 0);
        } else if (options.all) {
          callback(null, fitting);
        } else {
          callback(null, fitting[0]!.address, fitting[0]!.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
