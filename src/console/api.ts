// The console's one way to the API: same origin, the key in the Authorization header (never in a URL,
// which ends up in history, logs and referrers), and the API's `{code, message}` errors as ApiError.
import { createParser } from 'eventsource-parser';

/** Session storage: the key lives as long as the tab, and is not shared with other tabs or written to disk. */
const stored = (item: string) => ({
  get: (): string | null => sessionStorage.getItem(item),
  set: (value: string) => sessionStorage.setItem(item, value),
  clear: () => sessionStorage.removeItem(item),
});

export const keyStore = stored('bcs-console-key');
/** The project an org-wide key acts in, kept like the key so that a reload stays in it. */
export const projectStore = stored('bcs-console-project');

/** The API's project header: an org-wide key acts in the project it names, or in the org's default scope without it. */
const PROJECT_HEADER = 'x-kernel-project-id';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** One page of an offset-paged list, with what its headers say about the next one. */
export interface ListPage<T> {
  rows: T[];
  hasMore: boolean;
  /** The absolute `offset` of the next page (0 on the last). */
  nextOffset: number;
  /** The `page_token` of the next page, on lists paged by token (the audit log). */
  nextPageToken?: string;
}

export interface Api {
  /** The project every request names, or null for the key's own scope. */
  readonly project: string | null;
  get<T>(path: string): Promise<T>;
  /** A list route's page: the body's array, and `X-Has-More` and `X-Next-Offset` read from the answer. */
  list<T>(path: string): Promise<ListPage<T>>;
  send<T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** The raw response body as a Blob (videos, downloads). */
  blob(path: string): Promise<Blob>;
  /** Follows a server-sent event stream until it ends or `signal` aborts; each `data:` line parsed as JSON. */
  stream(path: string, onFrame: (frame: unknown) => void, signal: AbortSignal): Promise<void>;
}

export function createApi(key: string, project: string | null = null, fetchImpl: typeof fetch = (...a) => fetch(...a)): Api {
  // Organisation routes (keys, projects, limits, the audit log) ignore the header: sending it everywhere is safe.
  const scope: Record<string, string> = project ? { [PROJECT_HEADER]: project } : {};
  const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...scope, ...extra });
  const checked = async (res: Response): Promise<Response> => {
    if (res.ok) return res;
    throw await errorOf(res);
  };
  return {
    project,
    async get<T>(path: string) {
      const res = await checked(await fetchImpl(path, { headers: headers() }));
      return (await res.json()) as T;
    },
    async list<T>(path: string) {
      const res = await checked(await fetchImpl(path, { headers: headers() }));
      const token = res.headers.get('x-next-page-token');
      return {
        rows: (await res.json()) as T[],
        hasMore: res.headers.get('x-has-more') === 'true',
        nextOffset: Number(res.headers.get('x-next-offset') ?? 0),
        ...(token ? { nextPageToken: token } : {}),
      };
    },
    async send<T>(method: string, path: string, body?: unknown) {
      const init: RequestInit = { method, headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }) };
      if (body !== undefined) init.body = JSON.stringify(body);
      const res = await checked(await fetchImpl(path, init));
      const text = await res.text();
      return (text ? JSON.parse(text) : undefined) as T;
    },
    async blob(path: string) {
      return (await checked(await fetchImpl(path, { headers: headers() }))).blob();
    },
    async stream(path, onFrame, signal) {
      // EventSource cannot send a header, and the key must not go into the URL: fetch reads the stream instead.
      const res = await checked(await fetchImpl(path, { headers: headers({ accept: 'text/event-stream' }), signal }));
      if (!res.body) return;
      const parser = createParser({
        onEvent: (msg) => {
          try {
            onFrame(JSON.parse(msg.data));
          } catch {
            onFrame({ unparsed: msg.data });
          }
        },
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          parser.feed(value);
        }
      } catch (err) {
        if (!signal.aborted) throw err;
      }
    },
  };
}

async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof body.message === 'string') return new ApiError(res.status, String(body.code ?? 'error'), body.message);
  } catch {
    // not JSON: fall through
  }
  return new ApiError(res.status, 'http_error', `${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`);
}

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A path segment from a value the API gave (ids, names): always encoded. */
export const seg = (value: string) => encodeURIComponent(value);
