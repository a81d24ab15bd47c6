// Where the leader puts a pool's browsers: spread over the live hosts that take sessions, each next one on
// the host with the fewest of that pool's browsers (then the least loaded), so one host lost takes only
// its share of a pool. The hosts are as the leader read them at its last heartbeat.
import type { LivePool, MemberOps, PoolMembers } from '../host/pools/index.js';
import type { HostRow } from '../store/hosts-repo.js';
import type { ClusterKey } from './cluster-key.js';
import { RemotePoolMembers } from './remote-pool-members.js';

export class PoolHosts {
  private hosts: readonly HostRow[] = [];
  private readonly remote = new Map<string, RemotePoolMembers>();

  constructor(
    private readonly local: PoolMembers,
    private readonly key: ClusterKey,
  ) {}

  /** The live hosts as just read (the leader's heartbeat). */
  update(hosts: readonly HostRow[]): void {
    this.hosts = hosts;
  }

  /** Every live host's pool browsers, this one's included (a new leader adopts them). */
  all(): MemberOps[] {
    const others = this.hosts.filter((h) => h.id !== this.local.hostId).map((h) => this.of(h));
    return [this.local, ...others];
  }

  place = (pool: LivePool): MemberOps => {
    const open = this.hosts.filter((h) => !h.draining);
    // Before the first read (or with this host alone), the browser runs here.
    if (!open.length) return this.local;
    const withRoom = open.filter((h) => h.max_sessions === null || h.sessions + h.queued < h.max_sessions);
    const candidates = withRoom.length ? withRoom : open;
    let best = candidates[0]!;
    for (const h of candidates.slice(1)) if (compare(h, best, pool) < 0) best = h;
    return best.id === this.local.hostId ? this.local : this.of(best);
  };

  private of(host: HostRow): MemberOps {
    let ops = this.remote.get(host.id);
    // A host that registered again may have come back at another address.
    if (!ops || ops.url !== host.url) {
      ops = new RemotePoolMembers(host.id, host.url, this.key);
      this.remote.set(host.id, ops);
    }
    return ops;
  }
}

function compare(a: HostRow, b: HostRow, pool: LivePool): number {
  return pool.countOn(a.id) - pool.countOn(b.id) || load(a) - load(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function load(h: HostRow): number {
  const used = h.sessions + h.queued;
  return h.max_sessions === null ? used / 1e6 : used / h.max_sessions;
}
