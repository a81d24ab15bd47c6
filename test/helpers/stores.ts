// One contract suite, both stores: a `describe` runs its body once on SQLite and once on PostgreSQL (the
// server global-setup.ts started; skipped with the reason where there is none). Each `open()` gives a
// fresh, migrated, empty database, closed after the file.
import { afterAll, describe, inject } from 'vitest';
import type { Database } from '../../src/service/store/database.js';
import { SqliteDatabase } from '../../src/service/store/sqlite/database.js';
import { openDatabase } from '../../src/service/store/sqlite/open.js';
import { openPostgres } from '../../src/service/store/pg/database.js';
import { createDatabase } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { url: string } | { missing: string };
  }
}

export type OpenStore = () => Promise<Database>;

/** The PostgreSQL server's admin URL, or undefined with the reason it is missing. */
export function postgresServer(): { url?: string; missing?: string } {
  // The unit tier has no global setup, so nothing is provided there.
  return inject('postgres') ?? { missing: 'no PostgreSQL server in this tier (the integration tier starts one)' };
}

/** A fresh database on the test run's PostgreSQL server. */
export async function openTestPostgres(): Promise<Database> {
  const { url, missing } = postgresServer();
  if (!url) throw new Error(`no PostgreSQL: ${missing}`);
  return openPostgres(await createDatabase(url), { maxConnections: 20 });
}

/**
 * The database a test service keeps its state in: a fresh PostgreSQL database when the run was started
 * with BCS_TEST_DATABASE=postgres (the whole suite on PostgreSQL, as Grafana runs its store tests), else
 * undefined (SQLite in the service's data dir).
 */
export async function testDatabaseUrl(): Promise<string | undefined> {
  const wanted = process.env.BCS_TEST_DATABASE;
  if (!wanted || wanted === 'sqlite') return undefined;
  if (wanted !== 'postgres') throw new Error(`BCS_TEST_DATABASE must be sqlite or postgres, got '${wanted}'`);
  const { url, missing } = postgresServer();
  if (!url) throw new Error(`BCS_TEST_DATABASE=postgres, but there is no PostgreSQL: ${missing}`);
  return createDatabase(url);
}

export function describeStores(name: string, body: (open: OpenStore) => void): void {
  const opened: Database[] = [];
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
  });
  const track = (db: Database): Database => (opened.push(db), db);
  describe(`${name} (SQLite)`, () => body(async () => track(new SqliteDatabase(openDatabase(':memory:')))));
  const { url, missing } = postgresServer();
  const pgDescribe = url ? describe : describe.skip;
  pgDescribe(`${name} (PostgreSQL${url ? '' : `, skipped: ${missing}`})`, () => body(async () => track(await openTestPostgres())));
}
