// The Database of the embedded default: one better-sqlite3 connection. Its calls are synchronous; an open
// transaction holds the connection, so queries from elsewhere wait until it ends rather than joining it.
import type { Statement } from 'better-sqlite3';
import type { Database, Queryable } from '../database.js';
import type { Sql } from '../sql.js';
import { UniqueViolation } from '../unique.js';
import type { Db } from './open.js';

export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  /** Settles when the open transaction ends; null when none is open. */
  private open: Promise<void> | null = null;
  private readonly statements = new Map<string, Statement>();
  /** The connection as a transaction body sees it: no waiting for the transaction it is in. */
  private readonly inside: Queryable = {
    dialect: 'sqlite',
    all: async (q) => this.call(q, (s, v) => s.all(...v)) as never,
    get: async (q) => this.call(q, (s, v) => s.get(...v)) as never,
    run: async (q) => ({ changes: this.call(q, (s, v) => s.run(...v).changes) }),
  };

  constructor(readonly db: Db) {}

  all<T>(query: Sql): Promise<T[]> {
    return this.outside(() => this.call(query, (s, v) => s.all(...v) as T[]));
  }

  get<T>(query: Sql): Promise<T | undefined> {
    return this.outside(() => this.call(query, (s, v) => s.get(...v) as T | undefined));
  }

  run(query: Sql): Promise<{ changes: number }> {
    return this.outside(() => ({ changes: this.call(query, (s, v) => s.run(...v).changes) }));
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    // Checked and taken with no await between, or two waiters woken together would both begin.
    while (this.open) await this.open;
    let end!: () => void;
    this.open = new Promise((resolve) => (end = resolve));
    try {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this.inside);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.open = null;
      end();
    }
  }

  close(): Promise<void> {
    return this.outside(() => void this.db.close());
  }

  /** Runs `query` once no transaction is open: checked and run with no await between, so it never joins one. */
  private async outside<R>(query: () => R): Promise<R> {
    while (this.open) await this.open;
    return query();
  }

  private call<R>(query: Sql, use: (statement: Statement, values: unknown[]) => R): R {
    const { text, values } = query.render(() => '?');
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    try {
      return use(statement, values);
    } catch (err) {
      throw asUniqueViolation(err) ?? err;
    }
  }
}

const FAILED = 'UNIQUE constraint failed: ';

/** SQLite's refusal by a unique index or primary key, as the store's UniqueViolation. */
export function asUniqueViolation(err: unknown): UniqueViolation | undefined {
  const code = (err as { code?: string }).code;
  if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return undefined;
  const message = (err as Error).message;
  const detail = message.startsWith(FAILED) ? message.slice(FAILED.length) : '';
  const named = /^index '(.*)'$/.exec(detail);
  // SQLite says `table.column, table.column` for an index over plain columns.
  const columns = named || !detail ? [] : detail.split(', ').map((c) => c.slice(c.lastIndexOf('.') + 1));
  return new UniqueViolation(message, named?.[1], columns, { cause: err });
}

