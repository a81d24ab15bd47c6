// /org/limits: the unified concurrency limit. `max_concurrent_sessions` counts on-demand sessions plus
// pool reservations; 0 (null in a request, too) means no limit. `default_project_max_concurrent_sessions`
// caps every project that has no cap of its own. `max_pooled_sessions` is the deprecated per-pool cap:
// accepted, stored and echoed, never enforced.
// Also the one entry point of the organisation's other groups (keys, projects, audit log, identity), so
// the app registers them all with one call.
import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import type { OrgLimits } from '../../api/types.js';
import { invalidField } from '../errors.js';
import type { LimitsRepo, StoredOrgLimits } from '../store/limits-repo.js';
import { registerApiKeyRoutes, type ApiKeyRouteDeps } from './api-keys.js';
import { registerAuditRoutes, type AuditDeps } from './audit.js';
import { registerAuditExportRoute } from './audit-export.js';
import { orgLimits, orgLimitsUpdateParams } from '../../api/schemas/org.js';
import { defaultEmptyBody } from './empty-body.js';
import { ok } from './responses.js';
import { registerIdentityRoutes } from './identity.js';
import { registerProjectRoutes, type ProjectRouteDeps } from './projects.js';

export interface OrgRouteDeps extends ApiKeyRouteDeps, Omit<ProjectRouteDeps, 'keys'>, AuditDeps {
  limits: LimitsRepo;
}

const updateBody = orgLimitsUpdateParams;
type UpdateBody = FromSchema<typeof updateBody>;
const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

export function registerOrgRoutes(app: FastifyInstance, deps: OrgRouteDeps): void {
  app.get('/org/limits', { schema: { querystring: noQuery, response: ok("The organisation's limits", orgLimits) } }, async () => present(await deps.limits.get()));

  app.patch<{ Body: UpdateBody }>(
    '/org/limits',
    { schema: { body: updateBody, response: ok("The organisation's limits as updated", orgLimits) }, preValidation: defaultEmptyBody },
    async (req) => {
      const { max_concurrent_sessions: concurrent, max_pooled_sessions: pooled, default_project_max_concurrent_sessions: projectDefault } = req.body;
      const fields: Partial<StoredOrgLimits> = {};
      // 0 removes a cap, as null does. Lowering the limit below what runs now ends nothing; creates are
      // refused until usage drops.
      if (concurrent !== undefined) fields.max_concurrent_sessions = concurrent || null;
      if (pooled !== undefined) fields.max_pooled_sessions = pooled;
      if (projectDefault !== undefined) fields.default_project_max_concurrent_sessions = projectDefault || null;
      // Checked against the limits as they are when written (one transaction), not as read earlier.
      return present(await deps.limits.set(fields, (next) => checkDefaultFits(next, projectDefault !== undefined)));
    },
  );
  registerApiKeyRoutes(app, deps);
  registerProjectRoutes(app, deps);
  registerAuditRoutes(app, deps);
  registerAuditExportRoute(app, deps);
  registerIdentityRoutes(app, deps);
}

/**
 * The default per-project cap may not exceed the organisation's limit (as on the hosted API); the field
 * this request changed is the one named, so lowering the limit under a default says so too.
 */
function checkDefaultFits(next: StoredOrgLimits, defaultChanged: boolean): void {
  const { max_concurrent_sessions: max, default_project_max_concurrent_sessions: projectDefault } = next;
  if (max === null || projectDefault === null || projectDefault <= max) return;
  if (defaultChanged) {
    throw invalidField('body.default_project_max_concurrent_sessions', `is ${projectDefault}, above the organization's max_concurrent_sessions ${max}`);
  }
  throw invalidField(
    'body.max_concurrent_sessions',
    `is ${max}, below default_project_max_concurrent_sessions ${projectDefault}; lower or remove the default first, or in the same request`,
  );
}

function present(limits: StoredOrgLimits): OrgLimits {
  return { ...limits, max_concurrent_sessions: limits.max_concurrent_sessions ?? 0 };
}
