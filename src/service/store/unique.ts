// The store's one answer to a write refused by a unique index. Callers outside the store see this, never
// the driver's error codes, so a second store (PostgreSQL) can raise the same thing from its own refusal.

/** A write refused by a unique index. `columns` names the indexed columns when the database says them. */
export class UniqueViolation extends Error {
  constructor(
    message: string,
    /** The index, when the database names it rather than its columns (an index over an expression). */
    readonly index: string | undefined,
    readonly columns: readonly string[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'UniqueViolation';
  }
}

const FAILED = 'UNIQUE constraint failed: ';

/** Runs a write, answering SQLite's unique-index refusal with UniqueViolation; other errors pass through. */
export function unique<T>(write: () => T): T {
  try {
    return write();
  } catch (err) {
    if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw err;
    const message = (err as Error).message;
    const detail = message.startsWith(FAILED) ? message.slice(FAILED.length) : '';
    const named = /^index '(.*)'$/.exec(detail);
    // SQLite says `table.column, table.column` for an index over plain columns.
    const columns = named || !detail ? [] : detail.split(', ').map((c) => c.slice(c.lastIndexOf('.') + 1));
    throw new UniqueViolation(message, named?.[1], columns, { cause: err });
  }
}
