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

  constructor(
    private readonly sessions: SessionManager,
    /** How many browsers to keep ready. */
    readonly size: number,
    private readonly log: Logger,
  ) {}

  /** Browsers ready for a handoff right now. */
  get available(): number {
    return this.ready.length;
  }

  /** Browsers it keeps ready: none once closed (a stopping or draining host keeps none). */
  get wanted(): number {
    return this.closed ? 0 : Math.max(0, this.size);
  }

  start(): void {
    if (this.size <= 0) return;
    this.sessions.setWarmSource(this);
    this.fill();
  }

  take(spec: LaunchSpec): WarmOffer | undefined {
    if (this.closed || specKey(spec) !== this.key) return undefined;
    const warm = this.ready.shift();
    const offer = warm ? { id: warm.id, browser: Promise.resolve(warm) } : this.launching.find((l) => !l.claimed);
    if (!offer) return undefined;
    if ('claimed' in offer) offer.claimed = true;
    this.handoffs++;
    this.fillLater(REFILL_DELAY_MS);
    return offer;
  }

  putBack(offer: WarmOffer): void {
    this.handoffs--;
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
    if (this.closed || this.pending || this.stock >= this.size) return;
    if (this.sessions.coldCreatesInFlight > 0) {
      this.yieldingSince ||= Date.now();
      if (Date.now() - this.yieldingSince < MAX_YIELD_MS) return this.fillLater(YIELD_POLL_MS);
    }
    this.yieldingSince = 0;
    while (!this.closed && !this.retry && this.stock < this.size) {
      const id = newId();
      const entry: Launching = { id, claimed: false, browser: this.sessions.launch(this.spec, { id }) };
      this.launching.push(entry);
      entry.browser.then(
        (warm) => {
          this.launching.splice(this.launching.indexOf(entry), 1);
          this.failures = 0;
          if (entry.claimed) return; // the create that claimed it adopts it
          if (this.closed) return void this.sessions.discard(warm);
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
