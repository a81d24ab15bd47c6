// Answers that go out before the request's body was read: a refusal from auth, a missing browser, a body
// over the route's limit, an upload the browser cannot take. The client is usually still sending then.
// Node's own handling breaks the exchange: with `Connection: close` it destroys the socket the moment the
// answer is written, and the kernel resets a connection closed with unread data in it. Once the body is
// larger than the socket buffers hold, the client is still writing then and its writes fail (EPIPE); the
// reset can also reach it before it has read the answer, which it then never sees (a connection error).
//
// So a refusal whose body is small enough (up to the route's body limit) waits until the rest has arrived
// and been thrown away, and the connection stays usable for the next request. Anything larger is answered
// at once with `Connection: close`, and the connection is ended only once the client has sent the rest,
// read and dropped meanwhile (or a bound has passed): a FIN behind the answer, not a reset in front of it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';

/** How long a refusal waits for the rest of a small body before it gives up and answers with a close. */
const DRAIN_MS = 10_000;
/** How long a closing connection keeps reading what the client still sends after the answer. */
const LINGER_MS = 30_000;
/** Fastify's, for a request no route took. */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The handler passes the request body on while its answer streams back (a proxied request): an early
     * answer there is the destination's, and the body keeps going to it until that answer has been sent.
     */
    streamsBody?: boolean;
  }
}

export function installUnreadBodyHandling(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    await settleUnreadBody(req, reply);
    return payload;
  });
}

async function settleUnreadBody(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = req.raw;
  if (body.complete) {
    // Fastify closes after any body it could not parse, read whole or not; read whole, the next request
    // on the connection is found where it should be.
    keepConnection(reply);
    return;
  }
  // A successful answer comes from a handler that read the body itself; a refusal may keep the connection.
  if (reply.statusCode >= 400 && !req.routeOptions.config?.streamsBody) {
    const limit = req.routeOptions.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const declared = Number(body.headers['content-length']);
    if (!(declared > limit) && (await discardRest(body, limit))) return keepConnection(reply);
  }
  reply.header('connection', 'close');
  lingerAfterAnswer(body);
}

function keepConnection(reply: FastifyReply): void {
  if (String(reply.getHeader('connection') ?? '').toLowerCase() === 'close') reply.removeHeader('connection');
}

/**
 * Reads and drops what is left of `body`; true once it has all arrived, false when more than `limit`
 * bytes were still coming, the client stalled, or the connection went away.
 */
function discardRest(body: IncomingMessage, limit: number): Promise<boolean> {
  // Whoever was reading it (the multipart parser of a refused upload) has no more use for it.
  body.unpipe();
  return new Promise((resolve) => {
    let received = 0;
    const done = (complete: boolean) => {
      clearTimeout(timer);
      body.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
      resolve(complete);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(body.complete);
    const timer = setTimeout(() => done(false), DRAIN_MS);
    body.on('data', onData).once('end', onEnd).once('close', onClose).once('error', onClose);
    body.resume();
  });
}

/**
 * Replaces Node's close after a `Connection: close` answer (socket.destroySoon, called once the answer is
 * written): the connection is ended once the client has sent the rest of its body, which is read and
 * dropped meanwhile; a client that never finishes is cut after a bound.
 */
function lingerAfterAnswer(body: IncomingMessage): void {
  const socket = body.socket;
  socket.destroySoon = function lingeringClose(this: typeof socket) {
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    const end = () => {
      clearTimeout(timer);
      this.end();
    };
    if (body.complete) return end();
    body.once('end', end);
    // The rest goes through the HTTP parser as before; whoever read it before the answer is done with it.
    body.unpipe();
    body.resume();
  };
}
