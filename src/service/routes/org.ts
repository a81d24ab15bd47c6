// /org/limits: the unified concurrency limit. `max_concurrent_sessions` counts on-demand sessions plus
// pool reservations; null (or 0, as on the hosted API) means no limit. `max_pooled_sessions` is the
// deprecated per-pool cap: accepted, stored and echoed, never enforced.
import type { FastifyInstance } from 'fastify';
import type { OrgLimits } from '../../api/types.js';
import type { LimitsRepo } from '../store/limits-repo.js';
import { defaultEmptyBody } from './empty-body.js';

const limitValue = { type: ['integer', 'null'], minimum: 0, maximum: 1_000_000 } as const;

const updateBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_concurrent_sessions: limitValue,
    max_pooled_sessions: limitValue,
  },
} as const;

export function registerOrgRoutes(app: FastifyInstance, deps: { limits: LimitsRepo }): void {
  app.get('/org/limits', async () => deps.limits.get());

  app.patch<{ Body: Partial<OrgLimits> }>(
    '/org/limits',
    { schema: { body: updateBody }, preValidation: defaultEmptyBody },
    async (req) => {
      const { max_concurrent_sessions: concurrent, max_pooled_sessions: pooled } = req.body;
      const fields: Partial<OrgLimits> = {};
      // Lowering the limit below what runs now ends nothing; creates are refused until usage drops.
      if (concurrent !== undefined) fields.max_concurrent_sessions = concurrent === 0 ? null : concurrent;
      if (pooled !== undefined) fields.max_pooled_sessions = pooled;
      return deps.limits.set(fields);
    },
  );
}
