// The event streams of deployments, invocations and login flows: every event is stored (so a follow with
// `since`, or one that starts after the end, sees what happened) and handed to live followers at once.

/** Where events are kept, per owner (a deployment, invocation or flow id), in order. */
export interface EventStore {
  addEvent(ownerId: string, tsMs: number, event: object): Promise<unknown>;
  events(ownerId: string, sinceMs: number): Promise<Array<{ event: string }>>;
}

export type StoredEvent = { event: string; timestamp: string } & Record<string, unknown>;
type Follower = (event: StoredEvent) => void;

export class EventLog {
  private readonly followers = new Map<string, Set<Follower>>();
  /**
   * Per owner, the end of its store work (event writes and follows' reads) in the order it was asked. A read
   * queued behind the writes of the events published before its follow subscribed, and ahead of those of
   * later ones, sees exactly the events its follower will not get live.
   */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly repo: EventStore,
    private readonly now: () => Date,
    private readonly logger?: { warn: (obj: object, msg: string) => void },
  ) {}

  /**
   * Sends an event of `ownerId` (a deployment, invocation or flow id) to its followers now and stores it in
   * the background, after the owner's earlier events; `fields` without the timestamp.
   */
  publish(ownerId: string, fields: { event: string } & Record<string, unknown>): void {
    const at = this.now();
    const event = { ...fields, timestamp: at.toISOString() } as StoredEvent;
    this.queued(ownerId, () => this.repo.addEvent(ownerId, at.getTime(), event)).catch((err: unknown) =>
      this.logger?.warn({ err, owner: ownerId, event: fields.event }, 'could not store an event'),
    );
    for (const follower of this.followers.get(ownerId) ?? []) follower(event);
  }

  log(ownerId: string, message: string): void {
    this.publish(ownerId, { event: 'log', message });
  }

  /**
   * Stored events from `sinceMs` on, then live ones to `follower` until the returned function is called.
   * Resolves once the stored ones (and live ones that came meanwhile, after them) were handed over.
   */
  async follow(ownerId: string, sinceMs: number, follower: Follower): Promise<() => void> {
    // Subscribed before the read is queued: an event published from here on is held, not lost or doubled.
    let held: StoredEvent[] | null = [];
    let following = true;
    const entry: Follower = (event) => {
      if (!following) return;
      if (held) held.push(event);
      else follower(event);
    };
    let set = this.followers.get(ownerId);
    if (!set) this.followers.set(ownerId, (set = new Set()));
    set.add(entry);
    const unfollow = () => {
      following = false;
      set.delete(entry);
      if (set.size === 0 && this.followers.get(ownerId) === set) this.followers.delete(ownerId);
    };
    try {
      const rows = await this.queued(ownerId, () => this.repo.events(ownerId, sinceMs));
      for (const row of rows) if (following) follower(JSON.parse(row.event) as StoredEvent);
    } catch (err) {
      unfollow();
      throw err;
    }
    // A follower may unfollow while handed these; the rest are dropped then.
    for (const event of held) if (following) follower(event);
    held = null;
    return unfollow;
  }

  /** Settles once every event published so far is stored (or failed to be): before the database closes. */
  async flush(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()]);
  }

  /** Runs `work` after the owner's earlier store work; its failure is the caller's, not the queue's. */
  private queued<T>(ownerId: string, work: () => Promise<T>): Promise<T> {
    const result = (this.queues.get(ownerId) ?? Promise.resolve()).then(work);
    const tail = result.then(
      () => {},
      () => {},
    );
    this.queues.set(ownerId, tail);
    void tail.then(() => {
      if (this.queues.get(ownerId) === tail) this.queues.delete(ownerId);
    });
    return result;
  }
}
