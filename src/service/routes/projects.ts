// /org/projects: resource isolation inside the organisation. Create, list, retrieve (by id or name),
// rename or archive, soft-delete when empty, and per-project limits. The deprecated PATCH /projects/{id}
// answers with Deprecation and Sunset headers until its removal date, 410 after it.
// Only org-wide keys reach these routes (auth.ts); with projects disabled they answer 404 projects_disabled.
import type { FromSchema } from 'json-schema-to-ts';
import { project, projectCreateParams, projectLimits, projectLimitsUpdateParams, projectUpdateParams } from '../../api/schemas/org.js';
import { noContent, ok, page } from './responses.js';
import type { FastifyInstance } from 'fastify';
import type { Project, ProjectLimits } from '../../api/types.js';
import { projectsDisabled } from '../auth.js';
import { ServiceError, conflict, invalidField, notFound } from '../errors.js';
import type { ApiKeysRepo } from '../store/api-keys-repo.js';
import type { LimitsRepo, StoredProjectLimits } from '../store/limits-repo.js';
import { NameTakenError, type ProjectRow, type ProjectsRepo } from '../store/projects-repo.js';
import { defaultEmptyBody } from './empty-body.js';
import { setPageHeaders } from './offset-paging.js';
import { idOrNameParams as idParams, namedListQuery as listQuery } from './params.js';

export interface ProjectRouteDeps {
  projects: ProjectsRepo;
  /** A project's delete deletes its keys in the store: what authentication kept of them goes too. */
  keys: Pick<ApiKeysRepo, 'forget'>;
  limits: LimitsRepo;
  now: () => Date;
  projectsEnabled: boolean;
}

/** The old route's dates, as the hosted API announced them (SDK 0.57.0 changelog and reference §4). */
const DEPRECATED_AT = Date.UTC(2026, 4, 26);
export const LEGACY_PATCH_REMOVED_AT = Date.UTC(2026, 10, 24);

const createBody = projectCreateParams;
const updateBody = projectUpdateParams;
const limitsBody = projectLimitsUpdateParams;
const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

type IdRoute = { Params: { id_or_name: string } };
type UpdateBody = FromSchema<typeof updateBody>;
type LimitsUpdate = FromSchema<typeof limitsBody>;

export function registerProjectRoutes(app: FastifyInstance, deps: ProjectRouteDeps): void {
  const { projects } = deps;
  const onRequest = async () => {
    if (!deps.projectsEnabled) throw projectsDisabled();
  };
  const find = async (idOrName: string): Promise<ProjectRow> => {
    const row = await projects.find(idOrName);
    if (!row) throw notFound('project', idOrName);
    return row;
  };
  const update = async (row: ProjectRow, body: UpdateBody): Promise<Project> => present(await named(projects.update(row, body, deps.now())));

  app.post<{ Body: { name: string } }>('/org/projects', { onRequest, schema: { body: createBody, response: ok('The new project', project) } }, async (req) =>
    present(await named(projects.create(req.body.name, deps.now()))),
  );

  app.get<{ Querystring: { offset: number; limit: number; name?: string; query?: string } }>(
    '/org/projects',
    { onRequest, schema: { querystring: listQuery, response: page('Projects', project) } },
    async (req, reply) => {
      const q = req.query;
      const page = await projects.list(q);
      setPageHeaders(reply, q.offset, page.rows.length, page.hasMore);
      return page.rows.map(present);
    },
  );

  app.get<IdRoute>('/org/projects/:id_or_name', { onRequest, schema: { params: idParams, querystring: noQuery, response: ok('The project', project) } }, async (req) =>
    present(await find(req.params.id_or_name)),
  );

  app.patch<IdRoute & { Body: UpdateBody }>(
    '/org/projects/:id_or_name',
    { onRequest, schema: { params: idParams, body: updateBody, response: ok('The project as updated', project) }, preValidation: defaultEmptyBody },
    async (req) => update(await find(req.params.id_or_name), req.body),
  );

  app.delete<IdRoute>('/org/projects/:id_or_name', { onRequest, schema: { params: idParams, response: noContent('Deleted') } }, async (req, reply) => {
    const row = await find(req.params.id_or_name);
    const left = await projects.softDelete(row.id, deps.now()).finally(() => deps.keys.forget((key) => key.project_id === row.id));
    if (left.length) {
      const what = left.map((r) => `${r.count} in ${r.table}`).join(', ');
      throw conflict(`project '${row.name}' is not empty (${what}); delete its resources first`);
    }
    await deps.limits.dropProject(row.id);
    return reply.code(204).send();
  });

  app.get<IdRoute>('/org/projects/:id_or_name/limits', { onRequest, schema: { params: idParams, querystring: noQuery, response: ok("The project's limits", projectLimits) } }, async (req) =>
    presentLimits(await deps.limits.project((await find(req.params.id_or_name)).id)),
  );

  app.patch<IdRoute & { Body: LimitsUpdate }>(
    '/org/projects/:id_or_name/limits',
    { onRequest, schema: { params: idParams, body: limitsBody, response: ok("The project's limits as updated", projectLimits) }, preValidation: defaultEmptyBody },
    async (req) => {
      const row = await find(req.params.id_or_name);
      const { max_concurrent_sessions: sessions, max_concurrent_invocations: invocations, max_pooled_sessions: pooled } = req.body;
      if (pooled !== undefined && pooled !== null) {
        throw invalidField('body.max_pooled_sessions', 'is deprecated: pooled browsers count toward max_concurrent_sessions; set that instead');
      }
      const fields: Partial<StoredProjectLimits> = {};
      // 0 removes a cap, as null does. Lowering it below current use ends nothing; creates wait for room.
      if (sessions !== undefined) fields.max_concurrent_sessions = sessions || null;
      if (invocations !== undefined) fields.max_concurrent_invocations = invocations || null;
      return presentLimits(await deps.limits.setProject(row.id, fields));
    },
  );

  // The deprecated spelling. Removed on its sunset date; until then it is PATCH /org/projects/{id_or_name}.
  app.patch<IdRoute & { Body: UpdateBody }>(
    '/projects/:id_or_name',
    {
      onRequest: [legacyRemoved(deps.now), onRequest],
      schema: { params: idParams, body: updateBody, response: ok('The project as updated (deprecated: use PATCH /org/projects/{id_or_name})', project) },
      preValidation: defaultEmptyBody,
    },
    async (req, reply) => {
      const row = await find(req.params.id_or_name);
      reply.header('Deprecation', `@${DEPRECATED_AT / 1000}`);
      reply.header('Sunset', new Date(LEGACY_PATCH_REMOVED_AT).toUTCString());
      reply.header('Link', `</org/projects/${encodeURIComponent(row.id)}>; rel="successor-version"`);
      return update(row, req.body);
    },
  );
}

/** Answers 410 once the route's removal date has passed (by the service's clock, so tests can move it). */
function legacyRemoved(now: () => Date) {
  return async () => {
    if (now().getTime() < LEGACY_PATCH_REMOVED_AT) return;
    throw new ServiceError(
      410,
      'gone',
      `PATCH /projects/{id_or_name} was removed on ${new Date(LEGACY_PATCH_REMOVED_AT).toISOString().slice(0, 10)}; ` +
        'use PATCH /org/projects/{id_or_name}',
      undefined,
      { link: '</org/projects/{id_or_name}>; rel="successor-version"' },
    );
  };
}

/** Awaits a write that may take a live name, answering 409 when it is taken. */
async function named(write: Promise<ProjectRow>): Promise<ProjectRow> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof NameTakenError) throw conflict(err.message);
    throw err;
  }
}

function present(row: ProjectRow): Project {
  return { id: row.id, name: row.name, status: row.status, created_at: row.created_at, updated_at: row.updated_at };
}

function presentLimits(limits: StoredProjectLimits): ProjectLimits {
  return { ...limits, max_pooled_sessions: null };
}
