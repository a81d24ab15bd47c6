// GET /auth/context: who the request authenticated as (the API key), the key's own scope and the project
// the request acts in. Derived from the verified request only; no secret is in it.
import type { FastifyInstance } from 'fastify';
import { authContextInfo } from '../../api/schemas/org.js';
import type { AuthContextInfo } from '../../api/types.js';
import { ok } from './responses.js';
import type { ApiKeysRepo } from '../store/api-keys-repo.js';

export function registerIdentityRoutes(app: FastifyInstance, deps: { keys: ApiKeysRepo }): void {
  // Read once, on first use (registration is synchronous); a failed read is tried again by the next request.
  let orgId: Promise<string> | undefined;
  const organizationId = (): Promise<string> =>
    (orgId ??= deps.keys.organizationId().catch((err: unknown) => {
      orgId = undefined;
      throw err;
    }));
  const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;
  app.get('/auth/context', { schema: { querystring: noQuery, response: ok('Who the request authenticated as, and the project it acts in', authContextInfo) } }, async (req): Promise<AuthContextInfo> => ({
    authentication: { credential_id: req.auth.keyId, method: 'api_key', source: 'api_key' },
    authorization: {
      credential_scope: { project_id: req.auth.keyProjectId },
      effective_scope: { project_id: req.auth.projectId },
    },
    organization: { id: await organizationId() },
    principal: { id: req.auth.keyId, type: 'api_key' },
  }));
}
