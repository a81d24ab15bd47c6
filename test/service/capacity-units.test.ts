// A host's session slots: first come first served, a bounded wait, and nothing held for a client that left.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DomainError } from '../../src/service/host/errors.js';
import { HostCapacity, drainingRefusal, type Slot } from '../../src/service/host/session/capacity.js';

describe('HostCapacity', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  /** Records the order in which takes are granted, and how each failed. */
  const watch = (p: Promise<Slot>, log: string[], name: string) =>
    p.then(
      (slot) => {
        log.push(name);
        return slot;
      },
      (err: DomainError) => {
        log.push(`${name}: ${err.code ?? err.message}`);
        return undefined;
      },
    );

  it('grants at once while there is room, then in the order asked as slots free', async () => {
    const capacity = new HostCapacity({ maxSessions: 2, queueTimeoutMs: 30_000 });
    const [a, b] = [await capacity.take(), await capacity.take()];
    const log: string[] = [];
    const waiting = ['c', 'd', 'e'].map((name) => watch(capacity.take(), log, name));
    expect([capacity.inUse, capacity.queued]).toEqual([2, 3]);

    b.release();
    b.release(); // once only: a second release frees nothing
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['c']);
    expect([capacity.inUse, capacity.queued]).toEqual([2, 2]);
    // A slot freed while others wait goes to the line, never to a take that came later.
    const late = watch(capacity.take(), log, 'late');
    a.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['c', 'd']);
    expect(capacity.queued).toBe(2);
    for (const slot of await Promise.all(waiting.slice(0, 2))) slot!.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['c', 'd', 'e', 'late']);
    void late;
  });

  it('answers 503 host_full with Retry-After once the wait passes the timeout', async () => {
    const capacity = new HostCapacity({ maxSessions: 1, queueTimeoutMs: 2_000 });
    await capacity.take();
    const waiting = capacity.take().catch((err: DomainError) => err);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(capacity.queued).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const err = (await waiting) as DomainError;
    expect(err).toBeInstanceOf(DomainError);
    expect([err.kind, err.code, err.retryAfterS]).toEqual(['unavailable', 'host_full', 5]);
    expect(err.message).toBe("every one of this host's 1 session slots stayed busy for 2 s; try again shortly");
    expect(capacity.queued).toBe(0);
  });

  it('drops a take whose caller gave up, so its slot goes to the next in line', async () => {
    const capacity = new HostCapacity({ maxSessions: 1, queueTimeoutMs: 30_000 });
    const held = await capacity.take();
    const log: string[] = [];
    const gaveUp = new AbortController();
    const first = watch(capacity.take(gaveUp.signal), log, 'first');
    const second = watch(capacity.take(), log, 'second');
    gaveUp.abort(new Error('client gone'));
    await first;
    expect(capacity.queued).toBe(1);
    held.release();
    await second;
    expect(log).toEqual(['first: client gone', 'second']);
    expect(capacity.inUse).toBe(1);
    // An already aborted signal never joins the line.
    await expect(capacity.take(gaveUp.signal)).rejects.toThrow('client gone');
    expect(capacity.queued).toBe(0);
  });

  it('refuses every take from the moment it drains, those in line too', async () => {
    const capacity = new HostCapacity({ maxSessions: 1, queueTimeoutMs: 30_000 });
    await capacity.take();
    const waiting = capacity.take().catch((err: DomainError) => err.code);
    capacity.refuse(drainingRefusal());
    expect(await waiting).toBe('draining');
    await expect(capacity.take()).rejects.toMatchObject({ code: 'draining', retryAfterS: 5 });
  });

  it('has no bound without a maximum', async () => {
    const capacity = new HostCapacity({ maxSessions: null, queueTimeoutMs: 0 });
    await Promise.all(Array.from({ length: 50 }, () => capacity.take()));
    expect([capacity.inUse, capacity.queued, capacity.max]).toEqual([50, 0, null]);
  });
});
