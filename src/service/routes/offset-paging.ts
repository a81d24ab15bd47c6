// Offset pagination as the hosted API does it: `offset`/`limit` in the query (offsetPageQuery in
// src/api/schemas/common.ts), a bare JSON array in the body, and `X-Has-More` plus `X-Next-Offset` (the
// absolute start of the next page, 0 on the last).
import type { FastifyReply } from 'fastify';

export { MAX_OFFSET, offsetPageQuery } from '../../api/schemas/common.js';

/** Sets the paging headers for a page of `count` items that started at `offset`. */
export function setPageHeaders(reply: FastifyReply, offset: number, count: number, hasMore: boolean): void {
  reply.header('X-Has-More', String(hasMore));
  reply.header('X-Next-Offset', String(hasMore ? offset + count : 0));
}
