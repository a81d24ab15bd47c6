// How many sessions this host runs at once (`bcs serve --max-sessions`): what its memory holds, whatever
// the org's limits allow. A create beyond it waits in line, first come first served, for a bounded time,
// then answers 503 with Retry-After so the client comes back (or, in a cluster, goes to another host).
// A create whose client gave up leaves the line at once: no browser is ever launched for nobody.
import { DomainError } from '../errors.js';

export interface HostCapacityOptions {
  /** Sessions at once, on-demand and pooled (standby browsers are extra); null: no bound but the limits. */
  maxSessions: number | null;
  /** How long a create waits in line for a free slot before its 503. */
  queueTimeoutMs: number;
}

interface Waiter {
  grant: (slot: Slot) => void;
  fail: (err: Error) => void;
}

/** One session's place on the host; released exactly once, when its browser is gone. */
export interface Slot {
  release(): void;
}

/** Seconds a client is asked to wait before trying again, when the line was too long or the host drains. */
export const RETRY_AFTER_S = 5;

export class HostCapacity {
  private used = 0;
  private readonly line: Waiter[] = [];
  private refusing: DomainError | undefined;

  constructor(private readonly opts: HostCapacityOptions) {}

  get max(): number | null {
    return this.opts.maxSessions;
  }

  /** Slots held: sessions running or being created. */
  get inUse(): number {
    return this.used;
  }

  /** Creates waiting in line for a slot: the signal that more hosts would help. */
  get queued(): number {
    return this.line.length;
  }

  /**
   * A slot for one more session: at once while there is room, else after every create that came first.
   * Rejects with 503 `host_full` when the wait passes the queue timeout, with the signal's reason when the
   * caller gives up, and with the refusal while the host refuses new sessions (draining).
   */
  take(signal?: AbortSignal): Promise<Slot> {
    if (this.refusing) return Promise.reject(this.refusing);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.line.length === 0 && this.hasRoom()) return Promise.resolve(this.grant());
    return new Promise<Slot>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.line.indexOf(waiter);
        if (i >= 0) this.line.splice(i, 1);
      };
      const waiter: Waiter = {
        grant: (slot) => {
          leave();
          resolve(slot);
        },
        fail: (err) => {
          leave();
          reject(err);
        },
      };
      const onAbort = () => waiter.fail(signal!.reason as Error);
      const timer = setTimeout(() => waiter.fail(hostFull(this.opts.maxSessions!, this.opts.queueTimeoutMs)), this.opts.queueTimeoutMs);
      timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.line.push(waiter);
    });
  }

  /** From now on every take fails with `err`, those in line too (a host that drains takes no new sessions). */
  refuse(err: DomainError): void {
    this.refusing = err;
    for (const waiter of [...this.line]) waiter.fail(err);
  }

  private hasRoom(): boolean {
    return this.opts.maxSessions === null || this.used < this.opts.maxSessions;
  }

  private grant(): Slot {
    this.used++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.used--;
        // The slot goes to the first in line, in the same turn, so a later take cannot jump the line.
        if (this.line.length && this.hasRoom()) this.line[0]!.grant(this.grant());
      },
    };
  }
}

/** What a draining host answers every create and acquire: 503, come back (to another host) shortly. */
export function drainingRefusal(): DomainError {
  return new DomainError('unavailable', 'draining', 'this host is shutting down and takes no new sessions; try again shortly', undefined, RETRY_AFTER_S);
}

function hostFull(max: number, waitedMs: number): DomainError {
  return new DomainError(
    'unavailable',
    'host_full',
    `every one of this host's ${max} session slots stayed busy for ${Math.round(waitedMs / 1000)} s; try again shortly`,
    undefined,
    RETRY_AFTER_S,
  );
}
