// The store's one answer to a write refused by a unique index. Callers outside the store see this, never
// a driver's error codes: SQLite and PostgreSQL each raise it from their own refusal.

/** A write refused by a unique index. `columns` names the indexed columns when the database says them. */
export class UniqueViolation extends Error {
  constructor(
    message: string,
    /** The index, when the database names it (PostgreSQL always; SQLite for an index over an expression). */
    readonly index: string | undefined,
    readonly columns: readonly string[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'UniqueViolation';
  }
}
