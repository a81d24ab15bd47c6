// Bearer API keys on every route. Keys are looked up by hash; the request carries who it is and which
// project it acts in: the key's own project, or for an org-wide key the one `X-Kernel-Project-Id` picks.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError, forbidden, notFound, unauthorized } from './errors.js';
import type { ApiKeysRepo } from './store/api-keys-repo.js';
import type { ProjectsRepo } from './store/projects-repo.js';

export interface AuthContext {
  keyId: string;
  /** The key's own scope: null for an org-wide key. */
  keyProjectId: string | null;
  /** The project the request acts in; null is the organisation's default scope. */
  projectId: string | null;
  /** The key is an app worker's (host/apps/keys.ts): it never administers the organisation. */
  appCode?: boolean;
}

export interface RouteEntry {
  method: string;
  url: string;
  /** The route's JSON Schemas (body, querystring, params), so tests can build valid requests for any route. */
  schema?: { body?: unknown; querystring?: unknown; params?: unknown };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Unset (null) on a request authorised by a session token instead of a key (`sessionToken` routes). */
    auth: AuthContext;
  }
  interface FastifyContextConfig {
    /**
     * The route also takes a browser session's CDP token (`jwt` in the query) and checks it itself; a
     * request without one needs an API key as everywhere else.
     */
    sessionToken?: boolean;
  }
  interface FastifyInstance {
    /** Every route registered after auth was installed (all of them), for tests that must cover each one. */
    routeTable: RouteEntry[];
  }
}

export interface AuthDeps {
  keys: ApiKeysRepo;
  /** Short-lived keys of app code (host/apps/keys.ts): project-scoped as they say, never org admins. */
  appKeys?: { authenticate(key: string): { id: string; projectId: string | null } | undefined };
  projects: ProjectsRepo;
  now: () => Date;
  /** When false, project operations and the project header answer 404 `projects_disabled`. */
  projectsEnabled: boolean;
}

export const PROJECT_HEADER = 'x-kernel-project-id';

/** Organisation administration: keys, projects, org limits, the audit log, and the org-wide metrics. Org-wide keys only. */
const ORG_ADMIN = [/^\/org\//, /^\/projects(\/|$)/, /^\/audit-logs(\/|$)/, /^\/metrics$/];

const isOrgAdmin = (url: string | undefined) => url !== undefined && ORG_ADMIN.some((re) => re.test(url));

/** Methods an archived project still answers: reads, and deletes so that it can be emptied. */
const ARCHIVED_ALLOWS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

export const projectsDisabled = () => new ServiceError(404, 'projects_disabled', 'projects are disabled for this organization');

export function installAuth(app: FastifyInstance, deps: AuthDeps): void {
  app.decorateRequest('auth', null as unknown as AuthContext);
  const routes: RouteEntry[] = [];
  app.decorate('routeTable', routes);

  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, schema: route.schema as RouteEntry['schema'] });
    if (isOrgAdmin(route.url)) {
      route.onRequest = [...[route.onRequest ?? []].flat(), requireOrgKey];
    }
  });

  app.addHook('onRequest', async (req: FastifyRequest) => {
    // A page opened by a link (a login flow's hosted page) checks the token in its URL itself.
    if (req.routeOptions.config?.selfAuthenticated) return;
    if (req.routeOptions.config?.sessionToken && (req.query as Record<string, unknown> | undefined)?.jwt !== undefined) return;
    const token = bearerToken(req.headers.authorization);
    if (!token) throw unauthorized('missing API key: send Authorization: Bearer <key>');
    const appKey = deps.appKeys?.authenticate(token);
    const record = appKey ? { id: appKey.id, project_id: appKey.projectId } : await deps.keys.authenticate(token, deps.now());
    if (!record) throw unauthorized('invalid, expired or deleted API key');
    // Set before the project is checked, so a refused project choice is still attributed to the key.
    req.auth = { keyId: record.id, keyProjectId: record.project_id, projectId: record.project_id, appCode: appKey !== undefined };
    // Administration acts on the organisation, not in a project: there the header (which SDK clients send
    // on every call once configured) is ignored, so an archived or deleted project cannot lock an admin out.
    if (isOrgAdmin(req.routeOptions.url)) return;
    const header = req.headers[PROJECT_HEADER];
    const chosen = (Array.isArray(header) ? header[0] : header)?.trim();
    if (chosen) req.auth.projectId = await selectProject(deps, req.auth, chosen);
    if (req.auth.projectId !== null && !ARCHIVED_ALLOWS.has(req.method)) {
      const project = await deps.projects.get(req.auth.projectId);
      if (project?.status === 'archived') {
        throw new ServiceError(
          409,
          'project_archived',
          `project '${project.name}' is archived: it can be read and emptied, not changed; ` +
            `reactivate it with PATCH /org/projects/${project.id} {"status":"active"}`,
        );
      }
    }
  });
}

/** The project `chosen` (an id or a name) names, when this key may act in it. */
async function selectProject(deps: AuthDeps, auth: AuthContext, chosen: string): Promise<string> {
  if (!deps.projectsEnabled) throw projectsDisabled();
  const project = await deps.projects.find(chosen);
  if (auth.keyProjectId !== null) {
    // A scoped key may repeat its own project, nothing else; which other projects exist is not its business.
    if (project?.id === auth.keyProjectId) return project.id;
    throw forbidden(`this API key is scoped to project '${auth.keyProjectId}'; it cannot act in project '${chosen}'`);
  }
  if (!project) throw notFound('project', chosen);
  return project.id;
}

/** Route hook of organisation administration. */
async function requireOrgKey(req: FastifyRequest): Promise<void> {
  if (req.auth.appCode) throw forbidden(`app code cannot call ${req.method} ${req.routeOptions.url}: organization administration needs an organization API key`);
  if (req.auth.keyProjectId !== null) {
    throw forbidden(`this API key is scoped to project '${req.auth.keyProjectId}'; ${req.method} ${req.routeOptions.url} needs an organization-wide key`);
  }
}
