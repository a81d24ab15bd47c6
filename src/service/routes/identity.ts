// GET /auth/context: who the request authenticated as (the API key), the key's own scope and the project
// the request acts in. Derived from the verified request only; no secret is in it.
import type { FastifyInstance } from 'fastify';
import { authContextInfo } from '../../api/schemas/org.js';
import type { AuthContextInfo } from '../../api/types.js';
import { ok } from './responses.js';
import type { ApiKeysRepo } from '../store/api-keys-repo.js';

export function registerIdentityRoutes(app: FastifyInstance, deps: { keys: ApiKeysRepo }): void {
  const orgId = deps.keys.organizationId();
  const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;
  app.get('/auth/context', { schema: { querystring: noQuery, response: ok('Who the request authenticated as, and the project it acts in', authContextInfo) } }, async (req): Promise<AuthContextInfo> => ({
    authentication: { credential_id: req.auth.keyId, method: 'api_key', source: 'api_key' },
    authorization: {
      credential_scope: { project_id: req.auth.keyProjectId },
      effective_scope: { project_id: req.auth.projectId },
    },
    organization: { id: orgId },
    principal: { id: req.auth.keyId, type: 'api_key' },
  }));
}
