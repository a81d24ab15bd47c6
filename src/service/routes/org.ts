// /org/limits: the unified concurrency limit. `max_concurrent_sessions` counts on-demand sessions plus
// pool reservations; null (or 0, as on the hosted API) means no limit. `max_pooled_sessions` is the
// deprecated per-pool cap: accepted, stored and echoed, never enforced.
// Also the one entry point of the organisation's other groups (keys, projects, audit log, identity), so
// the app registers them all with one call.
import type { FastifyInstance } from 'fastify';
import type { OrgLimits } from '../../api/types.js';
import type { LimitsRepo } from '../store/limits-repo.js';
import { registerApiKeyRoutes, type ApiKeyRouteDeps } from './api-keys.js';
import { registerAuditRoutes, type AuditDeps } from './audit.js';
import { orgLimits, orgLimitsUpdateParams } from '../../api/schemas/org.js';
import { defaultEmptyBody } from './empty-body.js';
import { ok } from './responses.js';
import { registerIdentityRoutes } from './identity.js';
import { registerProjectRoutes, type ProjectRouteDeps } from './projects.js';

export interface OrgRouteDeps extends ApiKeyRouteDeps, ProjectRouteDeps, AuditDeps {
  limits: LimitsRepo;
}

const updateBody = orgLimitsUpdateParams;
const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

export function registerOrgRoutes(app: FastifyInstance, deps: OrgRouteDeps): void {
  app.get('/org/limits', { schema: { querystring: noQuery, response: ok("The organisation's limits", orgLimits) } }, async () => deps.limits.get());

  app.patch<{ Body: Partial<OrgLimits> }>(
    '/org/limits',
    { schema: { body: updateBody, response: ok("The organisation's limits as updated", orgLimits) }, preValidation: defaultEmptyBody },
    async (req) => {
      const { max_concurrent_sessions: concurrent, max_pooled_sessions: pooled } = req.body;
      const fields: Partial<OrgLimits> = {};
      // Lowering the limit below what runs now ends nothing; creates are refused until usage drops.
      if (concurrent !== undefined) fields.max_concurrent_sessions = concurrent === 0 ? null : concurrent;
      if (pooled !== undefined) fields.max_pooled_sessions = pooled;
      return deps.limits.set(fields);
    },
  );
  registerApiKeyRoutes(app, deps);
  registerProjectRoutes(app, deps);
  registerAuditRoutes(app, deps);
  registerIdentityRoutes(app, deps);
}
