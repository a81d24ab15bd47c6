// A browser host answers its cluster's replicas (they carry the cluster key) and its own processes on
// loopback (app workers call the service they run under); nothing else. Clients reach a host only through
// a replica, which authenticates nothing for it: the host still checks every API key and session token.
import type { IncomingHttpHeaders } from 'node:http';
import type { ClusterKey } from './cluster-key.js';

export type HostGuard = (headers: IncomingHttpHeaders, remoteAddress: string | undefined) => boolean;

export function hostGuard(key: ClusterKey): HostGuard {
  return (headers, remoteAddress) => key.carriedBy(headers) || isLoopback(remoteAddress);
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

export const notFromReplica = {
  code: 'cluster_key_required',
  message: 'this is a browser host of a cluster: it answers its API replicas only; send requests to a replica (the public URL)',
} as const;
