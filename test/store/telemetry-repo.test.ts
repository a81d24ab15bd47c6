// TelemetryRepo's contract (events, batched, and capture settings), on both stores.
import { expect, it, vi } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import type { TelemetryCategory, TelemetryEnvelope } from '../../src/api/types.js';
import type { Database } from '../../src/service/store/database.js';
import { sql } from '../../src/service/store/sql.js';
import { TelemetryRepo } from '../../src/service/store/telemetry-repo.js';

const BASE_US = 1_767_225_600_000_000; // 2026-01-01 in microseconds: past 2^32, BIGINT on PostgreSQL

const env = (seq: number, category: TelemetryCategory = 'network', data?: Record<string, unknown>): TelemetryEnvelope => ({
  seq,
  event: { type: `t${seq}`, category, ts: BASE_US + seq, source: { kind: 'cdp', event: 'x' }, ...(data ? { data } : {}) },
});

const count = async (db: Database) => (await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM telemetry_events`))!.n;

describeStores('TelemetryRepo', (open) => {
  it('round-trips settings, replacing them on save', async () => {
    const repo = new TelemetryRepo(await open());
    expect((await repo.settingsOf(['b1'])).get('b1')).toBeUndefined();
    await repo.saveSettings('b1', { categories: ['network', 'console'], export_destination: 'otel' });
    expect((await repo.settingsOf(['b1'])).get('b1')).toEqual({ categories: ['network', 'console'], export_destination: 'otel' });
    await repo.saveSettings('b1', { categories: null, export_destination: null });
    expect((await repo.settingsOf(['b1'])).get('b1')).toEqual({ categories: null, export_destination: null });
    expect((await repo.settingsOf(['b2'])).get('b2')).toBeUndefined();
    await repo.saveSettings('b3', { categories: ['console'], export_destination: null });
    expect(await repo.settingsOf(['b1', 'b2', 'b3'])).toEqual(
      new Map([
        ['b1', { categories: null, export_destination: null }],
        ['b3', { categories: ['console'], export_destination: null }],
      ]),
    );
    expect(await repo.settingsOf([])).toEqual(new Map());
  });

  it('queues events and writes them in one transaction per flush; reads flush first', async () => {
    const db = await open();
    const repo = new TelemetryRepo(db);
    for (let seq = 1; seq <= 250; seq++) repo.add('b1', env(seq, seq % 2 ? 'network' : 'console', { n: seq, nested: { ok: true } }));
    expect(await count(db)).toBe(0);
    const page = await repo.list({ browserId: 'b1', order: 'asc', limit: 3 });
    expect(page).toEqual({ events: [1, 2, 3].map((s) => env(s, s % 2 ? 'network' : 'console', { n: s, nested: { ok: true } })), hasMore: true });
    expect(await count(db)).toBe(250);
    expect(repo.stats).toMatchObject({ flushes: 1, written: 250, dropped: 0, failedFlushes: 0 });
  });

  it('writes nothing of a flush that fails, and says so', async () => {
    const db = await open();
    const warn = vi.fn();
    const failing: Database = {
      ...db,
      dialect: db.dialect,
      all: (q) => db.all(q),
      get: (q) => db.get(q),
      run: (q) => db.run(q),
      close: () => db.close(),
      transaction: (work) =>
        db.transaction(async (tx) => {
          await work(tx);
          throw new Error('disk gone');
        }),
    };
    const repo = new TelemetryRepo(failing, { log: { warn } });
    repo.add('b1', env(1));
    repo.add('b1', env(2));
    await repo.flush();
    expect(await count(db)).toBe(0);
    expect(repo.stats.failedFlushes).toBe(1);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ events: 2 }), expect.any(String));
  });

  it('ignores an event stored already, and keeps browsers apart', async () => {
    const db = await open();
    const repo = new TelemetryRepo(db);
    repo.add('b1', env(1));
    await repo.flush();
    repo.add('b1', { ...env(1), event: { ...env(1).event, type: 'again' } });
    repo.add('b1', env(2));
    repo.add('b2', env(1, 'console'));
    await repo.flush();
    expect((await repo.list({ browserId: 'b1', order: 'asc', limit: 10 })).events).toEqual([env(1), env(2)]);
    expect((await repo.list({ browserId: 'b2', order: 'asc', limit: 10 })).events).toEqual([env(1, 'console')]);
  });

  it('pages by seq cursor either way and filters by category and time', async () => {
    const repo = new TelemetryRepo(await open());
    for (let seq = 1; seq <= 10; seq++) repo.add('b1', env(seq, seq <= 5 ? 'network' : 'console'));
    const seqs = async (q: Partial<Parameters<TelemetryRepo['list']>[0]>) => {
      const page = await repo.list({ browserId: 'b1', order: 'asc', limit: 100, ...q });
      return { seqs: page.events.map((e) => e.seq), hasMore: page.hasMore };
    };
    expect(await seqs({ cursor: 4, limit: 3 })).toEqual({ seqs: [4, 5, 6], hasMore: true });
    expect(await seqs({ cursor: 8, limit: 3 })).toEqual({ seqs: [8, 9, 10], hasMore: false });
    expect(await seqs({ order: 'desc', limit: 3 })).toEqual({ seqs: [10, 9, 8], hasMore: true });
    expect(await seqs({ order: 'desc', cursor: 2, limit: 3 })).toEqual({ seqs: [2, 1], hasMore: false });
    expect(await seqs({ categories: ['console'] })).toEqual({ seqs: [6, 7, 8, 9, 10], hasMore: false });
    expect(await seqs({ categories: ['console', 'network'], limit: 2 })).toEqual({ seqs: [1, 2], hasMore: true });
    expect(await seqs({ sinceUs: BASE_US + 3, untilUs: BASE_US + 6 })).toEqual({ seqs: [3, 4, 5], hasMore: false });
    expect(await seqs({ browserId: 'other' })).toEqual({ seqs: [], hasMore: false });
  });

  it('reads a gap between two seqs, oldest first, up to a limit', async () => {
    const repo = new TelemetryRepo(await open());
    for (let seq = 1; seq <= 10; seq++) repo.add('b1', env(seq));
    expect((await repo.between('b1', 2, 7, 100)).map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    expect((await repo.between('b1', 2, 7, 2)).map((e) => e.seq)).toEqual([3, 4]);
    expect(await repo.between('b2', 0, 100, 10)).toEqual([]);
  });

  it('flushes one at a time, in order, and on its own after a while or at 500 queued', async () => {
    const db = await open();
    const repo = new TelemetryRepo(db);
    for (let seq = 1; seq <= 3; seq++) repo.add('b1', env(seq));
    const first = repo.flush();
    // Queued while the first write may be under way: taken by the next flush, which waits for the first.
    repo.add('b1', env(4));
    const second = repo.flush();
    expect(repo.flush()).toBe(second);
    await Promise.all([first, second]);
    expect(await count(db)).toBe(4);
    repo.add('b1', env(5));
    await vi.waitFor(async () => expect(await count(db)).toBe(5), { timeout: 30_000 });
    for (let seq = 6; seq <= 505; seq++) repo.add('b1', env(seq));
    await vi.waitFor(async () => expect(await count(db)).toBe(505), { timeout: 30_000 });
  });

  it('drops what arrives while too much waits, and counts it', async () => {
    const db = await open();
    const warn = vi.fn();
    const repo = new TelemetryRepo(db, { log: { warn }, maxQueued: 3 });
    for (let seq = 1; seq <= 5; seq++) repo.add('b1', env(seq));
    expect(repo.stats.dropped).toBe(2);
    expect(warn).toHaveBeenCalledTimes(1);
    expect((await repo.list({ browserId: 'b1', order: 'asc', limit: 10 })).events.map((e) => e.seq)).toEqual([1, 2, 3]);
  });
});
