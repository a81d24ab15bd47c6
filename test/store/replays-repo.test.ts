// ReplaysRepo's contract (replays and their markers), on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { ReplaysRepo, type ReplayRow } from '../../src/service/store/replays-repo.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const row = (id: string, browserId: string, startedAt = '2026-01-01T00:00:00.000Z'): ReplayRow => ({
  id,
  browser_id: browserId,
  source: 'screencast',
  framerate: 10,
  max_duration_s: 300,
  started_at: startedAt,
  finished_at: null,
  duration_ms: null,
  size_bytes: null,
  end_reason: null,
  end_detail: null,
  recorder_pid: 4242,
});

const end = {
  finished_at: '2026-01-01T00:10:00.000Z',
  duration_ms: 600_000,
  // Past 2^32: BIGINT on PostgreSQL, a number on both.
  size_bytes: 6_000_000_000,
  end_reason: 'stopped' as const,
  end_detail: null,
};

describeStores('ReplaysRepo', (open) => {
  it('keeps a replay as given and finishes it once', async () => {
    const repo = new ReplaysRepo(await open());
    await repo.insert(row('r1', 'b1'));
    await repo.insert({ ...row('r2', 'b1'), source: 'x11grab', recorder_pid: null });
    await expect(repo.insert(row('r1', 'b2'))).rejects.toBeInstanceOf(UniqueViolation);
    expect(await repo.get('r1')).toEqual(row('r1', 'b1'));
    expect(await repo.get('r2')).toEqual({ ...row('r2', 'b1'), source: 'x11grab', recorder_pid: null });
    expect(await repo.get('nope')).toBeUndefined();
    expect(await repo.finish('r1', end)).toBe(true);
    expect(await repo.get('r1')).toEqual({ ...row('r1', 'b1'), ...end, recorder_pid: null });
    expect(await repo.finish('r1', { ...end, end_reason: 'max_duration', end_detail: 'again' })).toBe(false);
    expect((await repo.get('r1'))?.end_reason).toBe('stopped');
    expect(await repo.finish('nope', end)).toBe(false);
    await repo.finish('r2', { ...end, duration_ms: null, size_bytes: null, end_reason: 'recorder_exited', end_detail: 'no video was written' });
    expect(await repo.get('r2')).toMatchObject({ duration_ms: null, size_bytes: null, end_reason: 'recorder_exited', end_detail: 'no video was written' });
  });

  it("lists a session's replays oldest first, and those never finished", async () => {
    const repo = new ReplaysRepo(await open());
    await repo.insert(row('r2', 'b1', '2026-01-01T00:02:00.000Z'));
    await repo.insert(row('r1', 'b1', '2026-01-01T00:01:00.000Z'));
    await repo.insert(row('r0', 'b1', '2026-01-01T00:01:00.000Z'));
    await repo.insert(row('r3', 'b2'));
    await repo.finish('r1', end);
    expect((await repo.listForBrowser('b1')).map((r) => r.id)).toEqual(['r0', 'r1', 'r2']);
    expect(await repo.listForBrowser('b3')).toEqual([]);
    expect((await repo.listUnfinished()).map((r) => r.id).sort()).toEqual(['r0', 'r2', 'r3']);
  });

  it('keeps markers in time order, ties in the order added, and groups a session’s by replay', async () => {
    const repo = new ReplaysRepo(await open());
    await repo.insert(row('r1', 'b1'));
    await repo.insert(row('r2', 'b1'));
    await repo.insert(row('r3', 'b2'));
    const at = '2026-01-01T00:00:05.000Z';
    await repo.addMarker('r1', { name: 'late', offset_ms: 5_000_000_000, created_at: at });
    await repo.addMarker('r1', { name: 'tie-first', offset_ms: 100, created_at: at });
    await repo.addMarker('r1', { name: 'tie-second', offset_ms: 100, created_at: at });
    await repo.addMarker('r1', { name: 'start', offset_ms: 0, created_at: at });
    await repo.addMarker('r2', { name: 'only', offset_ms: 7, created_at: at });
    await repo.addMarker('r3', { name: 'elsewhere', offset_ms: 1, created_at: at });
    expect(await repo.markers('r1')).toEqual([
      { name: 'start', offset_ms: 0, created_at: at },
      { name: 'tie-first', offset_ms: 100, created_at: at },
      { name: 'tie-second', offset_ms: 100, created_at: at },
      { name: 'late', offset_ms: 5_000_000_000, created_at: at },
    ]);
    expect(await repo.markers('nope')).toEqual([]);
    const grouped = await repo.markersByReplay('b1');
    expect([...grouped.keys()].sort()).toEqual(['r1', 'r2']);
    expect(grouped.get('r1')!.map((m) => m.name)).toEqual(['start', 'tie-first', 'tie-second', 'late']);
    expect(grouped.get('r2')).toEqual([{ name: 'only', offset_ms: 7, created_at: at }]);
    expect((await repo.markersByReplay('b3')).size).toBe(0);
  });
});
