// Read-modify-write transactions lock the rows they read, so a concurrent one waits instead of writing
// over what the first wrote. PostgreSQL needs FOR UPDATE for that; SQLite has no such clause and needs none,
// since its transaction holds the only connection.
import type { Database, Queryable } from './database.js';
import { raw, sql, type Sql } from './sql.js';

export function forUpdate(tx: Queryable): Sql {
  return raw(tx.dialect === 'postgres' ? ' FOR UPDATE' : '');
}

export interface RowChange<S, R> {
  /** The SELECT of the one row (without FOR UPDATE: added where the database needs it). */
  read: Sql;
  decode: (stored: S) => R;
  write: (tx: Queryable, next: R) => Promise<unknown>;
}

/**
 * Reads a row, and writes what `change` makes of it, in one transaction with the row locked. `change`
 * answering undefined (or no such row) writes nothing and answers undefined.
 */
export function modifyRow<S, R>(db: Database, row: RowChange<S, R>, change: (current: R) => R | undefined): Promise<R | undefined> {
  return db.transaction(async (tx) => {
    const stored = await tx.get<S>(sql`${row.read}${forUpdate(tx)}`);
    const next = stored && change(row.decode(stored));
    if (next) await row.write(tx, next);
    return next;
  });
}

/**
 * Holds the transaction-scoped lock `name` until `tx` ends: on PostgreSQL an advisory lock, which every
 * process on the database waits for in turn; SQLite's transaction already excludes every other writer.
 */
export async function lockNamed(tx: Queryable, name: string): Promise<void> {
  if (tx.dialect === 'postgres') await tx.get(sql`SELECT pg_advisory_xact_lock(hashtext(${name}))`);
}
