// The Database of the cluster: a pool of connections to one PostgreSQL (the `pg` client).
import pg from 'pg';
import type { Database, Queryable } from '../database.js';
import { raw, type Sql } from '../sql.js';
import { UniqueViolation } from '../unique.js';
import { pgMigrations } from './migrations.js';

export interface PgOptions {
  /** Connections this process keeps at most (the pool's size). */
  maxConnections?: number;
  /** What the server shows for these connections (pg_stat_activity.application_name). */
  applicationName?: string;
}

/** Connects to `url`, brings the schema up to date (one process at a time) and answers the Database. */
export async function openPostgres(url: string, options: PgOptions = {}): Promise<PgDatabase> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    application_name: options.applicationName ?? 'bcs',
    // Counts and milliseconds are BIGINT; every one the store keeps fits a JavaScript number.
    types: { getTypeParser: (oid: number, format?: string) => (oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format as 'text')) },
  });
  // An idle connection the server drops (restart, failover) must not take the process down.
  pool.on('error', () => {});
  const db = new PgDatabase(pool, url);
  try {
    await migrate(db);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return db;
}

export class PgDatabase implements Database {
  readonly dialect = 'postgres' as const;
  private readonly held = new Set<pg.Client>();
  /** Connections of locks tried and not yet taken, kept for the next try (holdLock). */
  private readonly contenders = new Map<string, pg.Client>();

  constructor(
    readonly pool: pg.Pool,
    private readonly url: string,
  ) {}

  /**
   * Takes the session-level advisory lock `name` on a connection of its own and keeps it until close (or
   * until this process dies: the server frees it with the connection). False when another holds it.
   * `shared`: held beside other shared holders, refused only while someone holds it exclusively.
   */
  async holdLock(name: string, opts: { shared?: boolean } = {}): Promise<boolean> {
    const fn = opts.shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock';
    // A lock tried again and again (a cluster host tries for the leader's every second) keeps its connection
    // between tries: a new connection per try was most of what a heartbeat cost the database.
    const key = `${fn} ${name}`;
    let client = this.contenders.get(key);
    if (!client) {
      const fresh = new pg.Client({ connectionString: this.url, application_name: 'bcs lock' });
      fresh.on('error', () => {
        if (this.contenders.get(key) === fresh) this.contenders.delete(key);
      });
      await fresh.connect();
      client = fresh;
    }
    let ok = false;
    try {
      ok = (await client.query<{ ok: boolean }>(`SELECT ${fn}(hashtext($1)) AS ok`, [name])).rows[0]?.ok === true;
    } catch (err) {
      this.contenders.delete(key);
      await client.end().catch(() => {});
      throw err;
    }
    if (!ok) {
      this.contenders.set(key, client);
      return false;
    }
    this.contenders.delete(key);
    this.held.add(client);
    return true;
  }

  all<T>(query: Sql): Promise<T[]> {
    return rows<T>(this.pool, query);
  }

  async get<T>(query: Sql): Promise<T | undefined> {
    return (await rows<T>(this.pool, query))[0];
  }

  async run(query: Sql): Promise<{ changes: number }> {
    return { changes: (await execute(this.pool, query)).rowCount ?? 0 };
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx: Queryable = {
      dialect: 'postgres',
      all: (q) => rows(client, q),
      get: async (q) => (await rows(client, q))[0] as never,
      run: async (q) => ({ changes: (await execute(client, q)).rowCount ?? 0 }),
    };
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackErr: unknown) => (broken = rollbackErr));
      throw err;
    } finally {
      // A connection whose rollback failed is in an unknown state: the pool closes it rather than reuse it.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.held, ...this.contenders.values()].map((client) => client.end().catch(() => {})));
    this.held.clear();
    this.contenders.clear();
    await this.pool.end();
  }
}

type Client = pg.Pool | pg.PoolClient;

async function execute(client: Client, query: Sql): Promise<pg.QueryResult> {
  const { text, values } = query.render((n) => `$${n}`);
  try {
    return await client.query(text, values);
  } catch (err) {
    throw asUniqueViolation(err) ?? err;
  }
}

async function rows<T>(client: Client, query: Sql): Promise<T[]> {
  return (await execute(client, query)).rows as T[];
}

/** PostgreSQL's unique_violation (23505) as the store's UniqueViolation. */
function asUniqueViolation(err: unknown): UniqueViolation | undefined {
  const e = err as { code?: string; constraint?: string; detail?: string; message?: string };
  if (e.code !== '23505') return undefined;
  // detail: `Key (project_id, name)=(p, n) already exists.`; over an expression the list holds it as written.
  const listed = /^Key \((.*?)\)=/.exec(e.detail ?? '')?.[1];
  const columns = listed ? listed.split(', ').filter((c) => /^\w+$/.test(c)) : [];
  return new UniqueViolation(e.message ?? 'unique violation', e.constraint, columns, { cause: err });
}

/** Applies every migration newer than the database's version, under a lock so replicas starting together take turns. */
async function migrate(db: PgDatabase): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run(raw(`SELECT pg_advisory_xact_lock(hashtext('bcs.migrate'))`));
    await tx.run(raw(`CREATE TABLE IF NOT EXISTS bcs_schema_version (version INTEGER NOT NULL)`));
    const row = await tx.get<{ version: number }>(raw(`SELECT max(version) AS version FROM bcs_schema_version`));
    const current = row?.version ?? 0;
    if (current > pgMigrations.length) {
      throw new Error(`database schema version ${current} is newer than this service (${pgMigrations.length}); upgrade bcs`);
    }
    for (let version = current + 1; version <= pgMigrations.length; version++) {
      await tx.run(raw(pgMigrations[version - 1]!));
      await tx.run(raw(`INSERT INTO bcs_schema_version (version) VALUES (${version})`));
    }
  });
}
