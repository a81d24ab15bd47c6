import type { FastifyRequest } from 'fastify';

/** Lets a POST without a body (`curl -X POST`) mean "all defaults" on routes whose fields are optional. */
export async function defaultEmptyBody(req: FastifyRequest): Promise<void> {
  req.body ??= {};
}
