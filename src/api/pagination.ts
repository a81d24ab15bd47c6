// Offset pagination as the hosted API does it: the body is a bare JSON array and the paging state
// travels in `X-Has-More` / `X-Next-Offset`. A list that silently stops early makes a scenario
// pass on partial data, so anything inconsistent is an error rather than a guess.

import type { ApiResponse, Requester } from './requester.js';
import { ApiError } from './errors.js';

export interface OffsetPage<T> {
  items: T[];
  hasMore: boolean;
  /** Absolute offset of the next page; 0 on the last page (the wire's own sentinel). */
  nextOffset: number;
}

/** Fetches one page at `query.offset` (default 0). */
export async function fetchOffsetPage<T>(
  client: Requester,
  path: string,
  query: Record<string, unknown> = {},
): Promise<OffsetPage<T>> {
  const offset = toOffset(query.offset);
  const res = await client.request<unknown>('GET', path, { query: { ...query, offset } });
  return parseOffsetPage<T>(res, offset, path);
}

/** Iterates every item of every page, starting at `query.offset` (default 0). */
export async function* paginateOffset<T>(
  client: Requester,
  path: string,
  query: Record<string, unknown> = {},
  pageSize?: number,
): AsyncGenerator<T, void, undefined> {
  const base: Record<string, unknown> = pageSize === undefined ? { ...query } : { ...query, limit: pageSize };
  let offset = toOffset(base.offset);
  for (;;) {
    const page = await fetchOffsetPage<T>(client, path, { ...base, offset });
    yield* page.items;
    if (!page.hasMore) return;
    offset = page.nextOffset;
  }
}

export function parseOffsetPage<T>(res: ApiResponse<unknown>, requestedOffset: number, path: string): OffsetPage<T> {
  const fail = (message: string): ApiError =>
    new ApiError({ status: res.status, code: 'bad_pagination', message, method: 'GET', path, requestId: res.requestId });

  if (!Array.isArray(res.data)) throw fail('expected a JSON array body on a paginated list');
  const hasMoreHeader = parseHasMore(res.headers.get('x-has-more'));
  const nextHeader = res.headers.get('x-next-offset');
  let next: number | undefined;
  if (nextHeader !== null && nextHeader.trim() !== '') {
    next = Number(nextHeader.trim());
    if (!Number.isSafeInteger(next) || next < 0) throw fail(`invalid X-Next-Offset ${JSON.stringify(nextHeader)}`);
  }

  const items = res.data as T[];
  let hasMore: boolean;
  if (hasMoreHeader === false) hasMore = false;
  else if (hasMoreHeader === true) {
    // 0 is the "last page" sentinel, so "more" with 0 (or nothing) leaves no way to continue.
    if (!next) throw fail('X-Has-More: true without a usable X-Next-Offset; refusing to truncate the list');
    hasMore = true;
  } else {
    // No X-Has-More: the offset alone decides, as in the hosted SDK; an empty page always ends.
    hasMore = !!next && items.length > 0;
  }
  if (hasMore && next! <= requestedOffset) {
    throw fail(`X-Next-Offset ${next} does not advance past offset ${requestedOffset}; refusing to loop`);
  }
  return { items, hasMore, nextOffset: hasMore ? next! : 0 };
}

function parseHasMore(raw: string | null): boolean | undefined {
  const v = raw?.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}

function toOffset(v: unknown): number {
  if (v === undefined || v === null) return 0;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new TypeError(`offset must be a non-negative integer, got ${String(v)}`);
  }
  return n;
}
