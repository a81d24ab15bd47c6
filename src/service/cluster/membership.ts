// A browser host's place in the cluster: it registers, heartbeats its load, and on each beat looks for
// hosts that went silent (their sessions end as host_lost) and tries for the leader lock, whose holder runs
// what exists once per cluster (pools, apps, login flows). A host that finds itself declared gone (it was
// cut off longer than the others waited) ends what it still runs: its records say those sessions ended.
import type { HostLoad, HostRow, HostsRepo, LostHost } from '../store/hosts-repo.js';

export interface MembershipDeps {
  hosts: HostsRepo;
  id: string;
  url: string;
  maxSessions: number | null;
  load(): Omit<HostLoad, 'leader'>;
  /** Takes the leader lock if it is free; true once held (held until the process's database closes). */
  tryLead(): Promise<boolean>;
  /** This host became the leader: start what runs once per cluster, given the live hosts. */
  led(hosts: HostRow[]): Promise<void>;
  /** Every later beat of the leader, with the live hosts as read now. */
  leading(hosts: HostRow[]): Promise<void>;
  /** Hosts found silent and declared gone, with the sessions that ended with them. */
  lost(hosts: LostHost[]): void;
  /** This host was declared gone while it ran: end what it runs; it registers again after. */
  declaredGone(): Promise<void>;
  heartbeatMs: number;
  /** How long a host may stay silent before it is declared gone. */
  silentMs: number;
  now: () => Date;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

export class HostMembership {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private leading = false;
  private closed = false;

  constructor(private readonly deps: MembershipDeps) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /** Registers and beats once (so replicas can place on this host as soon as this resolves), then every heartbeatMs. */
  async start(): Promise<void> {
    await this.deps.hosts.register(this.deps.id, this.deps.url, this.deps.maxSessions);
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.deps.heartbeatMs);
    this.timer.unref();
  }

  /** One heartbeat; a beat still running when the next is due is not doubled. */
  beat(): Promise<void> {
    return (this.beating ??= this.beatOnce().finally(() => (this.beating = undefined)));
  }

  private async beatOnce(): Promise<void> {
    const { deps } = this;
    try {
      if (!(await deps.hosts.heartbeat(deps.id, { ...deps.load(), leader: this.leading }))) {
        if (this.closed) return;
        deps.log.warn({ host_id: deps.id }, 'this host was declared gone (silent too long): ending its sessions and registering again');
        await deps.declaredGone();
        await deps.hosts.register(deps.id, deps.url, deps.maxSessions);
      }
      const lost = await deps.hosts.reapSilent(deps.silentMs, deps.now());
      if (lost.length) deps.lost(lost);
      if (this.leading) {
        await deps.leading(await deps.hosts.live(deps.silentMs));
      } else if (!this.closed && (await deps.tryLead())) {
        this.leading = true;
        deps.log.info({ host_id: deps.id }, 'this host leads the cluster: it runs pools, apps and login flows');
        await deps.led(await deps.hosts.live(deps.silentMs));
      }
    } catch (err) {
      // The database unreachable for a moment: the next beat tries again; others see this host late meanwhile.
      deps.log.warn({ host_id: deps.id, err: (err as Error).message }, 'a cluster heartbeat failed');
    }
  }

  /** Stops beating and leaves: replicas stop placing on and routing to this host. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.beating;
    await this.deps.hosts.leave(this.deps.id).catch((err: unknown) => this.deps.log.warn({ err: (err as Error).message }, 'could not leave the cluster'));
  }
}
