// What a replica knows of the hosts: the live ones, read from the database every refreshMs (never per
// request), and the creates it has sent each host that are not answered yet, so a burst of creates is
// spread over the hosts rather than all sent to the one that looked emptiest at the last read.
import type { HostRow, HostsRepo } from '../store/hosts-repo.js';

export class HostDirectory {
  private hosts: HostRow[] = [];
  private readonly byId = new Map<string, HostRow>();
  private readonly inFlight = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      repo: HostsRepo;
      refreshMs: number;
      silentMs: number;
      warn(obj: object, msg: string): void;
    },
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.deps.refreshMs);
    this.timer.unref();
  }

  /**
   * Reads the live hosts now. A silent host drops out of the list at once; declaring it gone (ending its
   * sessions, finishing its replays) is the other hosts' work, on their heartbeats.
   */
  refresh(): Promise<void> {
    return (this.refreshing ??= (async () => {
      try {
        this.hosts = await this.deps.repo.live(this.deps.silentMs);
        this.byId.clear();
        for (const h of this.hosts) this.byId.set(h.id, h);
      } catch (err) {
        this.deps.warn({ err: (err as Error).message }, 'could not read the cluster hosts; routing on the last list');
      }
    })().finally(() => (this.refreshing = undefined)));
  }

  get live(): readonly HostRow[] {
    return this.hosts;
  }

  get(id: string | null): HostRow | undefined {
    return id === null ? undefined : this.byId.get(id);
  }

  creating(hostId: string): number {
    return this.inFlight.get(hostId) ?? 0;
  }

  /** Counts a create sent to `hostId` until the returned function is called (its answer ended). */
  sent(hostId: string): () => void {
    this.inFlight.set(hostId, this.creating(hostId) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = this.creating(hostId) - 1;
      if (n > 0) this.inFlight.set(hostId, n);
      else this.inFlight.delete(hostId);
    };
  }

  close(): void {
    clearInterval(this.timer);
  }
}
