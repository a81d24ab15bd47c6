// The Database both stores give repositories: placeholders, flags, big numbers, unique refusals as
// UniqueViolation, and transactions that commit, roll back and keep others out until they end.
import { describe, expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { sql, join, raw, inList } from '../../src/service/store/sql.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

describeStores('Database', (open) => {
  it('binds values (flags as 0/1, undefined as null, big millisecond counts) and reads them back', async () => {
    const db = await open();
    await db.run(sql`INSERT INTO audit_logs (ts_ms, timestamp, method, path, route, status, duration_ms, client_ip, domain, user_agent, api_key_id, project_id, request_id)
      VALUES (${1_796_000_000_123}, ${'2026-11-27T00:00:00.000Z'}, ${'GET'}, ${'/x'}, ${'/x'}, ${200}, ${1.5}, ${'127.0.0.1'}, ${'d'}, ${'ua'}, ${undefined}, ${null}, ${'r1'})`);
    const row = await db.get<{ ts_ms: number; duration_ms: number; api_key_id: string | null }>(sql`SELECT ts_ms, duration_ms, api_key_id FROM audit_logs WHERE request_id = ${'r1'}`);
    expect(row).toEqual({ ts_ms: 1_796_000_000_123, duration_ms: 1.5, api_key_id: null });
    await db.run(sql`INSERT INTO credential_providers (id, name, provider_type, token_sealed, enabled, priority, cache_ttl_seconds, created_at, updated_at)
      VALUES (${'p1'}, ${'one'}, ${'onepassword'}, ${'x'}, ${true}, ${0}, ${300}, ${'t'}, ${'t'})`);
    expect(await db.get(sql`SELECT enabled FROM credential_providers WHERE id = ${'p1'}`)).toEqual({ enabled: 1 });
  });

  it('splices fragments: conditions joined, their values in order', async () => {
    const db = await open();
    for (const [id, name] of [['a', 'Alpha'], ['b', 'Beta'], ['c', 'Gamma']] as const) {
      await db.run(sql`INSERT INTO projects (id, name, status, created_at, updated_at) VALUES (${id}, ${name}, ${'active'}, ${'t'}, ${'t'})`);
    }
    const where = join([sql`status = ${'active'}`, sql`lower(name) LIKE ${'%a'}`, sql`id <> ${'c'}`], ' AND ');
    const rows = await db.all<{ id: string }>(sql`SELECT id FROM projects WHERE ${where} ORDER BY ${raw('seq')} LIMIT ${10} OFFSET ${0}`);
    expect(rows.map((r) => r.id)).toEqual(['a', 'b']);
    expect(join([sql`a = ${1} AND b = ${2}`, raw('c'), sql`${3}`], ' OR ').render((n) => `$${n}`)).toEqual({ text: 'a = $1 AND b = $2 OR c OR $3', values: [1, 2, 3] });
    expect(inList(['x', 'y', 'z']).render(() => '?')).toEqual({ text: 'IN (?, ?, ?)', values: ['x', 'y', 'z'] });
    expect(await db.all(sql`SELECT id FROM projects WHERE id ${inList(['c', 'a', 'nope'])} ORDER BY id`)).toEqual([{ id: 'a' }, { id: 'c' }]);
    expect((await db.run(sql`UPDATE projects SET status = ${'archived'} WHERE id IN (${'a'}, ${'b'})`)).changes).toBe(2);
  });

  it('answers a unique index refusal as UniqueViolation naming its columns or its index', async () => {
    const db = await open();
    const browser = (id: string, profile: string) => sql`INSERT INTO browsers (id, name, headless, stealth, kiosk_mode, timeout_seconds, created_at, profile_id, profile_save_changes)
      VALUES (${id}, ${null}, ${1}, ${0}, ${0}, ${60}, ${'t'}, ${profile}, ${1})`;
    await db.run(browser('b1', 'prof'));
    const err = await db.run(browser('b2', 'prof')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UniqueViolation);
    const v = err as UniqueViolation;
    expect(v.columns.includes('profile_id') || v.index === 'browsers_profile_writer').toBe(true);
    const dup = await db.run(browser('b1', 'other')).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(UniqueViolation);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    const db = await open();
    const insert = (id: string) => sql`INSERT INTO projects (id, name, status, created_at, updated_at) VALUES (${id}, ${id}, ${'active'}, ${'t'}, ${'t'})`;
    await db.transaction(async (tx) => {
      await tx.run(insert('kept'));
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.run(insert('dropped'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    const ids = (await db.all<{ id: string }>(sql`SELECT id FROM projects ORDER BY seq`)).map((r) => r.id);
    expect(ids).toEqual(['kept']);
  });

  it('keeps a read-modify-write in a transaction exact under 50 concurrent increments', async () => {
    const db = await open();
    await db.run(sql`INSERT INTO org_limits (id, max_concurrent_sessions) VALUES (1, 0)`);
    await Promise.all(
      Array.from({ length: 50 }, () =>
        db.transaction(async (tx) => {
          // FOR UPDATE on PostgreSQL; SQLite's transaction already holds the only connection.
          const lock = tx.dialect === 'postgres' ? raw(' FOR UPDATE') : raw('');
          const row = await tx.get<{ n: number }>(sql`SELECT max_concurrent_sessions AS n FROM org_limits WHERE id = 1${lock}`);
          await new Promise((r) => setImmediate(r));
          await tx.run(sql`UPDATE org_limits SET max_concurrent_sessions = ${row!.n + 1} WHERE id = 1`);
        }),
      ),
    );
    expect(await db.get(sql`SELECT max_concurrent_sessions AS n FROM org_limits WHERE id = 1`)).toEqual({ n: 50 });
  });
});

describe('sql', () => {
  it('renders each dialect placeholder and keeps nested values in order', () => {
    const inner = sql`b = ${2} AND c = ${3}`;
    const q = sql`SELECT * FROM t WHERE a = ${1} AND ${inner} AND d = ${true}`;
    expect(q.render(() => '?')).toEqual({ text: 'SELECT * FROM t WHERE a = ? AND b = ? AND c = ? AND d = ?', values: [1, 2, 3, 1] });
    expect(q.render((n) => `$${n}`).text).toBe('SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $3 AND d = $4');
  });
});

describeStores('Database outside a transaction', (open) => {
  it('keeps a write made while a transaction is open out of it (its rollback does not take the write)', async () => {
    const db = await open();
    const insert = (id: string) => sql`INSERT INTO projects (id, name, status, created_at, updated_at) VALUES (${id}, ${id}, ${'active'}, ${'t'}, ${'t'})`;
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const failing = db.transaction(async (tx) => {
      await tx.run(insert('in-tx'));
      entered();
      await new Promise((r) => setTimeout(r, 20));
      throw new Error('rolled back');
    });
    await inside;
    const outside = db.run(insert('outside'));
    await expect(failing).rejects.toThrow('rolled back');
    await outside;
    expect((await db.all<{ id: string }>(sql`SELECT id FROM projects`)).map((r) => r.id)).toEqual(['outside']);
  });
});
