// What a test reads of a service's store from outside it, on either database: rows through a second
// connection, and everything stored as bytes (to prove a secret is nowhere in it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../../src/service/store/database.js';
import { SqliteDatabase } from '../../src/service/store/sqlite/database.js';
import { openDatabase } from '../../src/service/store/sqlite/open.js';
import { openPostgres } from '../../src/service/store/pg/database.js';
import { raw } from '../../src/service/store/sql.js';

export interface StoreOwner {
  dataDir: string;
  databaseUrl: string | undefined;
}

/** A connection of its own to the service's database; close it after use. */
export async function openServiceStore(svc: StoreOwner): Promise<Database> {
  return svc.databaseUrl ? openPostgres(svc.databaseUrl, { maxConnections: 2 }) : new SqliteDatabase(openDatabase(svc.dataDir));
}

/**
 * Everything the store holds, as bytes: SQLite's file and its WAL (every page, free ones included), or on
 * PostgreSQL every row of every table of ours.
 */
export async function storedBytes(svc: StoreOwner): Promise<Buffer> {
  if (!svc.databaseUrl) {
    return Buffer.concat(['service.db', 'service.db-wal'].map((file) => {
      try {
        return readFileSync(join(svc.dataDir, file));
      } catch {
        return Buffer.alloc(0); // no WAL right now
      }
    }));
  }
  const db = await openServiceStore(svc);
  try {
    const tables = await db.all<{ name: string }>(raw(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`));
    const rows = await Promise.all(tables.map((t) => db.all(raw(`SELECT * FROM "${t.name.replace(/"/g, '""')}"`))));
    return Buffer.from(JSON.stringify(rows));
  } finally {
    await db.close();
  }
}
