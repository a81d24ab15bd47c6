// A real HTTP server on 127.0.0.1:0 whose replies each test scripts. The client under test talks
// to it over real sockets, so retries, timeouts and headers are exercised end to end.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  /** Raw request target as it arrived, e.g. `/browsers?tags%5Bteam%5D=a`. */
  rawUrl: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Objects and arrays are sent as JSON; strings as they are. */
  body?: unknown;
  /** Wait this long before sending headers. */
  delayMs?: number;
  /** Never answer (until the server closes). */
  hang?: boolean;
  /** Send the headers and the first half of the body, then stall. */
  stallBody?: boolean;
}

export type Script = (req: SeenRequest, index: number) => Reply | Promise<Reply>;

export interface ScriptedServer {
  url: string;
  port: number;
  requests: SeenRequest[];
  script: Script;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const state: ScriptedServer = {
    url: '',
    port: 0,
    requests: [],
    script: () => ({ status: 500, body: { code: 'unscripted', message: 'no script' } }),
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawUrl = req.url ?? '/';
      const parsed = new URL(rawUrl, 'http://x');
      const seen: SeenRequest = {
        method: req.method ?? '',
        rawUrl,
        path: parsed.pathname,
        query: parsed.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = state.requests.push(seen) - 1;
      void Promise.resolve(state.script(seen, index)).then(async (reply) => {
        if (reply.hang) return;
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        const isText = typeof reply.body === 'string';
        const payload = reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
        const headers: Record<string, string> = { ...reply.headers };
        if (payload && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
          headers['content-type'] = isText ? 'text/plain' : 'application/json';
        }
        res.writeHead(reply.status ?? 200, headers);
        if (reply.stallBody) res.write(payload.slice(0, payload.length >> 1));
        else res.end(payload);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  state.port = port;
  state.url = `http://127.0.0.1:${port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** A port that was just listening and is now closed, so connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
