// A real PostgreSQL for the tests, from Debian's `postgresql` package: one server for the whole run
// (global-setup.ts starts it), a fresh database per use. Where the package is missing, the tests that need
// it are skipped with the reason. Starting the server and making databases is shared with the benchmarks
// (bench/postgres-server.ts); dropping them and ending a service's hold are the tests' own.
import pg from 'pg';

export { createDatabase, findPostgres, startPostgres, type PostgresServer } from '../../bench/postgres-server.js';

/** Drops a database createDatabase made (its connections are closed first). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  if (!/^t_[0-9a-f]+$/.test(name)) throw new Error(`not a test database: ${name}`);
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * Ends the connections by which a service holds `databaseUrl` (its advisory lock): what the server does
 * when that service's process dies. Tests that play a hard stop start the next service while the old one
 * still runs; on PostgreSQL the old one must let go as a dead one would.
 */
export async function releaseHolders(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'bcs lock'`, [name]);
  } finally {
    await admin.end();
  }
}

/** Rows of one query on `databaseUrl`, over a connection of its own (what a test reads of a service's records). */
export async function queryRows<T extends object>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}
