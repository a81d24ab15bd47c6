// Bearer API keys on every route. Keys are looked up by hash; the request carries who it is.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from './errors.js';
import type { ApiKeyRecord, ApiKeysRepo } from './store/api-keys-repo.js';

export interface AuthContext {
  keyId: string;
  /** The project the request acts in; null is the organisation's default scope. */
  projectId: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

export function installAuth(app: FastifyInstance, keys: ApiKeysRepo, now: () => Date): void {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw unauthorized('missing API key: send Authorization: Bearer <key>');
    const record: ApiKeyRecord | undefined = keys.authenticate(token, now());
    if (!record) throw unauthorized('invalid, expired or deleted API key');
    req.auth = { keyId: record.id, projectId: record.project_id };
  });
}
