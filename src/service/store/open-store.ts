// Which database the service keeps its state in: SQLite in the data dir (one machine, the default) or a
// PostgreSQL server (`--database-url` / BCS_DATABASE_URL), where several processes can share it.
import type { Database } from './database.js';
import { openDatabase } from './sqlite/open.js';
import { SqliteDatabase } from './sqlite/database.js';
import type { PgDatabase } from './pg/database.js';

export interface StoreOptions {
  dataDir: string;
  /** A `postgres://` (or `postgresql://`) URL; absent: SQLite in `dataDir`. */
  databaseUrl?: string;
  /** PostgreSQL connections this process keeps at most. */
  maxConnections?: number;
  /** A cluster member (--role api or host): shares the database with the others. */
  cluster?: boolean;
}

export async function openStore(opts: StoreOptions & { cluster: true }): Promise<PgDatabase>;
export async function openStore(opts: StoreOptions): Promise<Database>;
export async function openStore(opts: StoreOptions): Promise<Database> {
  if (!opts.databaseUrl) {
    if (opts.cluster) throw new Error('a cluster keeps its state in PostgreSQL: give --database-url');
    return new SqliteDatabase(openDatabase(opts.dataDir));
  }
  checkDatabaseUrl(opts.databaseUrl);
  // Loaded only for PostgreSQL: an embedded run never pays for the pg client.
  const { openPostgres } = await import('./pg/database.js');
  const db = await openPostgres(opts.databaseUrl, { maxConnections: opts.maxConnections, applicationName: opts.cluster ? 'bcs cluster' : 'bcs serve' });
  // A single process (--role all) coordinates limits, pools and sessions in its own memory: a second process
  // on the database would admit past the limits and lease browsers twice, so it holds the database alone.
  // Cluster members coordinate through the database and hold it together (shared), never beside a single one.
  if (!(await db.holdLock('bcs.single-process', { shared: opts.cluster === true }))) {
    await db.close();
    throw new DatabaseInUseError(
      opts.cluster
        ? `a single-process bcs serve (--role all) already uses the database ${redactDatabaseUrl(opts.databaseUrl)}; stop it before starting cluster roles on it`
        : `another bcs serve already uses the database ${redactDatabaseUrl(opts.databaseUrl)}; one process (--role all) holds a database alone, a cluster runs --role api and --role host on it`,
    );
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
