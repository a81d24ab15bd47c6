// Builds the HTTP app (routes, auth, validation, the error mapper) without listening,
// so tests and the embedded runner can start it on any port.
import { Ajv } from 'ajv';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { installAuth } from './auth.js';
import { MAX_PARAM_LENGTH, ServiceError, answerClientError, frameworkError, noRoute, toErrorResponse } from './errors.js';
import { notFromReplica, type HostGuard } from './cluster/host-guard.js';
import { newId } from './ids.js';
import { installJsonBodies } from './json-body.js';
import { installOpenApi } from './openapi.js';
import { installStrictWire } from './strict-wire.js';
import { installUnreadBodyHandling } from './unread-body.js';
import pkg from '../../package.json' with { type: 'json' };
import type { ServiceContext } from './context.js';
import { registerAppRoutes } from './routes/apps.js';
import { registerAuthConnectionRoutes } from './routes/auth-connections.js';
import { registerSiteConfigRoutes } from './routes/site-configs.js';
import { registerConsoleRoutes } from './routes/console.js';
import { installAuditLog } from './routes/audit.js';
import { registerBrowserRoutes } from './routes/browsers.js';
import { registerBrowserExtensionRoutes } from './routes/browser-extensions.js';
import { registerBrowserKeepRoutes } from './routes/browser-keep.js';
import { registerCdpDiscoveryRoutes } from './routes/cdp-discovery.js';
import { cdpTokenToQuery } from './host/session/index.js';
import { registerComputerRoutes } from './routes/computer.js';
import { registerLiveViewRoutes } from './routes/live-view.js';
import { registerCurlRoutes } from './routes/curl.js';
import { registerCredentialProviderRoutes } from './routes/credential-providers.js';
import { registerCredentialRoutes } from './routes/credentials.js';
import { registerFsRoutes } from './routes/fs.js';
import { registerLogRoutes } from './routes/logs.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { registerPoolMemberRoutes } from './cluster/pool-member-routes.js';
import { registerOrgRoutes } from './routes/org.js';
import { registerPlaywrightRoutes } from './routes/playwright.js';
import { registerCodegenRoutes } from './routes/codegen.js';
import { registerPoolRoutes } from './routes/pools.js';
import { registerProcessRoutes } from './routes/process.js';
import { registerExtensionRoutes } from './routes/extensions.js';
import { registerProfileRoutes } from './routes/profiles.js';
import { registerProxyRoutes } from './routes/proxies.js';
import { registerReplayRoutes } from './routes/replays.js';
import { registerRunRoutes } from './routes/runs.js';
import { registerMonitorRoutes } from './routes/monitors.js';
import { installApiCallEvents, registerTelemetryRoutes } from './routes/telemetry.js';
import { compiledOnFirstUse } from './host/validator.js';
import { parseQuery } from './query-string.js';

export interface AppDeps extends ServiceContext {
  logLevel: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** Serve the hosted wire only: what the schemas mark as ours is hidden (strict-wire.ts). */
  strictWire: boolean;
  /** A cluster host: what it answers at all (its replicas, its own loopback), checked before anything else. */
  guard?: HostGuard;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const app = Fastify({
    logger:
      deps.logLevel === 'silent'
        ? false
        : {
            level: deps.logLevel,
            stream: process.stderr,
            // Headers are never logged; query strings are dropped because CDP URLs carry tokens.
            serializers: {
              req: (req: { method: string; url: string; id: string }) => ({
                method: req.method,
                url: req.url.split('?')[0],
                id: req.id,
              }),
            },
          },
    genReqId: () => `req_${newId(16)}`,
    // A cluster host is reached through a replica (the guard holds it to that), which adds the client's
    // address to X-Forwarded-For: one hop is trusted, so the audit log names the client, not the replica.
    trustProxy: deps.guard ? (_address: string, hop: number) => hop === 0 : false,
    // A CDP path may carry the session token (`/browsers/{id}/cdp/jwt/<token>/json/version`): it is moved into
    // the query before anything reads the URL, so logs, 404 messages and the audit log never show it.
    rewriteUrl: (req) => cdpTokenToQuery(req.url ?? '/'),
    requestIdHeader: false,
    routerOptions: {
      // deepObject queries (`tags[team]=a`) as the hosted SDK sends them.
      querystringParser: parseQuery,
      // Names may be 255 characters, percent-encoded up to three bytes each.
      maxParamLength: MAX_PARAM_LENGTH,
    },
    // The router's own refusals (a bad percent-encoding, an over-long segment) answer in our shape too.
    frameworkErrors: (err, _req, reply) => {
      const { status, body } = frameworkError(err);
      void (reply as unknown as FastifyReply).code(status).send(body);
    },
    // Errors before there is a request at all (headers too large, a malformed request line): Node would
    // answer in its own words and keep the socket; these answer in ours and close it.
    clientErrorHandler: (err, socket) => answerClientError(err, socket),
  });

  installJsonBodies(app);

  // Bodies are validated strictly (no type coercion); query strings and paths are text, so they coerce.
  // The schemas are ours and checked against JSON Schema's meta-schema by a test (route-schemas.test.ts):
  // checking them again at run time compiled the meta-schema first, ~35 ms of an embedded run's first request.
  const options = { allErrors: true, useDefaults: true, strict: false, validateSchema: false } as const;
  const bodyAjv = new Ajv({ ...options, coerceTypes: false });
  const textAjv = new Ajv({ ...options, coerceTypes: true });
  // Each route's validator is compiled on its first request: compiling every route's schemas up front took a
  // third of a second of each start, which the embedded service pays on every `bcs run`. Fastify reads a
  // failed validation's errors from the function. The fuzz test over every route's schema compiles them all.
  app.setValidatorCompiler(({ schema, httpPart }) => compiledOnFirstUse(() => (httpPart === 'body' ? bodyAjv : textAjv), schema as object));
  // Response schemas document the wire (GET /openapi.json); bodies are written as the handlers return them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // Before any route is registered: it hides routes of ours as they are added.
  if (deps.strictWire) installStrictWire(app);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  const { guard } = deps;
  if (guard) {
    app.addHook('onRequest', async (req) => {
      // The numbers only, for a Prometheus that scrapes each host: it still needs an org-wide key.
      if (req.method === 'GET' && req.routeOptions.url === '/metrics') return;
      if (!guard(req.headers, req.socket.remoteAddress)) throw new ServiceError(403, notFromReplica.code, notFromReplica.message);
    });
  }
  installUnreadBodyHandling(app);
  installAuth(app, deps);
  installAuditLog(app, deps);
  installApiCallEvents(app, deps);

  app.setErrorHandler((err, req, reply) => {
    const { status, body, headers } = toErrorResponse(err);
    if (status >= 500) req.log.error({ err }, 'request failed');
    if (headers) reply.headers(headers);
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler(async (req) => {
    throw noRoute(req.method, req.url);
  });

  installOpenApi(app, { version: pkg.version });
  // In a plugin of their own, so that they load after the OpenAPI generator that collects them.
  void app.register(async (scope) => {
    for (const register of RESOURCE_GROUPS) register(scope, deps);
  });
  return app;
}

/** The routes of each resource group, given the service's parts; a new group is one line here. */
const RESOURCE_GROUPS: ((app: FastifyInstance, ctx: ServiceContext) => void)[] = [
  registerBrowserRoutes,
  registerBrowserExtensionRoutes,
  registerBrowserKeepRoutes,
  registerCdpDiscoveryRoutes,
  registerLiveViewRoutes,
  registerCurlRoutes,
  registerPoolRoutes,
  registerOrgRoutes,
  registerComputerRoutes,
  registerProcessRoutes,
  registerFsRoutes,
  registerPlaywrightRoutes,
  registerCodegenRoutes,
  registerReplayRoutes,
  registerLogRoutes,
  registerTelemetryRoutes,
  registerProxyRoutes,
  registerProfileRoutes,
  registerExtensionRoutes,
  registerAppRoutes,
  registerCredentialRoutes,
  registerCredentialProviderRoutes,
  registerAuthConnectionRoutes,
  registerSiteConfigRoutes,
  registerRunRoutes,
  registerMonitorRoutes,
  registerConsoleRoutes,
  registerMetricsRoutes,
  (app, ctx) => ctx.poolMemberRoutes && registerPoolMemberRoutes(app, ctx.poolMemberRoutes),
];


