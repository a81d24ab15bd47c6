// Warm standby for plain creates: a few browsers launched ahead of time with the default launch spec, so
// `POST /browsers` with default options is a handoff (record the session, adopt the browser) instead of a
// launch. A standby browser is not a session: it has no record, does not count against limits, and no
// client has ever connected to it. Everything that belongs to a session (its record, created_at, the
// inactivity clock, start hooks such as telemetry or recording, the CDP token) begins at the handoff.
import { newId } from '../../ids.js';
import { launchSpecOf, specKey, type LaunchSpec, type WarmBrowser } from '../browser/index.js';
import type { SessionManager } from './sessions.js';
import type { Logger, WarmOffer, WarmSource } from './types.js';

const MAX_BACKOFF_MS = 30_000;
/**
 * A refill must not slow the API: two launches at once slow both. So it starts a moment after the handoff,
 * when a create that came right after (and found the standby empty) is already launching, and waits while
 * such creates launch, but not longer than MAX_YIELD_MS.
 */
const REFILL_DELAY_MS = 200;
const MAX_YIELD_MS = 5_000;
const YIELD_POLL_MS = 50;

/** A standby launch under way. A create that finds nothing ready claims one instead of launching its own. */
interface Launching extends WarmOffer {
  claimed: boolean;
}

export class Standby implements WarmSource {
  private readonly ready: WarmBrowser[] = [];
  private readonly launching: Launching[] = [];
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  /** A pending refill: the delay after a handoff, or waiting for cold creates. */
  private pending: NodeJS.Timeout | undefined;
  private yieldingSince = 0;
  private closed = false;
  private readonly spec: LaunchSpec = launchSpecOf({});
  private readonly key = specKey(this.spec);
  /** Creates served by the standby so far (tests and benchmarks read it). */
  handoffs = 0;

  /** Browsers still to keep: `size`, less each handoff when the standby is not refilled. */
  private target: number;

  constructor(
    private readonly sessions: SessionManager,
    /** How many browsers to keep ready. */
    readonly size: number,
    private readonly log: Logger,
    private readonly opts: { refill: boolean } = { refill: true },
  ) {
    this.target = Math.max(0, size);
  }

  /** Browsers ready for a handoff right now. */
  get available(): number {
    return this.ready.length;
  }

  /** Browsers it keeps ready: none once closed (a stopping or draining host keeps none). */
  get wanted(): number {
    return this.closed ? 0 : this.target;
  }

  start(): void {
    if (this.size <= 0) return;
    this.sessions.setWarmSource(this);
    this.fill();
  }

  take(spec: LaunchSpec): WarmOffer | undefined {
    // A one-shot standby that has handed out what it launched, or given up, has nothing more to offer (a
    // launch it gave up on still under way is closed when it comes up).
    if (this.closed || this.target <= 0) return undefined;
    if (specKey(spec) !== this.key) {
      // Launched once for the first browsers, and the first is not a default one: the rest will not be either.
      if (!this.opts.refill && this.handoffs === 0) this.giveUp();
      return undefined;
    }
    const warm = this.ready.shift();
    const offer = warm ? { id: warm.id, browser: Promise.resolve(warm) } : this.launching.find((l) => !l.claimed);
    if (!offer) return undefined;
    if ('claimed' in offer) offer.claimed = true;
    this.handoffs++;
    if (this.opts.refill) this.fillLater(REFILL_DELAY_MS);
    else this.target--;
    return offer;
  }

  putBack(offer: WarmOffer): void {
    this.handoffs--;
    if (!this.opts.refill) this.target++;
    const launching = this.launching.find((l) => l === offer);
    if (launching) {
      launching.claimed = false;
      return;
    }
    void offer.browser.then((warm) => {
      if (this.closed) void this.sessions.discard(warm);
      else this.ready.unshift(warm);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.sessions.setWarmSource(undefined);
    clearTimeout(this.retry);
    clearTimeout(this.pending);
    await Promise.all(this.ready.splice(0).map((warm) => this.sessions.discard(warm)));
  }

  /** Launches nothing more and stops what it holds (a one-shot standby whose first create was not a default one). */
  private giveUp(): void {
    this.target = 0;
    for (const warm of this.ready.splice(0)) void this.sessions.discard(warm);
  }

  /** Browsers ready or launching that no create has claimed. */
  private get stock(): number {
    return this.ready.length + this.launching.filter((l) => !l.claimed).length;
  }

  private fillLater(ms: number): void {
    if (this.pending || this.closed) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.fill();
    }, ms);
    this.pending.unref();
  }

  private fill(): void {
    if (this.closed || this.pending || this.stock >= this.target) return;
    if (this.sessions.coldCreatesInFlight > 0) {
      this.yieldingSince ||= Date.now();
      if (Date.now() - this.yieldingSince < MAX_YIELD_MS) return this.fillLater(YIELD_POLL_MS);
    }
    this.yieldingSince = 0;
    while (!this.closed && !this.retry && this.stock < this.target) {
      const id = newId();
      const entry: Launching = { id, claimed: false, browser: this.sessions.launch(this.spec, { id }) };
      this.launching.push(entry);
      entry.browser.then(
        (warm) => {
          this.launching.splice(this.launching.indexOf(entry), 1);
          this.failures = 0;
          if (entry.claimed) return; // the create that claimed it adopts it
          if (this.closed || this.ready.length >= this.target) return void this.sessions.discard(warm);
          this.ready.push(warm);
          this.watch(warm);
          this.fill();
        },
        (err: Error) => {
          this.launching.splice(this.launching.indexOf(entry), 1);
          if (!this.closed && !this.sessions.isClosing) this.backOff(err.message);
        },
      );
    }
  }

  /** A browser that cannot start (or dies) will likely do so again on the next try: wait first. */
  private backOff(why: string): void {
    if (this.retry) return;
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.failures++);
    this.log.warn({ err: why, retry_in_ms: delay }, 'could not keep a standby browser');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.fill();
    }, delay);
    this.retry.unref();
  }

  /** A standby browser that dies is replaced; once handed off, its session watches it instead. */
  private watch(warm: WarmBrowser): void {
    void warm.chromium.exited.then(() => {
      const i = this.ready.indexOf(warm);
      if (i < 0) return;
      this.ready.splice(i, 1);
      void this.sessions.discard(warm);
      this.backOff('a standby browser exited');
    });
  }
}
