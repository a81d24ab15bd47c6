// The event streams of deployments, invocations and login flows: every event is stored (so a follow with
// `since`, or one that starts after the end, sees what happened) and handed to live followers at once.

/** Where events are kept, per owner (a deployment, invocation or flow id), in order. */
export interface EventStore {
  addEvent(ownerId: string, tsMs: number, event: object): void;
  events(ownerId: string, sinceMs: number): Array<{ event: string }>;
}

export type StoredEvent = { event: string; timestamp: string } & Record<string, unknown>;
type Follower = (event: StoredEvent) => void;

export class EventLog {
  private readonly followers = new Map<string, Set<Follower>>();

  constructor(
    private readonly repo: EventStore,
    private readonly now: () => Date,
  ) {}

  /** Stores and sends an event of `ownerId` (a deployment, invocation or flow id); `fields` without the timestamp. */
  publish(ownerId: string, fields: { event: string } & Record<string, unknown>): void {
    const at = this.now();
    const event = { ...fields, timestamp: at.toISOString() } as StoredEvent;
    this.repo.addEvent(ownerId, at.getTime(), event);
    for (const follower of this.followers.get(ownerId) ?? []) follower(event);
  }

  log(ownerId: string, message: string): void {
    this.publish(ownerId, { event: 'log', message });
  }

  /** Stored events from `sinceMs` on, then live ones to `follower` until the returned function is called. */
  follow(ownerId: string, sinceMs: number, follower: Follower): () => void {
    // Reading the stored ones and subscribing happen in one synchronous step: no event can fall between.
    for (const row of this.repo.events(ownerId, sinceMs)) follower(JSON.parse(row.event) as StoredEvent);
    let set = this.followers.get(ownerId);
    if (!set) this.followers.set(ownerId, (set = new Set()));
    set.add(follower);
    return () => {
      set.delete(follower);
      if (set.size === 0) this.followers.delete(ownerId);
    };
  }
}
