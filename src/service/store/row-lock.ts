// Read-modify-write transactions lock the rows they read, so a concurrent one waits instead of writing
// over what the first wrote. PostgreSQL needs FOR UPDATE for that; SQLite has no such clause and needs none,
// since its transaction holds the only connection.
import type { Queryable } from './database.js';
import { raw, type Sql } from './sql.js';

export function forUpdate(tx: Queryable): Sql {
  return raw(tx.dialect === 'postgres' ? ' FOR UPDATE' : '');
}
