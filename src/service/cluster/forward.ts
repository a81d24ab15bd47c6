// How a replica hands a request to the host that serves it: HTTP requests (and SSE streams) are proxied
// as they come, body and answer streamed, nothing buffered; WebSocket upgrades are passed on and, once the
// host switches protocols, the two sockets are piped byte for byte. The client's own headers go along
// unchanged (its Host too, so the URLs in an answer point back at the replica) with the cluster key added.
import { Agent, request, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from '../../api/types.js';

/** Headers that belong to one connection, not to the request (RFC 9110 7.6.1); never passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

export interface Target {
  /** The host's base URL (http://10.0.0.5:8341). */
  url: URL;
  /** Added to every request passed on (the cluster key, X-Forwarded-For). */
  headers: OutgoingHttpHeaders;
  /** The replica's connections to hosts (hostAgent). */
  agent: Agent;
}

/** Connections to hosts are kept open between requests: a new TCP handshake per request would cost more than the hop. */
export function hostAgent(): Agent {
  return new Agent({ keepAlive: true, maxFreeSockets: 64 });
}

function passedOn(headers: IncomingHttpHeaders, extra: OutgoingHttpHeaders, keepUpgrade: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (HOP_BY_HOP.has(name) && !(keepUpgrade && (name === 'connection' || name === 'upgrade')))) continue;
    out[name] = value;
  }
  return { ...out, ...extra };
}

/** `req` as the host gets it. An upgrade's socket is the client's from the switch on: never from or back to the pool. */
function requestTo(target: Target, req: IncomingMessage, upgrade: boolean): ClientRequest {
  return request({
    protocol: target.url.protocol,
    hostname: target.url.hostname,
    port: target.url.port,
    method: req.method,
    path: req.url,
    headers: passedOn(req.headers, target.headers, upgrade),
    agent: upgrade ? false : target.agent,
  });
}

function answered(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/**
 * Proxies `req` to `target`; `refuse` answers in our error shape when the host cannot be reached (before
 * any of its answer was sent; after, the client's connection is cut, as the host's was).
 */
export function forwardHttp(req: IncomingMessage, res: ServerResponse, target: Target, refuse: (status: number, body: ErrorBody) => void): void {
  const upstream = requestTo(target, req, false);
  upstream.on('response', (answer) => {
    const headers = answered(answer.headers);
    // A host that answers before it read the whole body (a refused upload) closes its connection; so does
    // the replica with the client's, or the rest of that body would be read as the client's next request.
    if (/\bclose\b/i.test(String(answer.headers.connection ?? '')) || !req.complete) {
      headers.connection = 'close';
      req.unpipe(upstream);
    }
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
    // An event stream is written as it comes: headers now, each event as the host sends it.
    res.flushHeaders();
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  upstream.on('error', () => {
    if (res.headersSent) res.destroy();
    else refuse(502, { code: 'host_unreachable', message: 'the browser host serving this request could not be reached; try again' });
  });
  // A client that leaves ends the host's side too: a create waiting in a full host's line leaves the line.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

/** Passes a WebSocket upgrade to `target`; once the host accepts, the sockets are piped both ways. */
export function forwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: Target, refuse: (status: number, body: ErrorBody) => void): void {
  const upstream = requestTo(target, req, true);
  upstream.on('upgrade', (answer, hostSocket, hostHead) => {
    socket.write(statusBlock(answer));
    if (hostHead.length) socket.write(hostHead);
    if (head.length) hostSocket.write(head);
    for (const s of [socket, hostSocket]) if ('setNoDelay' in s) (s as { setNoDelay(on: boolean): void }).setNoDelay(true);
    hostSocket.pipe(socket);
    socket.pipe(hostSocket);
    // Either side gone ends the other: a host that dies closes its clients' sockets at once.
    const cut = () => {
      socket.destroy();
      hostSocket.destroy();
    };
    hostSocket.on('close', cut).on('error', cut);
    socket.on('close', cut).on('error', cut);
  });
  // The host refused the upgrade (401, 404, 409...): its answer goes to the client as it is.
  upstream.on('response', (answer) => {
    socket.write(statusBlock(answer));
    answer.pipe(socket);
  });
  upstream.on('error', () => refuse(502, { code: 'host_unreachable', message: 'the browser host running this session could not be reached' }));
  socket.on('error', () => upstream.destroy());
  upstream.end();
}

/** The status line and headers of `answer`, as they came (raw, in order), for a socket that is no ServerResponse. */
function statusBlock(answer: IncomingMessage): string {
  const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}`];
  const raw = answer.rawHeaders;
  const switching = answer.statusCode === 101;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    // A refused upgrade's body is re-sent as it is read, so its connection is closed after it.
    if (!switching && (name === 'connection' || name === 'keep-alive' || name === 'transfer-encoding')) continue;
    lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  if (!switching) lines.push('connection: close');
  return `${lines.join('\r\n')}\r\n\r\n`;
}
