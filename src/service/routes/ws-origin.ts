import type { FastifyRequest } from 'fastify';

/** ws:// or wss:// plus the host the client used to reach us, so the CDP and BiDi URLs work from where it called. */
export function wsOrigin(req: FastifyRequest): string {
  return `${req.protocol === 'https' ? 'wss' : 'ws'}://${req.host}`;
}
