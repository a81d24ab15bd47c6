// /_cluster/pool-members: what a cluster's leader asks of the host that runs one of a pool's browsers
// (host/pools/members.ts does it; cluster/remote-pool-members.ts asks). Only the cluster key opens these,
// never an API key or loopback alone: they act on any project's browsers. Hidden from the API's document.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import type { PoolMembers } from '../host/pools/index.js';
import type { PoolsRepo } from '../store/pools-repo.js';
import { ServiceError } from '../errors.js';
import { notFromReplica } from './host-guard.js';
import type { ClusterKey } from './cluster-key.js';

export const POOL_MEMBERS_PATH = '/_cluster/pool-members';

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } }, additionalProperties: false } as const;
const launchBody = { type: 'object', required: ['pool_id'], properties: { pool_id: { type: 'string', minLength: 1, maxLength: 64 } }, additionalProperties: false } as const;
const leaseBody = {
  type: 'object',
  required: ['timeout_seconds'],
  properties: {
    name: { type: 'string' },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
    start_url: { type: 'string' },
    timeout_seconds: { type: 'integer', minimum: 1 },
    telemetry: { type: ['object', 'null'] },
  },
  additionalProperties: false,
} as const;
const releaseBody = {
  type: 'object',
  required: ['keep', 'label', 'why'],
  properties: { keep: { type: 'boolean' }, label: { type: 'string' }, why: { type: 'string' } },
  additionalProperties: false,
} as const;
const endBody = { type: 'object', required: ['why'], properties: { why: { type: 'string' } }, additionalProperties: false } as const;

type IdRoute = { Params: FromSchema<typeof idParams> };

export const memberGone = { code: 'pool_member_gone', message: 'that pool browser no longer runs on this host' } as const;

export function registerPoolMemberRoutes(app: FastifyInstance, deps: { members: PoolMembers; pools: PoolsRepo; key: ClusterKey }): void {
  const { members } = deps;
  const onRequest = async (req: FastifyRequest) => {
    if (!deps.key.carriedBy(req.headers)) throw new ServiceError(403, notFromReplica.code, notFromReplica.message);
  };
  const opts = <S extends object>(schema: S) => ({ onRequest, config: { selfAuthenticated: true }, schema: { ...schema, hide: true } });

  app.get(POOL_MEMBERS_PATH, opts({}), async () => members.list());

  app.post<{ Body: FromSchema<typeof launchBody> }>(POOL_MEMBERS_PATH, opts({ body: launchBody }), async (req, reply) => {
    const pool = await deps.pools.get(req.body.pool_id);
    if (!pool) throw new ServiceError(404, 'not_found', `browser pool '${req.body.pool_id}' not found`);
    const id = await members.launch(pool);
    // The leader that asked is gone (it died or stopped): nobody would ever lease this browser.
    if (req.raw.socket.destroyed || reply.raw.destroyed) {
      await members.end(id, 'the pool that launched it lost its leader while it started');
      throw new ServiceError(409, 'leader_gone', 'the leader that asked for this browser is gone');
    }
    return { id };
  });

  app.post<IdRoute & { Body: FromSchema<typeof leaseBody> }>(`${POOL_MEMBERS_PATH}/:id/lease`, opts({ params: idParams, body: leaseBody }), async (req) => {
    const { telemetry, ...terms } = req.body;
    const row = await members.lease(req.params.id, { ...terms, ...(telemetry ? { telemetry } : {}) } as Parameters<PoolMembers['lease']>[1]);
    if (!row) throw new ServiceError(404, memberGone.code, memberGone.message);
    return row;
  });

  // Two lines: one once the holder is cut off (the leader answers its client then), one when the browser
  // is reset or ended (the leader's pool takes it back or refills).
  app.post<IdRoute & { Body: FromSchema<typeof releaseBody> }>(`${POOL_MEMBERS_PATH}/:id/release`, opts({ params: idParams, body: releaseBody }), async (req, reply) => {
    const ticket = await members.release(req.params.id, req.body.keep, req.body.label, req.body.why);
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' });
    reply.raw.write(`${JSON.stringify({ released: true })}\n`);
    const state = await ticket.after.catch(() => 'ended' as const);
    reply.raw.end(`${JSON.stringify({ state })}\n`);
  });

  app.post<IdRoute & { Body: FromSchema<typeof endBody> }>(`${POOL_MEMBERS_PATH}/:id/end`, opts({ params: idParams, body: endBody }), async (req, reply) => {
    await members.end(req.params.id, req.body.why);
    return reply.code(204).send();
  });
}
