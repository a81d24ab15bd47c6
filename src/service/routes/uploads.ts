// What routes that take uploads share: the multipart parser, registered in the caller's plugin scope only.
// An answer that goes out before an upload was read whole is handled for every route (unread-body.ts).
import multipart, { type FastifyMultipartOptions } from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/** Registers the multipart parser with `limits` in `scope` (a plugin of the routes that take uploads). */
export async function acceptMultipart(scope: FastifyInstance, limits: NonNullable<FastifyMultipartOptions['limits']>): Promise<void> {
  await scope.register(multipart, { limits });
}
