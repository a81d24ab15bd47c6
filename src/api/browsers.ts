// `/browsers`: create, get, update, delete and list browser sessions.

import type { Requester } from './requester.js';
import { fetchOffsetPage, paginateOffset, type OffsetPage } from './pagination.js';
import { pathSegment } from './query.js';
import type { BrowserCreateParams, BrowserListParams, BrowserSession, BrowserUpdateParams } from './types.js';

export interface BrowserRetrieveOptions {
  /** Also find sessions that have ended (otherwise they are 404). */
  include_deleted?: boolean;
}

export class BrowsersResource {
  // Type-only link back to the client keeps the module graph acyclic at runtime.
  readonly #client: Requester;

  constructor(client: Requester) {
    this.#client = client;
  }

  async create(params: BrowserCreateParams = {}): Promise<BrowserSession> {
    return (await this.#client.request<BrowserSession>('POST', '/browsers', { body: params })).data;
  }

  async retrieve(idOrName: string, opts: BrowserRetrieveOptions = {}): Promise<BrowserSession> {
    const res = await this.#client.request<BrowserSession>('GET', browserPath(idOrName), {
      query: { include_deleted: opts.include_deleted },
    });
    return res.data;
  }

  async update(idOrName: string, params: BrowserUpdateParams): Promise<BrowserSession> {
    return (await this.#client.request<BrowserSession>('PATCH', browserPath(idOrName), { body: params })).data;
  }

  async delete(idOrName: string): Promise<void> {
    await this.#client.request<void>('DELETE', browserPath(idOrName));
  }

  /** Every matching session across all pages; `limit` is the page size, `offset` where to start. */
  list(params: BrowserListParams = {}): AsyncIterableIterator<BrowserSession> {
    const { limit, ...query } = params;
    return paginateOffset<BrowserSession>(this.#client, '/browsers', { ...query }, limit);
  }

  /** One page, for callers that page themselves (pass `nextOffset` back as `offset`). */
  listPage(params: BrowserListParams = {}): Promise<OffsetPage<BrowserSession>> {
    return fetchOffsetPage<BrowserSession>(this.#client, '/browsers', { ...params });
  }
}

function browserPath(idOrName: string): string {
  return `/browsers/${pathSegment(idOrName, 'browser id or name')}`;
}
