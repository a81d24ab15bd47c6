// What routes that take uploads share: the multipart parser, registered in the caller's plugin scope only,
// and closing the connection when an answer goes out before the body was read. Uploads stream their bodies,
// so an error can be answered before the client has sent everything; like Go's net/http, such a connection
// is then closed rather than kept: the unread rest would otherwise sit in it (and keep shutdown waiting for
// a request that never completes).
import multipart, { type FastifyMultipartOptions } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export async function closeIfBodyUnread(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (!req.raw.complete) reply.header('connection', 'close');
  return payload;
}

/** Registers the multipart parser with `limits` in `scope` (a plugin of the routes that take uploads). */
export async function acceptMultipart(scope: FastifyInstance, limits: NonNullable<FastifyMultipartOptions['limits']>): Promise<void> {
  await scope.register(multipart, { limits });
  scope.addHook('onSend', closeIfBodyUnread);
}
