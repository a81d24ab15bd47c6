// Queries as values: the `sql` tag keeps text and parameters apart, so a repository writes each query once
// and each database renders the placeholders its own way (`?` for SQLite, `$n` for PostgreSQL).

/** A query or a fragment of one: literal text parts with a value between each pair. */
export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** The text with each value's placeholder made by `placeholder(n)` (n from 1), and the values in order. */
  render(placeholder: (n: number) => string): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const text = this.strings.reduce((out, part, i) => {
      if (i === 0) return part;
      values.push(bindable(this.values[i - 1]));
      return out + placeholder(values.length) + part;
    }, '');
    return { text, values };
  }
}

/**
 * The tag. A value that is itself an Sql fragment is spliced in (its values joining the query's);
 * anything else becomes a parameter.
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const parts: string[] = [strings[0]!];
  const flat: unknown[] = [];
  values.forEach((value, i) => {
    const next = strings[i + 1]!;
    if (value instanceof Sql) {
      parts[parts.length - 1] += value.strings[0]!;
      value.values.forEach((inner, j) => {
        flat.push(inner);
        parts.push(value.strings[j + 1]!);
      });
      parts[parts.length - 1] += next;
    } else {
      flat.push(value);
      parts.push(next);
    }
  });
  return new Sql(parts, flat);
}

/** Trusted text (a column list, a sort direction chosen from a fixed set): never user input. */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

/** Fragments joined by `separator` (`AND` between conditions, `, ` between assignments). */
export function join(fragments: readonly Sql[], separator: string): Sql {
  if (fragments.length === 0) return raw('');
  // Built in one pass: splicing each fragment onto the growing query copied it every time, which took
  // milliseconds for the IN list of a page of 1,000 checks.
  const strings = [fragments[0]!.strings[0]!];
  const values: unknown[] = [];
  fragments.forEach((f, i) => {
    if (i > 0) strings[strings.length - 1] += separator + f.strings[0]!;
    f.values.forEach((value, j) => {
      values.push(value);
      strings.push(f.strings[j + 1]!);
    });
  });
  return new Sql(strings, values);
}

/** `IN (...)` of these values; an empty list matches nothing. */
export function inList(values: readonly unknown[]): Sql {
  return values.length ? sql`IN (${join(values.map((v) => sql`${v}`), ', ')})` : raw('IN (NULL)');
}

/** Both databases store flags as 0/1 integers and take no `undefined`. */
function bindable(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** A case-insensitive substring pattern for `lower(column) LIKE ${p} ESCAPE '\'`. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
