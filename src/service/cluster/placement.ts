// Where a replica sends what it is given: a create to the host with room (one with a standby browser
// ready first, then the least loaded), everything that is not one session's to the leader host (it runs
// pools, apps and login flows), a session's requests to the host that runs it.
import type { HostRow } from '../store/hosts-repo.js';

/** Free slots of a host by its last heartbeat and this replica's creates on their way to it. */
function free(host: HostRow, inFlight: number): number {
  return host.max_sessions === null ? Number.POSITIVE_INFINITY : host.max_sessions - host.sessions - host.queued - inFlight;
}

function load(host: HostRow, inFlight: number): number {
  const used = host.sessions + host.queued + inFlight;
  return host.max_sessions === null ? used / 1e6 : used / host.max_sessions;
}

/**
 * The host a create goes to; undefined when there is none that takes sessions. When every host is full,
 * the least loaded one: the create waits in its line (and answers 503 with Retry-After if none frees).
 */
export function placeCreate(hosts: readonly HostRow[], inFlight: (hostId: string) => number): HostRow | undefined {
  const open = hosts.filter((h) => !h.draining);
  const withRoom = open.filter((h) => free(h, inFlight(h.id)) > 0);
  const candidates = withRoom.length ? withRoom : open;
  let best: HostRow | undefined;
  let bestKey: [number, number, string] | undefined;
  for (const host of candidates) {
    const n = inFlight(host.id);
    // A ready standby browser makes a create a handoff; it only counts while the host has room for it.
    const key: [number, number, string] = [host.standby_ready > n && withRoom.length ? 0 : 1, load(host, n), host.id];
    if (!bestKey || compare(key, bestKey) < 0) {
      best = host;
      bestKey = key;
    }
  }
  return best;
}

/** The host that serves what belongs to no one session; when no host leads (a failover), any live one. */
export function leaderOf(hosts: readonly HostRow[]): HostRow | undefined {
  return hosts.find((h) => h.leader) ?? hosts.find((h) => !h.draining) ?? hosts[0];
}

function compare(a: [number, number, string], b: [number, number, string]): number {
  return a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
}
