// Which database the service keeps its state in: SQLite in the data dir (one machine, the default) or a
// PostgreSQL server (`--database-url` / BCS_DATABASE_URL), where several processes can share it.
import type { Database } from './database.js';
import { openDatabase } from './sqlite/open.js';
import { SqliteDatabase } from './sqlite/database.js';
import { openPostgres } from './pg/database.js';

export interface StoreOptions {
  dataDir: string;
  /** A `postgres://` (or `postgresql://`) URL; absent: SQLite in `dataDir`. */
  databaseUrl?: string;
  /** PostgreSQL connections this process keeps at most. */
  maxConnections?: number;
}

export async function openStore(opts: StoreOptions): Promise<Database> {
  if (!opts.databaseUrl) return new SqliteDatabase(openDatabase(opts.dataDir));
  checkDatabaseUrl(opts.databaseUrl);
  const db = await openPostgres(opts.databaseUrl, { maxConnections: opts.maxConnections, applicationName: 'bcs serve' });
  // Limits, pools and sessions are still coordinated in this process's memory: a second process on the same
  // database would admit past the limits and lease browsers twice. Until the cluster roles coordinate
  // through the database, one process holds the database.
  if (!(await db.holdLock('bcs.single-process'))) {
    await db.close();
    throw new DatabaseInUseError(`another bcs serve already uses the database ${redactDatabaseUrl(opts.databaseUrl)}; one process serves a database for now`);
  }
  return db;
}

export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError';
}

/** Where the state lives, as the banner says it: `sqlite <file>` or `postgres <url without password>`. */
export function describeStore(opts: StoreOptions): string {
  return opts.databaseUrl ? `postgres ${redactDatabaseUrl(opts.databaseUrl)}` : `sqlite ${opts.dataDir}/service.db`;
}

/** Throws unless `url` is a PostgreSQL URL the client can use. */
export function checkDatabaseUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('the database URL is not a URL; expected postgres://user@host:5432/database');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error(`the database URL must start with postgres:// or postgresql://, got ${parsed.protocol}//`);
  }
}

/** The URL as logs and banners may show it: no password, no query (which may carry one). */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return '(unparseable database URL)';
  }
}
