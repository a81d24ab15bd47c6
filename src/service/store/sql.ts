// Small SQL helpers the repositories share.

/** A case-insensitive substring pattern for `lower(column) LIKE @p ESCAPE '\'`. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
