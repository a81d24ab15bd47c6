// Offset pagination as the hosted API does it: `offset`/`limit` in the query, a bare JSON array in the
// body, and `X-Has-More` plus `X-Next-Offset` (the absolute start of the next page, 0 on the last).
import type { FastifyReply } from 'fastify';

/** Larger than any list here can be; within SQLite's integers and JavaScript's exact ones. */
export const MAX_OFFSET = 2 ** 31 - 1;

/** The query properties every offset-paged list takes. */
export const offsetPageQuery = {
  // Bounded so a huge offset is a 400, not a number the database cannot hold.
  offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
} as const;

/** Sets the paging headers for a page of `count` items that started at `offset`. */
export function setPageHeaders(reply: FastifyReply, offset: number, count: number, hasMore: boolean): void {
  reply.header('X-Has-More', String(hasMore));
  reply.header('X-Next-Offset', String(hasMore ? offset + count : 0));
}
