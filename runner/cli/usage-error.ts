/** Bad flags or flag values: printed and exit 2. */
export class UsageError extends Error {}
