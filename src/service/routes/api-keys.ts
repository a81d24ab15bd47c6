// /org/api_keys: org-wide and project-scoped keys. The plaintext is returned once, by create and rotate;
// afterwards a key is only ever shown masked. Deletes are soft; rotation leaves the old key working for a
// grace period so callers can swap over. Only org-wide keys reach these routes (auth.ts).
import type { FromSchema } from 'json-schema-to-ts';
import { apiKey, apiKeyCreateParams, apiKeyListQuery, apiKeyRotateParams, apiKeyUpdateParams, createdApiKey } from '../../api/schemas/org.js';
import { noContent, ok, page } from './responses.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKey, ApiKeyCreateParams, ApiKeyRotateParams, CreatedApiKey } from '../../api/types.js';
import { ServiceError, notFound } from '../errors.js';
import { newApiKey } from '../ids.js';
import { projectsDisabled } from '../auth.js';
import type { ApiKeyRecord, ApiKeysRepo, ApiKeyView, Creator } from '../store/api-keys-repo.js';
import type { ProjectsRepo } from '../store/projects-repo.js';
import { defaultEmptyBody } from './empty-body.js';
import { setPageHeaders } from './offset-paging.js';
import { idParams } from './params.js';

export interface ApiKeyRouteDeps {
  keys: ApiKeysRepo;
  projects: ProjectsRepo;
  now: () => Date;
  projectsEnabled: boolean;
  /** How long a rotated key keeps working when the request does not say (days). */
  keyRotationGraceDays: number;
}

const DAY_MS = 24 * 3600 * 1000;
/** Who created the bootstrap key (`--api-key` or the generated one), and keys from before creators were kept. */
export const BOOTSTRAP_CREATOR: Creator = { id: 'service', name: 'bcs service (bootstrap key)' };

const createBody = apiKeyCreateParams;
const updateBody = apiKeyUpdateParams;
const rotateBody = apiKeyRotateParams;
const listQuery = apiKeyListQuery;
const retrieveQuery = { type: 'object', additionalProperties: false, properties: { include_deleted: { type: 'boolean' } } } as const;

type ListQuery = FromSchema<typeof listQuery>;
type IdRoute = { Params: { id: string } };

export function registerApiKeyRoutes(app: FastifyInstance, deps: ApiKeyRouteDeps): void {
  const { keys } = deps;
  /** A key of the org by id; deleted ones only when asked (404 otherwise, as on the hosted API). */
  const find = async (id: string, includeDeleted = false): Promise<ApiKeyView> => {
    const row = await keys.get(id);
    if (!row || (row.deleted_at && !includeDeleted)) throw notFound('API key', id);
    return row;
  };
  const creatorOf = async (req: FastifyRequest): Promise<Creator> => {
    const me = await keys.get(req.auth.keyId);
    return { id: req.auth.keyId, name: me?.name ?? req.auth.keyId };
  };
  /** The plaintext goes out in this one answer and nowhere else (not stored, logged or audited). */
  const created = async (record: ApiKeyRecord, key: string): Promise<CreatedApiKey> => ({ ...present((await keys.get(record.id))!), key });

  app.post<{ Body: ApiKeyCreateParams }>('/org/api_keys', { schema: { body: createBody, response: ok('The new key, with the key itself shown this once', createdApiKey) } }, async (req) => {
    const now = deps.now();
    let projectId: string | null = null;
    if (req.body.project_id != null) {
      if (!deps.projectsEnabled) throw projectsDisabled();
      // A name is accepted where an id is expected, as everywhere projects are named; stored is the id.
      const project = await deps.projects.find(req.body.project_id);
      if (!project) throw notFound('project', req.body.project_id);
      projectId = project.id;
    }
    const key = newApiKey();
    const record = await keys.add(key, {
      name: req.body.name,
      projectId,
      expiresAt: expiryAfter(now, req.body.days_to_expire ?? null),
      now,
      createdBy: await creatorOf(req),
    });
    return created(record, key);
  });

  app.get<{ Querystring: ListQuery }>('/org/api_keys', { schema: { querystring: listQuery, response: page('API keys', apiKey) } }, async (req, reply) => {
    const q = req.query;
    const page = await keys.list({
      // `include_deleted` is the deprecated spelling of status=all.
      status: q.status ?? (q.include_deleted ? 'all' : 'active'),
      name: q.name,
      query: q.query,
      sortBy: q.sort_by,
      sortDirection: q.sort_direction,
      offset: q.offset,
      limit: q.limit,
    });
    setPageHeaders(reply, q.offset, page.rows.length, page.hasMore);
    return page.rows.map(present);
  });

  app.get<IdRoute & { Querystring: { include_deleted?: boolean } }>(
    '/org/api_keys/:id',
    { schema: { params: idParams, querystring: retrieveQuery, response: ok('The key, masked', apiKey) } },
    async (req) => present(await find(req.params.id, req.query.include_deleted ?? false)),
  );

  app.patch<IdRoute & { Body: { name: string } }>('/org/api_keys/:id', { schema: { params: idParams, body: updateBody, response: ok('The key as renamed', apiKey) } }, async (req) => {
    const row = await find(req.params.id);
    await keys.rename(row.id, req.body.name);
    return present(await find(row.id));
  });

  app.delete<IdRoute>('/org/api_keys/:id', { schema: { params: idParams, response: noContent('Deleted: the key no longer authenticates') } }, async (req, reply) => {
    const row = await find(req.params.id);
    if (row.id === req.auth.keyId) {
      throw new ServiceError(400, 'cannot_delete_current_key', 'a key cannot delete itself; delete it with a different key');
    }
    await keys.softDelete(row.id, deps.now());
    return reply.code(204).send();
  });

  app.post<IdRoute & { Body: ApiKeyRotateParams }>(
    '/org/api_keys/:id/rotate',
    { schema: { params: idParams, body: rotateBody, response: ok('The new key replacing it, shown this once', createdApiKey) }, preValidation: defaultEmptyBody },
    async (req) => {
      const old = await find(req.params.id);
      const now = deps.now();
      // Omitted: the rotated key's own lifetime again (or never, if it had none); null: never.
      const lifetimeDays =
        req.body.days_to_expire !== undefined ? req.body.days_to_expire : old.expires_at === null ? null : lifetimeOf(old);
      const graceDays = req.body.expire_in_days ?? deps.keyRotationGraceDays;
      const key = newApiKey();
      const record = await keys.rotate(old.id, key, {
        name: old.name,
        projectId: old.project_id,
        expiresAt: lifetimeDays === null ? null : new Date(now.getTime() + lifetimeDays * DAY_MS).toISOString(),
        now,
        createdBy: await creatorOf(req),
        graceUntil: new Date(now.getTime() + graceDays * DAY_MS),
      });
      return created(record, key);
    },
  );
}

function expiryAfter(now: Date, days: number | null): string | null {
  return days === null ? null : new Date(now.getTime() + days * DAY_MS).toISOString();
}

/** A key's lifetime in days (fractional: a rotation keeps it exactly). */
function lifetimeOf(row: ApiKeyRecord): number {
  return (Date.parse(row.expires_at!) - Date.parse(row.created_at)) / DAY_MS;
}

export function present(row: ApiKeyView): ApiKey {
  return {
    id: row.id,
    name: row.name,
    masked_key: row.masked_key,
    created_at: row.created_at,
    created_by: row.created_by_id
      ? { id: row.created_by_id, email: '', name: row.created_by_name }
      : { id: BOOTSTRAP_CREATOR.id, email: '', name: BOOTSTRAP_CREATOR.name },
    expires_at: row.expires_at,
    deleted_at: row.deleted_at,
    project_id: row.project_id,
    project_name: row.project_name,
  };
}
