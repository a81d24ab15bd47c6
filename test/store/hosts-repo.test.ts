// HostsRepo's contract, on PostgreSQL (the only store a cluster runs on): registration, heartbeats with the
// database's clock, what a replica reads, silent hosts declared gone with their sessions ended once.
import { afterAll, describe, expect, it } from 'vitest';
import { BrowsersRepo, type BrowserRow } from '../../src/service/store/browsers-repo.js';
import type { Database } from '../../src/service/store/database.js';
import { HostsRepo } from '../../src/service/store/hosts-repo.js';
import { SqliteDatabase } from '../../src/service/store/sqlite/database.js';
import { openDatabase } from '../../src/service/store/sqlite/open.js';
import { sql } from '../../src/service/store/sql.js';
import { openTestPostgres, postgresServer } from '../helpers/stores.js';
import { createDatabase } from '../helpers/postgres.js';
import { openPostgres } from '../../src/service/store/pg/database.js';

/** Tries until `attempt` answers true (at most 5 s); each try is one attempt, as a heartbeat's is. */
async function untilTrue(attempt: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await attempt()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

const { url, missing } = postgresServer();
const opened: Database[] = [];
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
});
async function open(): Promise<Database> {
  const db = await openTestPostgres();
  opened.push(db);
  return db;
}

const session = (id: string, hostId: string | null): BrowserRow => ({
  id, project_id: null, name: null, tags: {}, headless: true, stealth: false, kiosk_mode: false, timeout_seconds: 60,
  viewport: null, start_url: null, created_at: '2026-01-01T00:00:00.000Z', deleted_at: null, end_reason: null,
  end_detail: null, pid: null, user_data_dir: null, sandboxed: false, pool_id: null, profile_id: null,
  profile_save_changes: false, invocation_id: null, private_hosts: null, chrome_policy: null, host_id: hostId,
});
const idle = { sessions: 0, queued: 0, standbyReady: 0, draining: false, leader: false };

describe.skipIf(!url)(`HostsRepo (PostgreSQL${url ? '' : `, skipped: ${missing}`})`, () => {
  it('keeps a lock tried in vain on one connection until it is taken (the leader lock, tried every beat)', async () => {
    const databaseUrl = await createDatabase(url!);
    const [a, b] = [await openPostgres(databaseUrl), await openPostgres(databaseUrl)];
    opened.push(b!);
    const lockConnections = async () =>
      Number((await b!.get<{ n: string }>(sql`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${'bcs lock'}`))!.n);
    expect(await a!.holdLock('bcs.test')).toBe(true);
    for (let i = 0; i < 5; i++) expect(await b!.holdLock('bcs.test')).toBe(false);
    expect(await lockConnections()).toBe(2);
    // Freed with its holder's connection: the next try takes it, on the connection it kept.
    await a!.close();
    expect(await untilTrue(() => b!.holdLock('bcs.test'))).toBe(true);
    expect(await lockConnections()).toBe(1);
  });

  it('is for PostgreSQL only', () => {
    expect(() => new HostsRepo(new SqliteDatabase(openDatabase(':memory:')))).toThrow(/PostgreSQL/);
  });

  it("registers hosts and answers the live ones with their load, counting sessions by the records", async () => {
    const db = await open();
    const hosts = new HostsRepo(db);
    await hosts.register('h1', 'http://10.0.0.1:8341', 20);
    await hosts.register('h2', 'http://10.0.0.2:8341', null);
    expect(await hosts.heartbeat('h1', { sessions: 7, queued: 2, standbyReady: 1, draining: true, leader: true })).toBe(true);
    const browsers = new BrowsersRepo(db);
    await browsers.insert(session('a', 'h1'));
    await browsers.insert(session('b', 'h1'));
    await browsers.insert(session('c', 'h2'));
    await browsers.end('c', 'deleted', null, new Date());
    const live = await hosts.live(10_000);
    expect(live.map(({ silent_ms: _, ...h }) => h)).toEqual([
      { id: 'h1', url: 'http://10.0.0.1:8341', max_sessions: 20, sessions: 2, queued: 2, standby_ready: 1, draining: true, leader: true },
      { id: 'h2', url: 'http://10.0.0.2:8341', max_sessions: null, sessions: 0, queued: 0, standby_ready: 0, draining: false, leader: false },
    ]);
    expect(live.every((h) => h.silent_ms >= 0 && h.silent_ms < 10_000)).toBe(true);
  });

  it('declares silent hosts gone once, ends their sessions as host_lost, and lets a host back by registering', async () => {
    const db = await open();
    const hosts = new HostsRepo(db);
    const browsers = new BrowsersRepo(db);
    await hosts.register('quiet', 'http://10.0.0.1:8341', 10);
    await hosts.register('busy', 'http://10.0.0.2:8341', 10);
    await browsers.insert(session('s1', 'quiet'));
    await browsers.insert(session('s2', 'quiet'));
    await browsers.insert(session('s3', 'busy'));
    // The quiet one last beat a minute ago, by the database's clock.
    await db.run(sql`UPDATE hosts SET heartbeat_at = now() - interval '60 seconds' WHERE id = 'quiet'`);
    expect((await hosts.live(10_000)).map((h) => h.id)).toEqual(['busy']);
    const at = new Date('2026-02-01T00:00:00Z');
    expect(await hosts.reapSilent(10_000, at)).toEqual([{ id: 'quiet', sessionIds: ['s1', 's2'] }]);
    expect(await hosts.reapSilent(10_000, at)).toEqual([]);
    expect(await browsers.get('s1')).toMatchObject({ end_reason: 'host_lost', deleted_at: at.toISOString() });
    expect((await browsers.get('s3'))?.deleted_at).toBeNull();
    // Gone: its heartbeat is refused (it must not serve on) until it registers again.
    expect(await hosts.heartbeat('quiet', idle)).toBe(false);
    await hosts.register('quiet', 'http://10.0.0.9:8341', 5);
    expect(await hosts.heartbeat('quiet', idle)).toBe(true);
    expect((await hosts.live(10_000)).find((h) => h.id === 'quiet')).toMatchObject({ url: 'http://10.0.0.9:8341', max_sessions: 5, sessions: 0 });
  });

  it('takes a host that leaves out of the live ones at once', async () => {
    const db = await open();
    const hosts = new HostsRepo(db);
    await hosts.register('h', 'http://10.0.0.1:8341', 1);
    await hosts.heartbeat('h', { ...idle, leader: true });
    await hosts.leave('h');
    expect(await hosts.live(10_000)).toEqual([]);
    expect(await hosts.heartbeat('h', idle)).toBe(false);
  });
});
