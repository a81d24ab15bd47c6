// Requests the service makes on a session's behalf (the curl routes), sent as a client of the session's own
// egress forwarder: http:// in absolute form, https:// through a CONNECT tunnel and TLS from here. So they
// are held to the same egress policy, reported the same way when refused, and leave through the same custom
// proxy as the browser's own traffic, with no second copy of those rules to drift apart.
import http from 'node:http';
import net from 'node:net';
import { Readable } from 'node:stream';
import tls from 'node:tls';
import { DomainError } from '../errors.js';
import { EGRESS_REFUSED_HEADER, FORWARDER_ERROR_HEADER, type ForwarderEndpoint } from './forwarder.js';

/** Answers the forwarder writes itself are short; more than this is not read into a message. */
const MAX_MESSAGE_BYTES = 4096;

export interface EgressRequest {
  url: URL;
  method: string;
  /** Header name → value(s), as the caller gives them; Host is set from `url` unless given. */
  headers: Record<string, string | string[]>;
  body?: Buffer | Readable;
  /** Until the response's status and headers have arrived. */
  timeoutMs: number;
  /** Aborts the request (the caller went away). */
  signal?: AbortSignal;
}

export interface EgressResponse {
  status: number;
  /** Name, value, name, value ... as received (repeated headers kept). */
  rawHeaders: string[];
  body: Readable;
}

export const unreachable = (message: string) => new DomainError('bad_gateway', 'bad_gateway', message);
const timedOut = (url: URL, ms: number) => new DomainError('gateway_timeout', 'gateway_timeout', `${url.origin} did not answer within ${ms} ms`);

/**
 * Sends `req` through the forwarder at `endpoint`. Resolves with whatever answered, the destination or a
 * refusal of the egress policy (403 with `x-bcs-egress-refused`, as the browser would get it); rejects with
 * a 502-kind DomainError when the destination could not be reached, and a 504-kind one on the deadline.
 */
export function requestThroughEgress(endpoint: ForwarderEndpoint, req: EgressRequest): Promise<EgressResponse> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const cleanups: (() => void)[] = [];
    const finish = (err: Error | undefined, res?: EgressResponse) => {
      if (settled) return;
      settled = true;
      for (const cleanup of cleanups) cleanup();
      if (err) reject(err);
      else resolve(res!);
    };
    const timer = setTimeout(() => {
      finish(timedOut(req.url, req.timeoutMs));
      abort();
    }, req.timeoutMs);
    cleanups.push(() => clearTimeout(timer));
    const pending: { destroy(): void }[] = [];
    const abort = () => pending.forEach((p) => p.destroy());
    if (req.signal) {
      const onAbort = () => {
        finish(new DomainError('bad_gateway', 'aborted', `the caller went away before ${req.url.origin} answered`));
        abort();
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => req.signal!.removeEventListener('abort', onAbort));
    }
    const onResponse = (res: http.IncomingMessage) => {
      if (res.headers[FORWARDER_ERROR_HEADER]) {
        readText(res).then((text) => finish(unreachable(text || `could not reach ${req.url.host}`)), (err: Error) => finish(unreachable(err.message)));
        return;
      }
      finish(undefined, { status: res.statusCode ?? 502, rawHeaders: res.rawHeaders, body: res });
    };
    const send = (out: http.ClientRequest) => {
      pending.push(out);
      out.once('response', onResponse);
      out.once('error', (err) => finish(unreachable(`could not reach ${req.url.host}: ${err.message}`)));
      if (req.body instanceof Readable) {
        req.body.once('error', (err) => out.destroy(err));
        req.body.pipe(out);
      } else out.end(req.body);
    };
    const headers = withHost(req.headers, req.url.host);

    if (req.url.protocol === 'http:') {
      send(http.request({ ...endpoint, method: req.method, path: req.url.href, headers, agent: false }));
      return;
    }
    const host = req.url.hostname.replace(/^\[(.*)\]$/, '$1');
    const authority = `${req.url.hostname}:${req.url.port || 443}`;
    const connect = http.request({ ...endpoint, method: 'CONNECT', path: authority, headers: { host: authority }, agent: false });
    pending.push(connect);
    connect.once('error', (err) => finish(unreachable(`could not open a tunnel to ${authority}: ${err.message}`)));
    connect.once('connect', (answer, socket, head) => {
      pending.push(socket);
      if (answer.statusCode !== 200) {
        // A refusal is passed on as the answer it is; anything else is the forwarder failing to connect.
        const refused = answer.headers[EGRESS_REFUSED_HEADER] !== undefined;
        readText(socket, head).then((text) => {
          if (refused) finish(undefined, { status: answer.statusCode ?? 403, rawHeaders: answer.rawHeaders, body: Readable.from([Buffer.from(text)]) });
          else finish(unreachable(text || `could not open a tunnel to ${authority} (${answer.statusCode})`));
        }, (err: Error) => finish(unreachable(err.message)));
        return;
      }
      if (head.length) socket.unshift(head);
      const secure = tls.connect({ socket, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] });
      pending.push(secure);
      secure.once('error', (err) => finish(unreachable(`TLS with ${authority} failed: ${err.message}`)));
      send(http.request({ createConnection: () => secure, method: req.method, path: `${req.url.pathname}${req.url.search}`, headers }));
    });
    connect.end();
  });
}

/** The caller's headers with Host added unless it set one (header names are case-insensitive). */
function withHost(headers: Record<string, string | string[]>, host: string): Record<string, string | string[]> {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'host') ? headers : { ...headers, host };
}

/** A short text answer, read to its end (or its first MAX_MESSAGE_BYTES), trimmed. */
function readText(stream: Readable, head?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = head?.length ? [head] : [];
    let size = head?.length ?? 0;
    const done = () => {
      stream.destroy();
      resolve(Buffer.concat(chunks).toString('utf8').slice(0, MAX_MESSAGE_BYTES).trim());
    };
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_MESSAGE_BYTES) done();
    });
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', reject);
  });
}
