// HTTP requests from inside a session's network: `POST /browsers/{id}/curl` answers the destination's
// response as JSON (the SDK's `browsers.curl`), and `/browsers/{id}/curl/raw` streams it back as it comes
// (the SDK's `browsers.fetch`). Both leave through the session's egress forwarder (egress-client.ts), so
// the egress policy, the session's private hosts and its custom proxy apply as to the browser itself; a
// refused destination is the forwarder's 403 with `x-bcs-egress-refused`, passed on as the answer it is.
// Both take the session token instead of a key: the SDK sends them to `base_url` without one.
import http from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { browserCurlParams, browserCurlResponse, curlQuery, curlRawQuery, type BrowserCurlResponse } from '../../api/schemas/curl.js';
import type { ServiceContext } from '../context.js';
import { invalidField } from '../errors.js';
import { DomainError } from '../host/errors.js';
import { requestThroughEgress, type EgressResponse } from '../host/proxy/index.js';
import { fetchDiscovery, type LiveSession } from '../host/session/index.js';
import { idParams } from './params.js';
import { content, documentedBody, ok } from './responses.js';
import { liveSessionFor } from './session-access.js';

const DEFAULT_TIMEOUT_MS = 30_000;
/** The most of a response body `curl` reads into its JSON answer; curl/raw streams without a limit. */
export const MAX_CURL_BODY = 10 * 1024 * 1024;

/** Headers of one hop (RFC 9110 §7.6.1), and the length the body decides: never passed on either way. */
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

type Params = { id: string };
type CurlReq = FastifyRequest<{ Params: Params; Querystring: FromSchema<typeof curlQuery>; Body: FromSchema<typeof browserCurlParams> }>;
type RawReq = FastifyRequest<{ Params: Params; Querystring: FromSchema<typeof curlRawQuery> }>;

export function registerCurlRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const userAgents = new WeakMap<LiveSession, Promise<string | undefined>>();
  /** The session's browser's own User-Agent, asked of Chromium once per session. */
  const userAgentOf = (session: LiveSession) => {
    let ua = userAgents.get(session);
    if (!ua) {
      ua = fetchDiscovery(session.chromium.wsEndpoint, 'version')
        .then((text) => (JSON.parse(text) as { 'User-Agent'?: string })['User-Agent'])
        .catch(() => {
          // Asked again next time: a browser busy or restarting now is no reason to go without for good.
          userAgents.delete(session);
          return undefined;
        });
      userAgents.set(session, ua);
    }
    return ua;
  };
  const ready = async (req: FastifyRequest<{ Params: Params; Querystring: { jwt?: string } }>) => {
    const session = await liveSessionFor(ctx, req);
    if (session.parked) throw new DomainError('not_found', 'not_found', `browser '${req.params.id}' is idle in its pool; acquire it first`);
    await session.ready;
    return session;
  };

  app.post(
    '/browsers/:id/curl',
    {
      config: { sessionToken: true },
      schema: {
        params: idParams,
        querystring: curlQuery,
        body: browserCurlParams,
        response: ok("The destination's answer, read whole (up to 10 MiB)", browserCurlResponse),
      },
    },
    async (request) => {
      const req = request as CurlReq;
      const session = await ready(req);
      const { body: params } = req;
      const url = targetUrl(params.url, 'body.url');
      const headers: Record<string, string | string[]> = { accept: '*/*' };
      const ua = await userAgentOf(session);
      if (ua) headers['user-agent'] = ua;
      for (const [name, value] of Object.entries(params.headers ?? {})) {
        checkHeader(name, value, `body.headers.${name}`);
        const lower = name.toLowerCase();
        if (HOP_BY_HOP.has(lower) && lower !== 'host') continue;
        if (lower === 'content-length') continue;
        headers[lower] = value;
      }
      const payload = params.body === undefined ? undefined : Buffer.from(params.body, 'utf8');
      if (payload) headers['content-length'] = String(payload.length);
      const method = params.method ?? 'GET';
      const timeoutMs = params.timeout_ms ?? DEFAULT_TIMEOUT_MS;
      const started = performance.now();
      const res = await requestThroughEgress(session.proxy.endpoint, { url, method, headers, body: payload, timeoutMs });
      if (method === 'HEAD') res.body.resume();
      const bytes = method === 'HEAD' ? Buffer.alloc(0) : await readCapped(res, url, started + timeoutMs - performance.now());
      const answer: BrowserCurlResponse = {
        status: res.status,
        headers: headerMap(res.rawHeaders),
        body: bytes.toString(params.response_encoding === 'base64' ? 'base64' : 'utf8'),
        duration_ms: Math.round(performance.now() - started),
      };
      return answer;
    },
  );

  // The raw form passes the caller's body through unparsed whatever its type, in a scope of its own so
  // that catch-all parser touches no other route.
  void app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_req, _payload, done) => done(null));
    const rawRoute = (method: string[], bodyDoc: object) =>
      raw.route({
        method,
        url: '/browsers/:id/curl/raw',
        config: { sessionToken: true, streamsBody: true, ...bodyDoc },
        schema: {
          params: idParams,
          querystring: curlRawQuery,
          response: content(
            "The destination's answer as it comes: its status, its headers (less those of one hop) and its body, streamed; " +
              'a refused destination is the egress 403 with `X-Bcs-Egress-Refused`',
            '*/*',
          ),
        },
        handler: async (request, reply) => {
          const req = request as RawReq;
          const session = await ready(req);
          const url = targetUrl(req.query.url, 'querystring.url');
          const aborted = new AbortController();
          reply.raw.once('close', () => aborted.abort());
          const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
          const res = await requestThroughEgress(session.proxy.endpoint, {
            url,
            method: req.method,
            headers: forwardedHeaders(req.raw.rawHeaders, req.query.jwt !== undefined),
            body: hasBody && req.method !== 'GET' ? req.raw : undefined,
            timeoutMs: req.query.timeout_ms ?? DEFAULT_TIMEOUT_MS,
            signal: aborted.signal,
          });
          return sendRaw(reply, res);
        },
      });
    rawRoute(['GET', 'DELETE'], {});
    rawRoute(['POST', 'PUT', 'PATCH'], documentedBody('application/octet-stream', { type: 'string', format: 'binary' }, 'Optional: sent to the destination as is, with its Content-Type'));
  });
}

/** An absolute http(s) URL, or a 400 naming `field`. */
function targetUrl(text: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidField(field, 'must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidField(field, `must be an http:// or https:// URL, not ${url.protocol}`);
  if (url.username || url.password) throw invalidField(field, 'must not carry credentials; send an Authorization header instead');
  return url;
}

function checkHeader(name: string, value: string, field: string): void {
  try {
    http.validateHeaderName(name);
  } catch {
    throw invalidField(field, 'is not a valid header name');
  }
  try {
    http.validateHeaderValue(name, value);
  } catch {
    throw invalidField(field, 'has characters a header value cannot carry');
  }
}

/**
 * The caller's headers for the destination, less those of this hop and our own: the API key (an
 * Authorization header is the caller's own only when the session token authorised the call), the project
 * header, and the SDK's client telemetry (`x-stainless-*`).
 */
function forwardedHeaders(rawHeaders: string[], byToken: boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (HOP_BY_HOP.has(name) || name === 'x-kernel-project-id' || name.startsWith('x-stainless-')) continue;
    if (name === 'authorization' && !byToken) continue;
    const prior = out[name];
    out[name] = prior === undefined ? value : [prior, value].flat();
  }
  return out;
}

/** Streams the destination's answer back: status, headers (less those of one hop), body as it arrives. */
function sendRaw(reply: FastifyReply, res: EgressResponse): FastifyReply {
  const headers: Record<string, string[]> = {};
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name)) continue;
    (headers[name] ??= []).push(res.rawHeaders[i + 1]!);
  }
  reply.code(res.status);
  for (const [name, values] of Object.entries(headers)) reply.header(name, values.length === 1 ? values[0] : values);
  return reply.send(res.body);
}

/** `Content-Type: [..]` by canonical name, as the hosted service (a Go server) writes its header maps. */
function headerMap(rawHeaders: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
    (out[name] ??= []).push(rawHeaders[i + 1]!);
  }
  return out;
}

/** The whole body, within the deadline and MAX_CURL_BODY; past either the request fails with a named reason. */
function readCapped(res: EgressResponse, url: URL, remainingMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    const fail = (err: Error) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      res.body.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new DomainError('gateway_timeout', 'gateway_timeout', `${url.origin} did not finish its answer in time`)),
      Math.max(0, remainingMs),
    );
    res.body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_CURL_BODY) {
        fail(new DomainError('bad_gateway', 'response_too_large', `the answer of ${url.origin} is larger than ${MAX_CURL_BODY} bytes; use curl/raw (browsers.fetch) to stream it`));
        return;
      }
      chunks.push(chunk);
    });
    res.body.once('end', () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    res.body.once('error', (err) => fail(new DomainError('bad_gateway', 'bad_gateway', `${url.origin} broke off its answer: ${err.message}`)));
    res.body.once('close', () => fail(new DomainError('bad_gateway', 'bad_gateway', `${url.origin} broke off its answer`)));
  });
}
