// What repositories run their queries on. Two implementations: SQLite (sqlite/, the embedded default, one
// machine) and PostgreSQL (pg/, the cluster). Repositories are written once against this.
import type { Sql } from './sql.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Queryable {
  readonly dialect: Dialect;
  /** Every row of a query. */
  all<T>(query: Sql): Promise<T[]>;
  /** The first row of a query, or undefined. */
  get<T>(query: Sql): Promise<T | undefined>;
  /** A write; how many rows it changed. A unique index's refusal is thrown as UniqueViolation. */
  run(query: Sql): Promise<{ changes: number }>;
}

export interface Database extends Queryable {
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. Queries inside
   * go through the Queryable it is given; nothing else sees the transaction's writes before it commits.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
