// The web console (src/console): one static page and its script and stylesheet, built by runner/build.mjs.
// None of it carries data, so it is served without a key (`selfAuthenticated`); the page asks for the key
// and sends it on each API call. `/live/{id}?token=T` is the same page showing a session's live view alone,
// with the live-view token in the URL as its credential (checked by the live socket, not here).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { extensionRoute } from '../../api/schemas/common.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { content } from './responses.js';

/** Where the build writes the bundle, relative to the project root and to dist/ alike. */
const BUNDLE_DIR = join('src', 'console', 'generated');

interface Asset {
  body: Buffer | string;
  type: string;
  etag: string;
}

export interface ConsoleFiles {
  script: Asset;
  style: Asset;
}

/**
 * The bundle nearest this module: from source (src/service/routes/) that is the project's, from dist/ (where
 * the service is split into chunks at different depths) the copy in dist/. Looked for upwards, so either
 * layout finds its own first.
 */
export function findConsoleBundle(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from, i = 0; i < 6; i++, dir = dirname(dir)) {
    const candidate = join(dir, BUNDLE_DIR);
    if (existsSync(join(candidate, 'console.js'))) return candidate;
  }
  return undefined;
}

export function loadConsoleFiles(dir: string): ConsoleFiles {
  const asset = (file: string, type: string): Asset => {
    const body = readFileSync(join(dir, file));
    return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
  };
  return { script: asset('console.js', 'text/javascript; charset=utf-8'), style: asset('console.css', 'text/css; charset=utf-8') };
}

const SHELL = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>bcs console</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/console/app.css"><script defer src="/console/app.js"></script></head>
<body><div id="root"></div><noscript>The console needs JavaScript.</noscript></body></html>
`;
const shellAsset: Asset = { body: SHELL, type: 'text/html; charset=utf-8', etag: `"${createHash('sha256').update(SHELL).digest('base64url').slice(0, 22)}"` };

const liveParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 255 } } } as const;
const liveQuery = { type: 'object', additionalProperties: false, properties: { token: { type: 'string', minLength: 1, maxLength: 1024 } } } as const;
const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

/** A Host header fit to name in a policy: a name or address and a port, nothing that could add a directive. */
const PLAIN_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * Only this origin's files run; the API, its event streams and the live socket are the only connections;
 * videos and downloads come from blob: URLs the page made. `'self'` covers ws: in current browsers; the
 * socket's origin is named as well for the ones that read CSP level 2.
 */
export function contentSecurityPolicy(host: string | undefined): string {
  const sockets = host && PLAIN_HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    `connect-src 'self'${sockets}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function registerConsoleRoutes(app: FastifyInstance, _ctx: ServiceContext, bundleDir = findConsoleBundle()): void {
  let files: ConsoleFiles | undefined;
  // Read on first use: a service that never serves the console never reads it.
  const bundle = (): ConsoleFiles => {
    if (!bundleDir) throw new ServiceError(503, 'console_not_built', 'the console is not built: run `npm run build` (node runner/build.mjs)');
    files ??= loadConsoleFiles(bundleDir);
    return files;
  };
  const config = { selfAuthenticated: true };
  const page = content('The console: a page that asks for an API key and calls this API with it', 'text/html');
  // Fixed names, so no long caching: the ETag makes each revalidation a 304 until the build changes.
  const send = (req: FastifyRequest, reply: FastifyReply, asset: Asset, cache = 'no-cache') => {
    reply
      .header('content-security-policy', contentSecurityPolicy(req.headers.host))
      .header('x-content-type-options', 'nosniff')
      // A live view's URL carries its token: no other site may see it as a referrer.
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', cache)
      .header('etag', asset.etag);
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  };

  app.get('/', { config, schema: { ...extensionRoute, querystring: noQuery, response: page } }, async (req, reply) => send(req, reply, shellAsset));
  app.get<{ Params: { id: string }; Querystring: { token?: string } }>(
    '/live/:id',
    { config, schema: { ...extensionRoute, params: liveParams, querystring: liveQuery, response: content("One session's live view alone; `token` (from the session's `browser_live_view_url`) is its credential", 'text/html') } },
    async (req, reply) => {
      // The token is the live socket's to check; the page is the same for every session and token, but its
      // URL holds a credential, so no cache keeps it.
      return send(req, reply, shellAsset, 'no-store');
    },
  );
  app.get('/console/app.js', { config, schema: { ...extensionRoute, querystring: noQuery, response: content("The console's script", 'text/javascript') } }, async (req, reply) =>
    send(req, reply, bundle().script),
  );
  app.get('/console/app.css', { config, schema: { ...extensionRoute, querystring: noQuery, response: content("The console's stylesheet", 'text/css') } }, async (req, reply) =>
    send(req, reply, bundle().style),
  );
}
