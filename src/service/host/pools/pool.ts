// One browser pool's books: which browsers it has and on which host (this one, or in a cluster any host,
// members.ts), which are idle and which leased, the acquires waiting for one (first come, first served),
// and filling back up to size. Kept by one process only (the single process, or a cluster's leader), so
// leases and the waiters' order are exact without a lock; the browsers themselves run where they were placed.
//
// Fill rate: the hosted service fills `fill_rate_per_minute` percent of the pool per minute because a
// VM takes tens of seconds to boot. A browser here starts in well under a second, so the rate is applied
// as how many of the pool's browsers may launch at once, ceil(size x rate / 100) and at least one: a pool
// of 3 at 25% launches one at a time and is full in about three launch times; a pool of 40 at 25%
// launches 10 at a time. Launching starts as soon as the pool is created, and after any browser leaves.
import type { BrowserPoolAcquireParams } from '../../../api/types.js';
import { DomainError, conflict, notFound, unavailable } from '../errors.js';
import type { BrowserRow, BrowsersRepo } from '../../store/browsers-repo.js';
import type { PoolRow } from '../../store/pools-repo.js';
import type { Logger } from '../session/index.js';
import { nameTaken, type MemberInfo, type MemberOps, type ReleaseTicket } from './members.js';

const MAX_BACKOFF_MS = 30_000;

interface Member {
  readonly id: string;
  readonly host: MemberOps;
  state: 'idle' | 'leased' | 'resetting';
  /** Flushed while it was being reset: ended when the reset is done rather than made idle with the old config. */
  discard?: string;
}

interface Waiter {
  readonly body: BrowserPoolAcquireParams;
  resolve(row: BrowserRow | undefined): void;
  reject(err: unknown): void;
  timer?: NodeJS.Timeout;
  /** When its long poll runs out (Date.now() clock). */
  readonly deadline: number;
  /** Gives up: out of the line, answered with nothing (204). */
  leave(): void;
  gone: boolean;
}

export interface PoolDeps {
  browsers: Pick<BrowsersRepo, 'getActiveByName'>;
  log: Logger;
  /** The host the pool's next browser launches on. */
  place(pool: LivePool): MemberOps;
  /** Whether the service is stopping (a failed launch then is no reason to back off and retry). */
  closing(): boolean;
}

export class LivePool {
  private readonly members = new Map<string, Member>();
  private readonly idle: string[] = [];
  private readonly waiters: Waiter[] = [];
  /** Browsers being launched, by host id (counted towards the pool's size and each host's share). */
  private readonly launching = new Map<string, number>();
  /** Members that ended while their launch was still being answered. */
  private readonly endedEarly = new Set<string>();
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  /** Why acquires are refused once the service stops or drains (a deleted pool answers 404 instead). */
  private refusal: DomainError | undefined;
  private closed = false;

  constructor(
    public row: PoolRow,
    private readonly deps: PoolDeps,
  ) {}

  get id(): string {
    return this.row.id;
  }

  get availableCount(): number {
    return this.idle.length;
  }

  get acquiredCount(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.state === 'leased') n++;
    return n;
  }

  /** Acquires waiting for a browser to free up. */
  get waitingCount(): number {
    return this.waiters.length;
  }

  /** Browsers being launched for the pool right now (not yet members). */
  get launchingCount(): number {
    let n = 0;
    for (const k of this.launching.values()) n += k;
    return n;
  }

  /** The pool's browsers on one host, launched or launching (placement spreads a pool over hosts). */
  countOn(hostId: string): number {
    let n = this.launching.get(hostId) ?? 0;
    for (const m of this.members.values()) if (m.host.hostId === hostId) n++;
    return n;
  }

  /** How many of the pool's browsers may launch at once (see the top of this file). */
  get parallelLaunches(): number {
    return Math.max(1, Math.ceil((this.row.config.size * this.row.config.fill_rate_per_minute) / 100));
  }

  /** The default long-poll: time to refill the whole pool at its rate, allowing 2 s per launch round. */
  get defaultAcquireTimeoutSeconds(): number {
    return Math.min(50, Math.max(10, 2 * Math.ceil(this.row.config.size / this.parallelLaunches)));
  }

  private get label(): string {
    return `pool '${this.row.name ?? this.row.id}'`;
  }

  has(sessionId: string): boolean {
    return this.members.has(sessionId);
  }

  fill(): void {
    while (!this.closed && !this.retry && this.members.size + this.launchingCount < this.row.config.size && this.launchingCount < this.parallelLaunches) {
      let host: MemberOps;
      try {
        host = this.deps.place(this);
      } catch (err) {
        this.backOff((err as Error).message);
        return;
      }
      this.launching.set(host.hostId, (this.launching.get(host.hostId) ?? 0) + 1);
      void this.warmOne(host);
    }
  }

  /** A browser that cannot start (or dies at once) will likely do so again on the next try: wait first. */
  private backOff(why: string): void {
    if (this.retry) return;
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.failures++);
    this.deps.log.warn({ pool_id: this.id, err: why, retry_in_ms: delay }, 'could not warm a pool browser');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.fill();
    }, delay);
    this.retry.unref();
  }

  private async warmOne(host: MemberOps): Promise<void> {
    let id: string;
    try {
      id = await host.launch(this.row);
    } catch (err) {
      this.launched(host);
      if (!this.closed && !this.deps.closing()) this.backOff((err as Error).message);
      return;
    }
    this.launched(host);
    if (this.endedEarly.delete(id)) {
      if (!this.closed) this.backOff('the browser ended before it was ready');
      return;
    }
    this.members.set(id, { id, host, state: 'resetting' });
    if (this.closed || this.members.size > this.row.config.size) {
      this.members.delete(id);
      void host.end(id, `${this.label} no longer needs it`).catch(() => undefined);
      return;
    }
    this.failures = 0;
    this.becomeIdle(this.members.get(id)!);
    this.fill();
  }

  private launched(host: MemberOps): void {
    const left = (this.launching.get(host.hostId) ?? 1) - 1;
    if (left > 0) this.launching.set(host.hostId, left);
    else this.launching.delete(host.hostId);
  }

  /** Takes in browsers a host already runs for this pool (a new leader adopts the last one's). */
  adopt(host: MemberOps, found: MemberInfo[]): void {
    for (const m of found) {
      if (this.members.has(m.id)) continue;
      const member: Member = { id: m.id, host, state: m.state };
      this.members.set(m.id, member);
      if (m.state === 'idle') this.becomeIdle(member);
    }
  }

  /** Leases an idle browser now, or waits up to `timeoutMs` for one; undefined means none came (204). */
  async acquire(body: BrowserPoolAcquireParams, timeoutMs: number, gone: Promise<void>): Promise<BrowserRow | undefined> {
    if (this.refusal) throw this.refusal;
    if (this.closed) throw notFound('browser pool', this.row.name ?? this.row.id);
    // Refused before waiting; checked again when the browser is leased, since a name can be taken meanwhile.
    if (body.name && (await this.deps.browsers.getActiveByName(this.row.project_id, body.name))) throw nameTaken(body.name);
    if (this.closed) throw notFound('browser pool', this.row.name ?? this.row.id);
    const deadline = Date.now() + timeoutMs;
    if (this.waiters.length === 0) {
      const lease = this.leaseIdle(body);
      // None leased when every idle browser went while it was being leased: the caller waits like any other.
      const row = lease && (await lease);
      if (row) return row;
    }
    if (deadline <= Date.now()) return undefined;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        body,
        resolve,
        reject,
        gone: false,
        deadline,
        leave: () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          clearTimeout(waiter.timer);
          resolve(undefined);
        },
      };
      void gone.then(() => {
        waiter.gone = true;
        waiter.leave();
      });
      this.wait(waiter, false);
    });
  }

  /** Puts a waiter in line (at its head when it was already served once and got nothing) until its deadline. */
  private wait(waiter: Waiter, first: boolean): void {
    if (waiter.gone) return waiter.resolve(undefined);
    clearTimeout(waiter.timer);
    waiter.timer = setTimeout(waiter.leave, Math.max(0, waiter.deadline - Date.now()));
    if (first) this.waiters.unshift(waiter);
    else this.waiters.push(waiter);
  }

  /** Ends a lease: the holder's connections and CDP URL stop working, then the browser is reset or replaced. */
  async release(sessionId: string, reuse: boolean): Promise<void> {
    const member = this.members.get(sessionId);
    if (!member) throw new DomainError('not_found', 'not_found', `browser '${sessionId}' is not in ${this.label}`);
    if (member.state !== 'leased') throw conflict(`browser '${sessionId}' is not acquired from ${this.label} (it is ${member.state})`);
    member.state = 'resetting';
    const keep = reuse && !this.closed && this.members.size <= this.row.config.size;
    const why = !reuse ? `released to ${this.label} with reuse: false` : `${this.label} no longer needs it`;
    let ticket: ReleaseTicket;
    try {
      ticket = await member.host.release(sessionId, keep, this.label, why);
    } catch (err) {
      if (this.members.get(sessionId) === member) member.state = 'leased';
      throw err;
    }
    // Answered now; the browser comes back idle once it is reset (the next acquire waits for it).
    void ticket.after
      .catch((err: unknown) => {
        this.deps.log.warn({ pool_id: this.id, session_id: sessionId, err: (err as Error).message }, 'a released pool browser was not recycled');
        return 'ended' as const;
      })
      .then(async (after) => {
        if (this.members.get(sessionId) !== member) return;
        const surplus = this.members.size > this.row.config.size ? `${this.label} no longer needs it` : undefined;
        if (after === 'idle' && !this.closed && !member.discard && !surplus) return this.becomeIdle(member);
        this.dropped(sessionId);
        if (after === 'idle') await member.host.end(sessionId, member.discard ?? surplus ?? `${this.label} is closed`).catch((err: unknown) => this.endFailed(sessionId, err));
        this.fill();
      });
  }

  /** Destroys the idle browsers (and those being reset, once they are); the pool refills with its current config. Leased ones are untouched. */
  async flush(why = 'flushed'): Promise<void> {
    for (const m of this.members.values()) if (m.state === 'resetting') m.discard = `${why} from ${this.label}`;
    await this.endIdle(this.idle.length, `${why} from ${this.label}`);
  }

  /** Applies an updated config to browsers launched from now on; shrinking destroys surplus idle ones. */
  async reconfigure(row: PoolRow, discardIdle: boolean): Promise<void> {
    this.row = row;
    if (discardIdle) await this.flush('discarded on update');
    const surplus = Math.min(this.members.size - row.config.size, this.idle.length);
    if (surplus > 0) await this.endIdle(surplus, `${this.label} shrank`);
    this.fill();
  }

  private async endIdle(count: number, why: string): Promise<void> {
    const ids = this.idle.splice(0, count);
    for (const id of ids) this.members.get(id)!.state = 'resetting';
    await Promise.all(ids.map((id) => this.members.get(id)?.host.end(id, why).catch((err: unknown) => this.endFailed(id, err))));
  }

  /** A member's host said it ended, however that happened (DELETE, timeout, crash, its host lost). */
  memberEnded(sessionId: string): void {
    if (!this.members.has(sessionId)) {
      if (this.launchingCount > 0) this.endedEarly.add(sessionId);
      return;
    }
    this.dropped(sessionId);
    this.fill();
  }

  /** The ids of members on hosts other than this process's, to check against the sessions still active. */
  remoteMembers(localHostId: string): string[] {
    return [...this.members.values()].filter((m) => m.host.hostId !== localHostId).map((m) => m.id);
  }

  private dropped(sessionId: string): void {
    this.members.delete(sessionId);
    const i = this.idle.indexOf(sessionId);
    if (i >= 0) this.idle.splice(i, 1);
  }

  private endFailed(id: string, err: unknown): void {
    // The host did not answer: it ends the browser with the rest of its sessions when it is declared gone.
    this.deps.log.warn({ pool_id: this.id, session_id: id, err: (err as Error).message }, 'could not end a pool browser');
    this.dropped(id);
  }

  /** The pool was deleted: waiters get 404, and every browser ends, leased ones too. */
  async destroy(): Promise<void> {
    this.stop((w) => w.reject(notFound('browser pool', this.row.name ?? this.row.id)));
    const all = [...this.members.values()];
    await Promise.all(all.map((m) => m.host.end(m.id, `${this.label} was deleted`).catch((err: unknown) => this.endFailed(m.id, err))));
  }

  /** Service shutdown: stop filling and answer waiters; the session manager ends the browsers. */
  close(): void {
    this.refuse(unavailable('shutting_down', 'the service is shutting down'));
  }

  /** Stops filling and leasing: waiters and later acquires get `err` (a draining host); leases run on. */
  refuse(err: DomainError): void {
    this.refusal ??= err;
    this.stop((w) => w.reject(err));
  }

  private stop(answer: (w: Waiter) => void): void {
    this.closed = true;
    clearTimeout(this.retry);
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      answer(w);
    }
  }

  private becomeIdle(member: Member): void {
    member.state = 'idle';
    this.idle.push(member.id);
    this.serveWaiters();
  }

  /** Hands idle browsers to waiters, first come first served; each lease claims its browser at once. */
  private serveWaiters(): void {
    while (this.waiters.length && this.idle.length) {
      const waiter = this.waiters.shift()!;
      clearTimeout(waiter.timer);
      if (waiter.gone) continue;
      const lease = this.leaseIdle(waiter.body);
      if (!lease) return this.wait(waiter, true);
      lease.then((row) => {
        if (row) return waiter.resolve(row);
        // The browser went while it was being leased: back at the head of the line, until its deadline.
        this.wait(waiter, true);
        this.serveWaiters();
      }, waiter.reject);
    }
  }

  /** Claims an idle browser synchronously (so no other acquire can take it) and leases it; undefined when none is idle. */
  private leaseIdle(body: BrowserPoolAcquireParams): Promise<BrowserRow | undefined> | undefined {
    for (;;) {
      const id = this.idle.shift();
      if (id === undefined) return undefined;
      const member = this.members.get(id);
      if (!member) continue;
      member.state = 'leased';
      return this.lease(member, body);
    }
  }

  private async lease(member: Member, body: BrowserPoolAcquireParams): Promise<BrowserRow | undefined> {
    const { id } = member;
    let leased: BrowserRow | undefined;
    try {
      leased = await member.host.lease(id, {
        ...(body.name ? { name: body.name } : {}),
        ...(body.tags ? { tags: body.tags } : {}),
        ...(body.start_url ? { start_url: body.start_url } : {}),
        ...(body.telemetry ? { telemetry: body.telemetry } : {}),
        timeout_seconds: this.row.config.timeout_seconds,
      });
    } catch (err) {
      if (this.members.get(id) === member && err instanceof DomainError && err.kind === 'conflict') {
        // The name was taken meanwhile: the browser is free for the next waiter, served after this answer.
        member.state = 'idle';
        this.idle.unshift(id);
        queueMicrotask(() => this.serveWaiters());
      } else if (this.members.get(id) === member) {
        this.dropped(id);
        this.fill();
      }
      throw err;
    }
    if (leased) return leased;
    // Gone while it was leased: another idle browser, if there is one.
    if (this.members.get(id) === member) {
      this.dropped(id);
      this.fill();
    }
    return this.leaseIdle(body);
  }
}
